/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parse.c - a rules text as auditctl 3.0.9 handles it (-R): its fgets() line loop, then per line
 * escape preprocessing, space-only token splitting with auditctl's token cap, glibc getopt_long
 * (lang/getopt.c) over "auditctl" + tokens, auditctl's option loop (setopt) and the final step
 * that turns the line's state into a rule to send (handle_request).
 *
 * Mirrors, function by function (auditctl.c and libaudit.c of audit-userspace 3.0.9), so the two
 * can be read side by side: audit_parse_text ~ fileopt()'s loop; parse_line ~ its per-line body
 * with reset_vars(); preprocess/postprocess ~ preprocess()/postprocess(); setopt ~ setopt(), one
 * case per option in auditctl's order, the long cases as opt_<option> helpers and the code after
 * the loop as setopt_end; lookup_filter/lookup_action/rule_setup ~ lookup_filter(),
 * lookup_action(), audit_rule_setup(); opt_syscall ~ the -S case with parse_syscall();
 * mismatch_check ~ check_rule_mismatch(); check_path/setup_watch ~ check_path(),
 * audit_setup_watch_name() and audit_add_watch_dir(); setup_perms ~ audit_setup_perms() and
 * audit_update_watch_perms(); add_key ~ the key handling of -k and -F key=; handle_request ~
 * handle_request().
 *
 * Invariants: all state is per line (struct audit_lstate, struct gopt) - nothing survives to the
 * next line but the line buffers of one audit_parse_text call, which this file alone makes and
 * frees; every failing line produces exactly one error diagnostic at the token that caused it;
 * control options emit a CTRL item when auditctl would have performed them, rules an ADD/DEL
 * item with the exact struct audit_rule_data bytes.  Token cap: a line of L bytes yields at most
 * L/3 + 1 tokens (the rest are dropped silently, as 3.0.9 does).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit/lang/getopt.h"
#include "audit/lang/lang_int.h"

#define LINE_SIZE 6144	/* auditctl's fgets buffer: a longer line is read in pieces */
#define LINE_MAX_COPY LINE_SIZE	/* an option argument is part of one line, so it fits */

/* ---- one line ---- */

struct line_ctx {
	const struct audit_pctx *pc;
	struct audit_lstate *ls;
	struct sp_audit_ruleset *rs;
	struct sp_diags *d;
	const char *file;
	uint32_t lineno;
	int err_reported;
	int oom;
	/* the token each field of the rule came from (SP_AUDIT_PARSE_KERNEL's positions); the key
	 * field, added last, from the last -k or key= token */
	struct tok fpos[ARD_MAX_FIELDS];
	struct tok key_tok;
	int bom;			/* the line starts with a UTF-8 byte-order mark */
};

/* What setopt() makes of a line: auditctl's setopt() return values. */
enum opt_rc {
	OPT_STOP = -4,		/* opt_syscall(): an error that ends the option loop at once */
	OPT_DEPRECATED = -3,	/* "possible" was warned about: nothing is sent */
	OPT_NO_RULE = -2,	/* a control option was handled: no rule */
	OPT_ERR = -1,
	OPT_OK = 0,		/* options read, no rule operation among them */
	OPT_SEND = 1,		/* a rule to send (handle_request) */
};

static void diag(struct line_ctx *lc, enum sp_severity sev, const struct tok *t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void diag(struct line_ctx *lc, enum sp_severity sev, const struct tok *t, const char *fmt, ...)
{
	if (sev == SP_SEV_ERROR) {
		if (lc->err_reported)
			return;	/* one error per line: auditctl stops the line at the first */
		lc->err_reported = 1;
	}
	if (!lc->d)
		return;
	char msg[SP_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	uint32_t col = t ? t->col : 1, end = t && t->len > 1 ? t->col + t->len - 1 : 0;
	if (lc->bom && sev == SP_SEV_ERROR) {
		/* the error is the byte-order mark's: auditctl read it as part of the first word */
		col = 1;
		end = 3;
		size_t m = strlen(msg);
		snprintf(msg + m, sizeof(msg) - m, " (the line starts with a UTF-8 byte-order mark)");
	}
	if (sp_diags_add(lc->d, sev, sev == SP_SEV_ERROR ? -EINVAL : 0, lc->file, lc->lineno, col, end,
			 "%s", msg))
		lc->oom = 1;
}

static void ctrl(struct line_ctx *lc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void ctrl(struct line_ctx *lc, const char *fmt, ...)
{
	char text[SP_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (audit_rs_append(lc->rs, SP_AUDIT_ITEM_CTRL, lc->lineno, NULL, 0, text))
		lc->oom = 1;
}

/* auditctl's lookup_filter/lookup_action (case-sensitive in 3.0.9). */
static int lookup_filter(struct line_ctx *lc, const char *s, int *filter)
{
	static const struct { const char *name; int v; } lists[] = {
		{ "user", AL_USER }, { "task", AL_TASK }, { "exit", AL_EXIT },
		{ "exclude", AL_EXCLUDE }, { "filesystem", AL_FS },
	};
	*filter = -1;
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++)
		if (!strcmp(s, lists[i].name))
			*filter = lists[i].v;
	if (*filter == AL_FS && !(lc->pc->features & AUDIT_FEAT_FS))
		*filter = -1;
	if (*filter == AL_EXCLUDE)
		lc->ls->exclude = 1;
	return *filter == -1 ? 2 : 0;
}

static int lookup_action(const char *s, int *act)
{
	if (!strcmp(s, "always"))
		*act = 2;
	else if (!strcmp(s, "never"))
		*act = 0;
	else if (!strcmp(s, "possible"))
		return 1;
	else
		return 2;
	return 0;
}

/* audit_rule_setup(): 0 ok, 1 deprecated "possible", 2 bad keyword, 3 multiple. */
static int rule_setup(struct line_ctx *lc, char *opt, int *filter, int *act)
{
	if (++lc->ls->multiple != 1)
		return 3;
	char *p = strchr(opt, ',');
	if (!p || strchr(p + 1, ','))
		return 2;
	*p = 0;
	if (lookup_action(opt, act) == 2) {
		int rc = lookup_filter(lc, opt, filter);
		if (rc) {
			*p = ',';
			return rc;
		}
	}
	*p = ',';
	opt = p + 1;
	if (*filter == AUDIT_LIST_UNSET) {
		lookup_filter(lc, opt, filter);
	} else {
		int rc = lookup_action(opt, act);
		if (rc)
			return rc;
	}
	if (*filter == AUDIT_LIST_UNSET || *filter == -1 || *act == -1)
		return 2;
	return 0;
}

static int list_of(int v)
{
	return v == AUDIT_LIST_UNSET ? AUDIT_LIST_UNSET : (v & 7);
}

static void mismatch_check(struct line_ctx *lc, const char *optarg, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	uint32_t old = ls->elf, tmp[64];
	switch (ls->elf) {
	case AUDIT_ELF_X86_64: ls->elf = AUDIT_ELF_I386; break;
	case AUDIT_ELF_PPC64: ls->elf = AUDIT_ELF_PPC; break;
	case AUDIT_ELF_S390X: ls->elf = AUDIT_ELF_S390; break;
	default: break;
	}
	memset(tmp, 0, sizeof(tmp));
	char copy[LINE_MAX_COPY];
	snprintf(copy, sizeof(copy), "%s", optarg);
	char *save = NULL;
	for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		(void)audit_syscall_add(ls, tmp, p);
	ls->elf = old;
	/* 3.0.9 compares only the first 64 bytes of the two masks */
	if (memcmp(tmp, ls->rb.mask, 64))
		diag(lc, SP_SEV_WARNING, t,
		     "32/64 bit syscall mismatch in line %u, you should specify an arch", lc->lineno);
}

/* -S: OPT_OK, OPT_ERR, or OPT_STOP (auditctl returns -1 from setopt at once). */
static int opt_syscall(struct line_ctx *lc, char *optarg, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	int unknown_arch = !ls->elf;
	int al = list_of(ls->add), dl = list_of(ls->del);
	if (al == AL_TASK || dl == AL_TASK) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to task list");
		return OPT_STOP;
	}
	if (al == AL_USER || dl == AL_USER) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to user list");
		return OPT_STOP;
	}
	if (al == AL_FS || dl == AL_FS) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to filesystem list");
		return OPT_STOP;
	}
	if (ls->exclude) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing cannot be put on exclude list");
		return OPT_STOP;
	}
	if (unknown_arch) {
		uint32_t elf = audit_mach_to_elf(lc->pc->host_mach);
		if (!elf) {
			diag(lc, SP_SEV_ERROR, t, "error detecting machine type");
			return OPT_STOP;
		}
		ls->elf = elf;
	}
	int rc = 0;
	if (strchr(optarg, ',')) {
		char copy[LINE_MAX_COPY];
		snprintf(copy, sizeof(copy), "%s", optarg);
		char *save = NULL;
		for (char *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
			rc = audit_syscall_add(ls, ls->rb.mask, p);
			if (rc == -1) {
				diag(lc, SP_SEV_ERROR, t, "syscall name unknown: '%s'", p);
				return OPT_ERR;
			}
			if (rc)
				break;
		}
	} else {
		rc = audit_syscall_add(ls, ls->rb.mask, optarg);
	}
	if (rc == -1) {
		diag(lc, SP_SEV_ERROR, t, "syscall name unknown: '%s'", optarg);
		return OPT_ERR;
	}
	if (rc == -2) {
		diag(lc, SP_SEV_ERROR, t, "elf type unknown: 0x%x", ls->elf);
		return OPT_ERR;
	}
	ls->syscall_added = 1;
	if (unknown_arch && ls->add != AUDIT_LIST_UNSET)
		mismatch_check(lc, optarg, t);
	return OPT_OK;
}

static int check_path(struct line_ctx *lc, const char *path, const struct tok *t)
{
	size_t plen = strlen(path);
	if (plen >= ARD_PATH_MAX) {
		diag(lc, SP_SEV_ERROR, t, "the path passed for the watch is too big");
		return 1;
	}
	if (path[0] != '/') {
		diag(lc, SP_SEV_ERROR, t, "the path must start with '/'");
		return 1;
	}
	/* basename(3) of the GNU flavour: the part after the last '/', "" for a trailing '/' */
	const char *base = strrchr(path, '/') + 1;
	if (strlen(base) > 255) {
		diag(lc, SP_SEV_ERROR, t, "the base name of the path is too big");
		return 1;
	}
	if (strstr(path, ".."))
		diag(lc, SP_SEV_WARNING, t, "relative path notation is not supported");
	if (strchr(path, '*') || strchr(path, '?'))
		diag(lc, SP_SEV_WARNING, t, "wildcard notation is not supported");
	return 0;
}

/* -w/-W: audit_setup_watch_name() + audit_add_watch_dir().  OPT_SEND or OPT_ERR. */
static int setup_watch(struct line_ctx *lc, char *path, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	if (check_path(lc, path, t))
		return OPT_ERR;
	size_t len = strlen(path);
	if (len > 2 && path[len - 1] == '/') {
		while (len > 1 && path[len - 1] == '/')
			path[--len] = 0;
	}
	uint32_t type = audit_env_is_dir(lc->pc->env, path) ? AF_DIR : AF_WATCH;
	struct audit_rb *rb = &ls->rb;
	if (rb->field_count) {
		diag(lc, SP_SEV_ERROR, t, "rule is not empty");
		return OPT_ERR;
	}
	rb->buflen = 0;
	memset(rb->mask, 0xff, sizeof(rb->mask));
	rb->field_count = 2;
	rb->fields[0] = type;
	rb->values[0] = (uint32_t)len;
	rb->fieldflags[0] = SP_AUDIT_OP_EQ;
	if (audit_rb_add_string(rb, path, len)) {
		lc->oom = 1;
		return OPT_ERR;
	}
	rb->fields[1] = AF_PERM;
	rb->fieldflags[1] = SP_AUDIT_OP_EQ;
	rb->values[1] = 15;
	ls->perm_added = 1;
	return OPT_SEND;
}

/* -p: audit_setup_perms() + audit_update_watch_perms().  OPT_SEND or OPT_ERR. */
static int setup_perms(struct line_ctx *lc, const char *opt, const struct tok *t)
{
	struct audit_rb *rb = &lc->ls->rb;
	size_t len = strlen(opt);
	uint32_t val = 0;
	if (len > 4) {
		diag(lc, SP_SEV_ERROR, t, "permission '%s' is too long", opt);
		return OPT_ERR;
	}
	for (size_t i = 0; i < len; i++) {
		switch (tolower((unsigned char)opt[i])) {
		case 'r': val |= 4; break;
		case 'w': val |= 2; break;
		case 'x': val |= 1; break;
		case 'a': val |= 8; break;
		default:
			diag(lc, SP_SEV_ERROR, t, "permission '%c' isn't supported", opt[i]);
			return OPT_ERR;
		}
	}
	if (rb->field_count < 1) {
		diag(lc, SP_SEV_ERROR, t, "permission option needs a watch given prior to it");
		return OPT_ERR;
	}
	int done = 0;
	for (uint32_t i = 0; i < rb->field_count; i++)
		if (rb->fields[i] == AF_PERM) {
			rb->values[i] = val;
			done = 1;
		}
	if (!done) {
		if (rb->field_count >= 63) {
			diag(lc, SP_SEV_ERROR, t, "too many fields in rule");
			return OPT_ERR;
		}
		uint32_t i = rb->field_count++;
		rb->fields[i] = AF_PERM;
		rb->fieldflags[i] = SP_AUDIT_OP_EQ;
		rb->values[i] = val;
	}
	lc->ls->perm_added = 1;
	return OPT_SEND;
}

/* Key accumulation (process_keys).  0 or -1. */
static int add_key(struct line_ctx *lc, const char *k, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	if (t)
		lc->key_tok = *t;
	size_t cur = strlen(ls->key);
	if (strlen(k) + cur + (cur ? 1 : 0) > SP_AUDIT_MAX_KEY_LEN) {
		diag(lc, SP_SEV_ERROR, t, "key option exceeds size limit");
		return -1;
	}
	if (strchr(k, 0x01))
		diag(lc, SP_SEV_WARNING, t, "key '%s' has illegal character", k);
	if (cur) {
		ls->key[cur++] = 0x01;
		ls->key[cur] = 0;
	}
	memcpy(ls->key + cur, k, strlen(k) + 1);
	return 0;
}

static int numeric_arg(const char *s, uint32_t *v)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	unsigned long x = strtoul(s, NULL, 0);
	if (errno)
		return -2;
	*v = (uint32_t)x;
	return 0;
}

/* A libaudit code as the line's error; OPT_ERR. */
static int field_diag(struct line_ctx *lc, int rc, const char *text, const struct tok *t)
{
	char msg[SP_DIAG_MSG_MAX];
	if (rc == AUDIT_RC_NOMEM) {
		lc->oom = 1;
		return OPT_ERR;
	}
	audit_fieldpair_msg(lc->ls, rc, text, msg, sizeof(msg));
	diag(lc, SP_SEV_ERROR, t, "%s", msg);
	return OPT_ERR;
}

/* The state of setopt()'s loop that the options change: the argument count shrinks by the
 * operands of "-s -i", "-l -k KEY" and "-D -k KEY"; `now` asks setopt() to return at once. */
struct optloop {
	int count;
	int list_requested;
	int now;
};

/* -s: status, alone or with -i. */
static int opt_status(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	if (ol->count > 3) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "too many options for status command");
		return OPT_ERR;
	} else if (g->optind == 2 && ol->count == 3) {
		if (strcmp(g->argv[g->optind]->s, "-i")) {
			diag(lc, SP_SEV_ERROR, g->argv[g->optind], "only -i option is allowed");
			return OPT_ERR;
		}
		ol->count--;
	}
	ctrl(lc, "-s");
	return OPT_NO_RULE;
}

/* -e, -f: enabled and failure modes, 0 to 2. */
static int opt_enable(struct line_ctx *lc, int c, const char *optarg, const struct tok *at)
{
	if (strcmp(optarg, "0") && strcmp(optarg, "1") && strcmp(optarg, "2")) {
		diag(lc, SP_SEV_ERROR, at, "%s must be 0, 1, or 2 was '%s'",
		     c == 'e' ? "enable" : "failure", optarg);
		return OPT_ERR;
	}
	ctrl(lc, "-%c %s", c, optarg);
	return OPT_OK;
}

/* -r, -b, --backlog_wait_time: a number, else setopt() returns -1 at once. */
static int opt_number(struct line_ctx *lc, int c, const char *optarg, const struct tok *at)
{
	uint32_t v;
	const char *what = c == 'r' ? "rate" : c == 'b' ? "backlog" : "backlog_wait_time";
	int rc = numeric_arg(optarg, &v);
	if (rc) {
		diag(lc, SP_SEV_ERROR, at, rc == -2 ? "error converting %s '%s'"
		     : "%s must be a numeric value was '%s'", what, optarg);
		return OPT_ERR;
	}
	if (c == LO_BACKLOG_WAIT)
		ctrl(lc, "--backlog_wait_time %u", v);
	else
		ctrl(lc, "-%c %u", c, v);
	return OPT_OK;
}

/* -l: list, alone, with -i or with -k KEY. */
static int opt_list(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	if (ol->count > 4) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "wrong number of options for list request");
		return OPT_ERR;
	}
	if (ol->count == 3) {
		if (g->optind >= ol->count || strcmp(g->argv[g->optind]->s, "-i")) {
			diag(lc, SP_SEV_ERROR, g->opt_tok, "only -k or -i options are allowed");
			return OPT_ERR;
		}
		ol->count--;
		ctrl(lc, "-l");
	} else if (ol->count == 4) {
		if (g->optind >= ol->count || strcmp(g->argv[g->optind]->s, "-k")) {
			diag(lc, SP_SEV_ERROR, g->opt_tok, "only -k or -i options are allowed");
			return OPT_ERR;
		}
		ctrl(lc, "-l -k %s", g->argv[3]->s);
		ol->count -= 2;
	} else {
		ctrl(lc, "-l");
	}
	ol->list_requested = 1;
	return OPT_NO_RULE;
}

/* -a, -A, -d: the list and action of the rule. */
static int opt_rule(struct line_ctx *lc, struct gopt *g, struct optloop *ol, int c)
{
	struct audit_lstate *ls = lc->ls;
	const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
	if (c != 'd' && strstr(g->optarg, "task") && ls->syscall_added) {
		diag(lc, SP_SEV_ERROR, at, "syscall auditing requested for task list");
		return OPT_ERR;
	}
	int rc = rule_setup(lc, g->optarg, c == 'd' ? &ls->del : &ls->add, &ls->action);
	if (rc == 3) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "multiple rule insert/delete operations are not allowed");
		return OPT_ERR;
	} else if (rc == 2) {
		diag(lc, SP_SEV_ERROR, at, "%s rule - bad keyword '%s'",
		     c == 'd' ? "delete" : c == 'a' ? "append" : "add", g->optarg);
		return OPT_ERR;
	} else if (rc == 1) {
		diag(lc, SP_SEV_WARNING, at, "%s rule - possible is deprecated",
		     c == 'd' ? "delete" : "append");
		ol->now = 1;
		return OPT_DEPRECATED;
	}
	if (c == 'A')
		ls->add |= AL_PREPEND;
	return OPT_SEND;
}

/* The list -F and -C fields are checked against: the rule's, once -a/-d gave it. */
static int field_list(const struct audit_lstate *ls)
{
	if (ls->add != AUDIT_LIST_UNSET)
		return ls->add & 7;
	if (ls->del != AUDIT_LIST_UNSET)
		return ls->del & 7;
	return AUDIT_LIST_UNSET;
}

/* -F: a field, or a key (-F key=); before -a only "-F arch=... -t" is taken. */
static int opt_field(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	struct audit_lstate *ls = lc->ls;
	char *optarg = g->optarg;
	const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
	int flags = field_list(ls);
	if (flags == AUDIT_LIST_UNSET && (g->optind >= ol->count || !strstr(optarg, "arch=") ||
					  strcmp(g->argv[g->optind]->s, "-t"))) {
		diag(lc, SP_SEV_ERROR, at, "list must be given before field");
		return OPT_ERR;
	}
	if (!strncmp(optarg, "key=", 4))
		return add_key(lc, optarg + 4, at) ? OPT_ERR : OPT_OK;
	int rc = audit_fieldpair(ls, optarg, flags);
	if (rc)
		return field_diag(lc, rc, optarg, at);
	uint32_t f = ls->rb.fields[ls->rb.field_count - 1];
	if (f == AF_PERM)
		ls->perm_added = 1;
	if (f == AF_EXE)
		ls->exe_added = 1;
	return OPT_OK;
}

/* -C: a field comparison (audit_fieldcmp cuts the text in place, as libaudit does). */
static int opt_compare(struct line_ctx *lc, struct gopt *g)
{
	const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
	int rc = audit_fieldcmp(lc->ls, g->optarg, field_list(lc->ls));
	return rc ? field_diag(lc, rc, g->optarg, at) : OPT_OK;
}

/* -m: a user message, the only option of its line. */
static int opt_message(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
	if (ol->count > 3) {
		diag(lc, SP_SEV_ERROR, g->opt_tok,
		     "the -m option must be the only option and takes 1 parameter");
		return OPT_ERR;
	}
	ol->now = 1;
	for (const char *s = g->optarg; *s; s++)
		if ((unsigned char)*s < 32) {
			diag(lc, SP_SEV_ERROR, at, "illegal character in audit event");
			return OPT_ERR;
		}
	ctrl(lc, "-m %s", g->optarg);
	return OPT_NO_RULE;
}

/* -D: delete all rules, or those of -k KEY. */
static int opt_delete_all(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	if (ol->count > 4 || ol->count == 3) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "wrong number of options for delete all request");
		return OPT_ERR;
	}
	if (ol->count == 4) {
		if (g->optind >= ol->count || strcmp(g->argv[g->optind]->s, "-k")) {
			diag(lc, SP_SEV_ERROR, g->opt_tok, "only the -k option is allowed");
			return OPT_ERR;
		}
		ctrl(lc, "-D -k %s", g->argv[3]->s);
		ol->count -= 2;
	} else {
		ctrl(lc, "-D");
	}
	lc->ls->key[0] = 0;
	return OPT_NO_RULE;
}

/* -w, -W: a watch rule on the exit list. */
static int opt_watch(struct line_ctx *lc, struct gopt *g, int c)
{
	struct audit_lstate *ls = lc->ls;
	if (c == 'w' && (ls->add != AUDIT_LIST_UNSET || ls->del != AUDIT_LIST_UNSET)) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "watch option can't be given with a syscall");
		return OPT_ERR;
	}
	if (c == 'w')
		ls->add = AL_EXIT;
	else
		ls->del = AL_EXIT;
	ls->action = 2;
	ls->syscall_added = 1;
	return setup_watch(lc, g->optarg, g->optarg_tok ? g->optarg_tok : g->opt_tok);
}

/* -k: a key, after a watch, a syscall, a perm, an exe or an fstype. */
static int opt_key(struct line_ctx *lc, struct gopt *g)
{
	const struct audit_lstate *ls = lc->ls;
	if (!(ls->syscall_added || ls->perm_added || ls->exe_added || ls->fs_added) ||
	    (ls->add == AUDIT_LIST_UNSET && ls->del == AUDIT_LIST_UNSET)) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "key option needs a watch or syscall given prior to it");
		return OPT_ERR;
	}
	return add_key(lc, g->optarg, g->optarg_tok ? g->optarg_tok : g->opt_tok) ? OPT_ERR : OPT_OK;
}

/* -p: the permissions of the watch (or rule) given before. */
static int opt_perms(struct line_ctx *lc, struct gopt *g)
{
	if (lc->ls->add == AUDIT_LIST_UNSET && lc->ls->del == AUDIT_LIST_UNSET) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "permission option needs a watch given prior to it");
		return OPT_ERR;
	}
	return setup_perms(lc, g->optarg, g->optarg_tok ? g->optarg_tok : g->opt_tok);
}

/* -q: make two mounts equivalent (a control option). */
static int opt_equiv(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
	if (lc->ls->syscall_added) {
		diag(lc, SP_SEV_ERROR, g->opt_tok, "syscall auditing requested for make equivalent");
		return OPT_ERR;
	}
	char *p = strchr(g->optarg, ',');
	if (!p || !p[1] || strchr(p + 1, ',')) {
		diag(lc, SP_SEV_ERROR, at, "error parsing equivalent parts");
		return OPT_ERR;
	}
	ctrl(lc, "-q %s", g->optarg);
	ol->now = 1;
	return OPT_NO_RULE;
}

/* --signal: one of auditd's signals, else setopt() returns -1 at once. */
static int opt_signal(struct line_ctx *lc, struct gopt *g, struct optloop *ol)
{
	static const char *const sigs[] = { "TERM", "stop", "HUP", "reload", "USR1", "rotate",
					    "USR2", "resume", "CONT", "state" };
	int ok = 0;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		ok |= !strcasecmp(g->optarg, sigs[i]);
	if (!ok) {
		diag(lc, SP_SEV_ERROR, g->optarg_tok ? g->optarg_tok : g->opt_tok,
		     "'%s' is an unsupported signal", g->optarg);
		ol->now = 1;
		return OPT_ERR;
	}
	ctrl(lc, "--signal %s", g->optarg);
	return OPT_NO_RULE;
}

/* Control options that end setopt() at once. */
static int opt_now(struct line_ctx *lc, struct optloop *ol, const char *text)
{
	ctrl(lc, "%s", text);
	ol->now = 1;
	return OPT_NO_RULE;
}

/* After the loop: a line must start with an option and have no stray operand; the joined keys
 * become the rule's last field. */
/* Fields [from, field_count) of the rule came from token t. */
static void note_fields(struct line_ctx *lc, uint32_t from, const struct tok *t)
{
	for (uint32_t i = from; t && i < lc->ls->rb.field_count && i < ARD_MAX_FIELDS; i++)
		lc->fpos[i] = *t;
}

/* The field a byte offset of the blob belongs to (-1: the header). */
static int field_at(const struct audit_rb *rb, uint64_t off)
{
	if (off >= ARD_OFF_FIELDS && off < ARD_OFF_BUFLEN)
		return (int)(((off - ARD_OFF_FIELDS) % (4 * ARD_MAX_FIELDS)) / 4);
	uint64_t at = ARD_HDR;
	for (uint32_t i = 0; off >= ARD_HDR && i < rb->field_count; i++) {
		if (audit_field_is_string(rb->fields[i])) {
			if (off < at + rb->values[i])
				return (int)i;
			at += rb->values[i];
		}
	}
	return -1;
}

/* SP_AUDIT_PARSE_KERNEL: would the kernel's audit_data_to_entry take the blob?  Reports the
 * refusal at the columns of the field it is about; returns 0 or the kernel's -errno. */
static int kernel_check(struct line_ctx *lc, const void *blob, size_t len, const struct tok *first)
{
	struct sp_audit_rule r;
	struct sp_diags bd;
	sp_diags_init(&bd, NULL);
	int err = sp_audit_rule_decode(blob, len, SP_AUDIT_DECODE_KERNEL, &r, &bd, lc->file);
	if (err) {
		int i = bd.n && bd.v[0].has_offset ? field_at(&lc->ls->rb, bd.v[0].offset) : -1;
		const struct tok *t = i >= 0 && lc->fpos[i].col ? &lc->fpos[i] : first;
		diag(lc, SP_SEV_ERROR, t, "the kernel refuses this rule: %s",
		     bd.n ? bd.v[0].msg : strerror(-err));
	}
	sp_diags_release(&bd);
	return err;
}

static int setopt_end(struct line_ctx *lc, struct gopt *g, const struct optloop *ol, int retval)
{
	struct audit_lstate *ls = lc->ls;
	if (g->optind == 1) {
		retval = OPT_ERR;	/* no option at all: auditctl says nothing but the line */
	} else if (g->optind < ol->count && retval != OPT_ERR) {
		diag(lc, SP_SEV_ERROR, g->argv[g->optind], "parameter passed without an option given");
		retval = OPT_ERR;
	}
	if (ls->key[0] && !ol->list_requested) {
		int fl = field_list(ls);
		char cmd[SP_AUDIT_MAX_KEY_LEN + 8];
		snprintf(cmd, sizeof(cmd), "key=%s", ls->key);
		uint32_t nf = ls->rb.field_count;
		int rc = audit_fieldpair(ls, cmd, fl == AUDIT_LIST_UNSET ? 0 : fl);
		note_fields(lc, nf, lc->key_tok.col ? &lc->key_tok : g->argc > 1 ? g->argv[1] : NULL);
		if (rc)
			retval = field_diag(lc, rc, cmd, g->argc > 1 ? g->argv[1] : NULL);
	}
	return retval;
}

/* auditctl's setopt(): the option loop, one case per option in auditctl's order. */
static int setopt(struct line_ctx *lc, struct gopt *g, int count)
{
	struct optloop ol = { .count = count };
	int retval = OPT_OK, c, rc;

	lc->ls->key[0] = 0;
	while (retval >= 0 && (c = audit_getopt_next(g, ol.count)) != -1) {
		const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
		uint32_t nf = lc->ls->rb.field_count;
		switch (c) {
		case 'h':
			diag(lc, SP_SEV_ERROR, g->opt_tok, "option -h prints the usage and fails");
			retval = OPT_ERR;
			break;
		case 'i':
		case 'c':
			ctrl(lc, c == 'i' ? "-i" : "-c");
			retval = OPT_NO_RULE;
			break;
		case 's':
			retval = opt_status(lc, g, &ol);
			break;
		case 'e':
		case 'f':
			if ((rc = opt_enable(lc, c, g->optarg, at)))
				retval = rc;
			break;
		case 'r':
		case 'b':
		case LO_BACKLOG_WAIT:
			if (opt_number(lc, c, g->optarg, at))
				return OPT_ERR;
			break;
		case 'l':
			retval = opt_list(lc, g, &ol);
			break;
		case 'a':
		case 'A':
		case 'd':
			retval = opt_rule(lc, g, &ol, c);
			break;
		case 'S':
			rc = opt_syscall(lc, g->optarg, at);
			if (rc == OPT_STOP)
				return OPT_ERR;
			if (rc)
				retval = OPT_ERR;
			break;
		case 'F':
			if ((rc = opt_field(lc, g, &ol)))
				retval = rc;
			break;
		case 'C':
			if ((rc = opt_compare(lc, g)))
				retval = rc;
			break;
		case 'm':
			retval = opt_message(lc, g, &ol);
			break;
		case 'R':
			diag(lc, SP_SEV_ERROR, g->opt_tok, "nested rule files not supported");
			retval = OPT_ERR;
			break;
		case 'D':
			retval = opt_delete_all(lc, g, &ol);
			break;
		case 'w':
		case 'W':
			retval = opt_watch(lc, g, c);
			break;
		case 'k':
			if ((rc = opt_key(lc, g)))
				retval = rc;
			break;
		case 'p':
			retval = opt_perms(lc, g);
			break;
		case 'q':
			retval = opt_equiv(lc, g, &ol);
			break;
		case 't':
			retval = opt_now(lc, &ol, "-t");
			break;
		case 'v':
			ctrl(lc, "-v");
			retval = OPT_NO_RULE;
			break;
		case LO_LOGINUID_IMMUTABLE:
			retval = opt_now(lc, &ol, "--loginuid-immutable");
			break;
		case LO_RESET_LOST:
			retval = opt_now(lc, &ol, "--reset-lost");
			break;
		case LO_RESET_BWT:
			retval = opt_now(lc, &ol, "--reset_backlog_wait_time_actual");
			break;
		case LO_SIGNAL:
			retval = opt_signal(lc, g, &ol);
			break;
		default: {
			const struct tok *bad = g->optind >= 2 ? g->argv[g->optind - 1] : g->opt_tok;
			diag(lc, SP_SEV_ERROR, bad, "option '%s' on line %u is invalid", bad->s, lc->lineno);
			retval = OPT_ERR;
			break;
		}
		}
		note_fields(lc, nf, at);
		if (ol.now)
			return retval;
	}
	return setopt_end(lc, g, &ol, retval);
}

/* ---- lint (SP_AUDIT_PARSE_LINT): what auditctl accepts but a rule author rarely means ---- */

/* A numeric field whose comparisons the kernel makes as 32-bit unsigned (ids, pids, args,
 * devices, inodes) or signed (exit), so bounds on it can contradict each other. */
static int ordered_field(uint32_t id, int *is_signed)
{
	*is_signed = id == AF_EXIT;
	return id <= AF_FSGID || id == AF_LOGINUID || id == AF_PPID || id == AF_SESSIONID ||
	       id == AF_OBJ_UID || id == AF_OBJ_GID || id == AF_DEVMAJOR || id == AF_DEVMINOR ||
	       id == AF_INODE || id == AF_EXIT || (id >= AF_ARG0 && id <= AF_ARG3);
}

/* Fields no event can satisfy together: the bounds of one field (=, <, <=, >, >=) leave an
 * empty range.  One warning per rule, at the field that closed the range. */
static void lint_contradiction(struct line_ctx *lc)
{
	const struct audit_rb *rb = &lc->ls->rb;
	for (uint32_t i = 0; i < rb->field_count; i++) {
		int sg;
		if (!ordered_field(rb->fields[i], &sg))
			continue;
		int64_t lo = sg ? INT32_MIN : 0, hi = sg ? INT32_MAX : UINT32_MAX;
		for (uint32_t j = 0; j <= i; j++) {
			if (rb->fields[j] != rb->fields[i])
				continue;
			int64_t v = sg ? (int64_t)(int32_t)rb->values[j] : (int64_t)rb->values[j];
			switch (rb->fieldflags[j]) {
			case SP_AUDIT_OP_EQ: lo = lo > v ? lo : v; hi = hi < v ? hi : v; break;
			case SP_AUDIT_OP_GT: lo = lo > v + 1 ? lo : v + 1; break;
			case SP_AUDIT_OP_GE: lo = lo > v ? lo : v; break;
			case SP_AUDIT_OP_LT: hi = hi < v - 1 ? hi : v - 1; break;
			case SP_AUDIT_OP_LE: hi = hi < v ? hi : v; break;
			default: break;
			}
		}
		if (lo > hi) {
			diag(lc, SP_SEV_WARNING, lc->fpos[i].col ? &lc->fpos[i] : NULL,
			     "this rule never matches: no %s satisfies all of its %s fields",
			     audit_field_name(rb->fields[i]), audit_field_name(rb->fields[i]));
			return;
		}
	}
}

static int is_op_char(char c)
{
	return c == '=' || c == '<' || c == '>' || c == '!' || c == '&';
}

/* A number written wider than the 32 bits auditctl sends ("a0=0x1ffffffff" goes as
 * 4294967295), once per field. */
static void lint_wide_values(struct line_ctx *lc)
{
	const struct audit_rb *rb = &lc->ls->rb;
	for (uint32_t i = 0; i < rb->field_count && i < ARD_MAX_FIELDS; i++) {
		const struct tok *t = &lc->fpos[i];
		int sg;
		if (!t->s || !ordered_field(rb->fields[i], &sg))
			continue;
		/* the pair was cut in place (NUL over the operator): the value follows it */
		const char *v = t->s, *end = t->s + t->len;
		while (v < end && *v && !is_op_char(*v))
			v++;
		while (v < end && (!*v || is_op_char(*v)))
			v++;
		if (v >= end || *v == '-')
			continue;
		char *e;
		errno = 0;
		unsigned long long x = strtoull(v, &e, 0);
		if (!*e && (errno == ERANGE || x > UINT32_MAX))
			diag(lc, SP_SEV_WARNING, t, "value '%s' does not fit 32 bits: auditctl sends %u",
			     v, rb->values[i]);
	}
}

/* handle_request(): turn the line's state into a rule item. */
static void handle_request(struct line_ctx *lc, int status, const struct tok *first)
{
	struct audit_lstate *ls = lc->ls;
	if (status == OPT_OK) {
		if (ls->syscall_added)
			diag(lc, SP_SEV_ERROR, first, "no list specified");
		return;
	}
	if (status < OPT_OK)
		return;
	int which = ls->add != AUDIT_LIST_UNSET ? ls->add : ls->del;
	if (which == AUDIT_LIST_UNSET) {
		diag(lc, SP_SEV_ERROR, first, "no rule operation given");
		return;
	}
	if ((which & 7) != AL_TASK && ls->syscall_added != 1)
		memset(ls->rb.mask, 0xff, sizeof(ls->rb.mask));
	ls->rb.flags = (uint32_t)which;
	ls->rb.action = (uint32_t)ls->action;
	void *blob;
	size_t len;
	if (audit_rb_encode(&ls->rb, &blob, &len)) {
		lc->oom = 1;
		return;
	}
	if (audit_rs_append(lc->rs, ls->add != AUDIT_LIST_UNSET ? SP_AUDIT_ITEM_ADD : SP_AUDIT_ITEM_DEL,
			    lc->lineno, blob, len, NULL))
		lc->oom = 1;
	else if (lc->pc->flags & SP_AUDIT_PARSE_KERNEL)
		audit_rs_set_kernel_err(lc->rs, kernel_check(lc, blob, len, first));
	if (lc->pc->flags & SP_AUDIT_PARSE_LINT) {
		lint_wide_values(lc);
		lint_contradiction(lc);
	}
	sp_free(ls->rb.alloc, blob, len);
}

/* auditctl's preprocess(): mark "\ " as 0x07 0x07 and "\\" as 0x04 0x04 in place. */
static void preprocess(char *b)
{
	int esc = 0;
	for (size_t i = 0; b[i]; i++) {
		if (b[i] == '\\' && !esc) {
			esc = 1;
		} else {
			if (esc) {
				if (b[i] == ' ')
					b[i] = b[i - 1] = 0x07;
				else if (b[i] == '\\')
					b[i] = b[i - 1] = 0x04;
				esc = 0;
			}
		}
	}
}

/* auditctl's postprocess(): 0x07 -> ' ', 0x04 -> '\\', each consuming two bytes. */
static void postprocess(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (*r == 0x07 || *r == 0x04) {
			*w++ = *r == 0x07 ? ' ' : '\\';
			r += r[1] ? 2 : 1;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
}

/* Per-parse buffers, grown to the longest line seen so far (a line is at most 6143 bytes). */
struct audit_scratch {
	const struct sp_allocator *alloc;
	size_t cap;			/* line bytes the buffers hold, NUL included */
	char *b;
	struct tok *toks;		/* cap / 3 + 2 */
	struct tok **argv;		/* cap / 3 + 3 */
	struct audit_lstate ls;		/* ls.rb.buf is kept (and grown) across lines */
};

static void scratch_drop(struct audit_scratch *sc)
{
	if (!sc->cap)
		return;
	sp_free(sc->alloc, sc->b, sc->cap);
	sp_free(sc->alloc, sc->toks, (sc->cap / 3 + 2) * sizeof(*sc->toks));
	sp_free(sc->alloc, sc->argv, (sc->cap / 3 + 3) * sizeof(*sc->argv));
	sc->b = NULL;
	sc->toks = NULL;
	sc->argv = NULL;
	sc->cap = 0;
}

static int scratch_fit(struct audit_scratch *sc, size_t need)
{
	if (need <= sc->cap)
		return 0;
	size_t cap = sc->cap ? sc->cap : 256;
	while (cap < need)
		cap *= 2;
	scratch_drop(sc);
	sc->b = sp_alloc(sc->alloc, cap, 1);
	sc->toks = sp_alloc(sc->alloc, (cap / 3 + 2) * sizeof(*sc->toks), 0);
	sc->argv = sp_alloc(sc->alloc, (cap / 3 + 3) * sizeof(*sc->argv), 0);
	sc->cap = cap;
	if (!sc->b || !sc->toks || !sc->argv) {
		sp_free(sc->alloc, sc->b, cap);
		sp_free(sc->alloc, sc->toks, (cap / 3 + 2) * sizeof(*sc->toks));
		sp_free(sc->alloc, sc->argv, (cap / 3 + 3) * sizeof(*sc->argv));
		sc->b = NULL;
		sc->toks = NULL;
		sc->argv = NULL;
		sc->cap = 0;
		return -ENOMEM;
	}
	return 0;
}

static int scratch_new(struct audit_scratch **out, const struct sp_allocator *a)
{
	struct audit_scratch *sc = sp_zalloc(a, sizeof(*sc), 0);
	if (!sc)
		return -ENOMEM;
	sc->alloc = a;
	audit_rb_init(&sc->ls.rb, a);
	*out = sc;
	return 0;
}

static void scratch_free(struct audit_scratch *sc)
{
	if (!sc)
		return;
	scratch_drop(sc);
	audit_rb_release(&sc->ls.rb);
	sp_free(sc->alloc, sc, sizeof(*sc));
}

/* One physical line (NUL-terminated, no newline) into rs, with the buffers of sc (or, when they
 * cannot grow, buffers of its own).  0 or -ENOMEM. */
/* The bytes of a physical line auditctl takes but a rule author rarely means: a NUL byte (fgets
 * stops the line there), a carriage return (kept in the last word), a tab (not a separator),
 * a byte-order mark (read as part of the first word).  Comment lines are left alone. */
static void lint_raw_line(const char *p, size_t n, uint32_t lineno, const char *file, int bom,
			  struct sp_diags *d)
{
	size_t lead = bom ? 3 : 0;
	while (lead < n && p[lead] == ' ')
		lead++;
	if (lead >= n || p[lead] == '#' || p[lead] == '\n')
		return;
	if (bom)
		sp_diags_add(d, SP_SEV_WARNING, 0, file, lineno, 1, 3,
			     "a UTF-8 byte-order mark: auditctl reads it as part of the first word");
	const char *z = memchr(p, 0, n), *cr = memchr(p, '\r', n), *tab = memchr(p, '\t', n);
	if (z)
		sp_diags_add(d, SP_SEV_WARNING, 0, file, lineno, (uint32_t)(z - p) + 1, 0,
			     "a NUL byte: auditctl ignores the rest of the line");
	if (cr && (!z || cr < z))
		sp_diags_add(d, SP_SEV_WARNING, 0, file, lineno, (uint32_t)(cr - p) + 1, 0,
			     "a carriage return (a CRLF line end?): auditctl keeps it in the word "
			     "before it");
	if (tab && (!z || tab < z))
		sp_diags_add(d, SP_SEV_WARNING, 0, file, lineno, (uint32_t)(tab - p) + 1, 0,
			     "a tab: auditctl separates words by spaces only");
}

static int parse_line(const struct audit_pctx *pc, struct audit_scratch *scratch, const char *line,
		      uint32_t lineno, const char *file, struct sp_audit_ruleset *rs,
		      struct sp_diags *d, const struct sp_allocator *a, int bom)
{
	size_t n = strlen(line), idx = 0;
	while (line[idx] == ' ')
		idx++;
	if (!line[idx])
		return 0;
	size_t nf = n / 3 + 1;	/* 3.0.9's token cap */
	struct audit_scratch *sc = !scratch_fit(scratch, n + 1) ? scratch : NULL;
	char *b = sc ? sc->b : sp_alloc(a, n + 1, 1);
	struct tok *toks = sc ? sc->toks : sp_alloc(a, (nf + 1) * sizeof(*toks), 0);
	struct tok **argv = sc ? sc->argv : sp_alloc(a, (nf + 2) * sizeof(*argv), 0);
	struct audit_lstate *ls = sc ? &sc->ls : sp_alloc(a, sizeof(*ls), 0);
	int rc = 0;
	if (!b || !toks || !argv || !ls) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(b, line, n + 1);
	preprocess(b);
	size_t nt = 0;
	for (size_t i = 0; i < n && nt < nf;) {
		while (i < n && b[i] == ' ')
			i++;
		if (i >= n)
			break;
		size_t s = i;
		while (i < n && b[i] != ' ')
			i++;
		b[i] = 0;
		toks[nt].s = b + s;
		toks[nt].col = (uint32_t)s + 1;
		toks[nt].len = (uint32_t)(i - s);
		nt++;
		i++;
	}
	if (!nt || toks[0].s[0] == '#')
		goto out;
	for (size_t i = 1; i < nt; i++)
		postprocess(toks[i].s);

	static char prog[] = "auditctl";
	struct tok t0 = { .s = prog, .col = 1, .len = 0 };
	argv[0] = &t0;
	for (size_t i = 0; i < nt; i++)
		argv[i + 1] = &toks[i];
	int argc = (int)nt + 1;

	/* reset_vars(): a fresh rule, keeping the string buffer's memory */
	char *keep_buf = sc ? ls->rb.buf : NULL;
	size_t keep_cap = sc ? ls->rb.cap : 0;
	memset(ls, 0, sizeof(*ls));
	audit_rb_init(&ls->rb, a);
	ls->rb.buf = keep_buf;
	ls->rb.cap = keep_cap;
	ls->pc = pc;
	ls->add = ls->del = AUDIT_LIST_UNSET;
	ls->action = -1;
	struct line_ctx lc = { .pc = pc, .ls = ls, .rs = rs, .d = d, .file = file, .lineno = lineno,
			       .bom = bom };
	struct gopt g = { .argv = argv, .argc = argc, .optind = 1, .first_nonopt = 1, .last_nonopt = 1 };
	int status = setopt(&lc, &g, argc);
	if (status == OPT_ERR && !lc.err_reported)	/* fileopt()'s words after a failed line */
		diag(&lc, SP_SEV_ERROR, &toks[0], "There was an error in line %u of %s", lineno,
		     file ? file : "<input>");
	if (status != OPT_DEPRECATED && status != OPT_ERR)
		handle_request(&lc, status, &toks[0]);
	if (!sc)
		audit_rb_release(&ls->rb);
	if (lc.oom)
		rc = -ENOMEM;
out:
	if (!sc) {
		sp_free(a, b, n + 1);
		sp_free(a, toks, (nf + 1) * sizeof(*toks));
		sp_free(a, argv, (nf + 2) * sizeof(*argv));
		sp_free(a, ls, sizeof(*ls));
	}
	return rc;
}

int audit_parse_text(const struct audit_pctx *pc, const char *text, size_t len, const char *file,
		     size_t max_err, struct sp_audit_ruleset *rs, struct sp_diags *d,
		     const struct sp_allocator *a)
{
	struct audit_scratch *sc;
	int rc = scratch_new(&sc, a);
	if (rc)
		return rc;
	char buf[LINE_SIZE];
	uint32_t lineno = 0;
	size_t pos = 0, errs0 = d ? d->nerrors : 0;
	while (pos < len) {
		/* fgets(buf, 6144): up to 6143 bytes, stopping after a newline */
		size_t n = 0;
		while (pos + n < len && n < LINE_SIZE - 1) {
			char c = text[pos + n++];
			if (c == '\n')
				break;
		}
		memcpy(buf, text + pos, n);
		buf[n] = 0;
		lineno++;
		struct sp_diags *ld = d && d->nerrors - errs0 < max_err ? d : NULL;
		int bom = lineno == 1 && n >= 3 && !memcmp(text, "\xef\xbb\xbf", 3);
		if (pc->flags & SP_AUDIT_PARSE_LINT)
			lint_raw_line(text + pos, n, lineno, file, bom, ld);
		pos += n;
		char *nl = strchr(buf, '\n');	/* strchr: a NUL byte ends the line early */
		if (nl)
			*nl = 0;
		/* past the error limit lines are still parsed (their rules count), just not reported */
		struct sp_diags *dd = d && d->nerrors - errs0 < max_err ? d : NULL;
		rc = parse_line(pc, sc, buf, lineno, file, rs, dd, a, bom);
		if (rc == -ENOMEM)
			break;
		rc = 0;
	}
	scratch_free(sc);
	return rc;
}
