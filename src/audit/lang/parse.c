/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parse.c - one line of a rules file as auditctl 3.0.9 handles it: escape preprocessing,
 * space-only token splitting with auditctl's token cap, glibc getopt_long (permuting, with
 * abbreviated long options) over "auditctl" + tokens, auditctl's option loop (setopt) and the
 * final step that turns the line's state into a rule to send (handle_request).
 *
 * Invariants: all state is per line (struct audit_lstate, struct gopt) - nothing survives to the
 * next line; every failing line produces exactly one error diagnostic at the token that caused
 * it; control options emit a CTRL item when auditctl would have performed them, rules an ADD/DEL
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

#define LINE_MAX_COPY 6144	/* an option argument is part of one line, so it fits */

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

/* -S: returns the setopt retval contribution (0 ok, -1 error, -4 "return -1 from setopt"). */
static int opt_syscall(struct line_ctx *lc, char *optarg, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	int unknown_arch = !ls->elf;
	int al = list_of(ls->add), dl = list_of(ls->del);
	if (al == AL_TASK || dl == AL_TASK) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to task list");
		return -4;
	}
	if (al == AL_USER || dl == AL_USER) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to user list");
		return -4;
	}
	if (al == AL_FS || dl == AL_FS) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing being added to filesystem list");
		return -4;
	}
	if (ls->exclude) {
		diag(lc, SP_SEV_ERROR, t, "syscall auditing cannot be put on exclude list");
		return -4;
	}
	if (unknown_arch) {
		uint32_t elf = audit_mach_to_elf(lc->pc->host_mach);
		if (!elf) {
			diag(lc, SP_SEV_ERROR, t, "error detecting machine type");
			return -4;
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
				return -1;
			}
			if (rc)
				break;
		}
	} else {
		rc = audit_syscall_add(ls, ls->rb.mask, optarg);
	}
	if (rc == -1) {
		diag(lc, SP_SEV_ERROR, t, "syscall name unknown: '%s'", optarg);
		return -1;
	}
	if (rc == -2) {
		diag(lc, SP_SEV_ERROR, t, "elf type unknown: 0x%x", ls->elf);
		return -1;
	}
	ls->syscall_added = 1;
	if (unknown_arch && ls->add != AUDIT_LIST_UNSET)
		mismatch_check(lc, optarg, t);
	return 0;
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

/* -w/-W: audit_setup_watch_name() + audit_add_watch_dir().  1 or -1. */
static int setup_watch(struct line_ctx *lc, char *path, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
	if (check_path(lc, path, t))
		return -1;
	size_t len = strlen(path);
	if (len > 2 && path[len - 1] == '/') {
		while (len > 1 && path[len - 1] == '/')
			path[--len] = 0;
	}
	uint32_t type = audit_env_is_dir(lc->pc->env, path) ? AF_DIR : AF_WATCH;
	struct audit_rb *rb = &ls->rb;
	if (rb->field_count) {
		diag(lc, SP_SEV_ERROR, t, "rule is not empty");
		return -1;
	}
	rb->buflen = 0;
	memset(rb->mask, 0xff, sizeof(rb->mask));
	rb->field_count = 2;
	rb->fields[0] = type;
	rb->values[0] = (uint32_t)len;
	rb->fieldflags[0] = SP_AUDIT_OP_EQ;
	if (audit_rb_add_string(rb, path, len)) {
		lc->oom = 1;
		return -1;
	}
	rb->fields[1] = AF_PERM;
	rb->fieldflags[1] = SP_AUDIT_OP_EQ;
	rb->values[1] = 15;
	ls->perm_added = 1;
	return 1;
}

/* -p: audit_setup_perms() + audit_update_watch_perms().  1 or -1. */
static int setup_perms(struct line_ctx *lc, const char *opt, const struct tok *t)
{
	struct audit_rb *rb = &lc->ls->rb;
	size_t len = strlen(opt);
	uint32_t val = 0;
	if (len > 4) {
		diag(lc, SP_SEV_ERROR, t, "permission '%s' is too long", opt);
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		switch (tolower((unsigned char)opt[i])) {
		case 'r': val |= 4; break;
		case 'w': val |= 2; break;
		case 'x': val |= 1; break;
		case 'a': val |= 8; break;
		default:
			diag(lc, SP_SEV_ERROR, t, "permission '%c' isn't supported", opt[i]);
			return -1;
		}
	}
	if (rb->field_count < 1) {
		diag(lc, SP_SEV_ERROR, t, "permission option needs a watch given prior to it");
		return -1;
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
			return -1;
		}
		uint32_t i = rb->field_count++;
		rb->fields[i] = AF_PERM;
		rb->fieldflags[i] = SP_AUDIT_OP_EQ;
		rb->values[i] = val;
	}
	lc->ls->perm_added = 1;
	return 1;
}

/* Key accumulation (process_keys).  0 or -1. */
static int add_key(struct line_ctx *lc, const char *k, const struct tok *t)
{
	struct audit_lstate *ls = lc->ls;
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

static int field_diag(struct line_ctx *lc, int rc, const char *text, const struct tok *t)
{
	char msg[SP_DIAG_MSG_MAX];
	if (rc == AUDIT_RC_NOMEM) {
		lc->oom = 1;
		return -1;
	}
	if ((rc == -35 || rc == -38) && lc->ls->last_value)
		text = lc->ls->last_value;
	audit_fieldpair_msg(rc, text, msg, sizeof(msg));
	diag(lc, SP_SEV_ERROR, t, "%s", msg);
	return -1;
}

/* auditctl's setopt(): returns -3 deprecated, -2 ok no rule, -1 error, 0 ok, 1 send rule. */
static int setopt(struct line_ctx *lc, struct gopt *g, int count)
{
	struct audit_lstate *ls = lc->ls;
	int retval = 0, c;
	int list_requested = 0;

	ls->key[0] = 0;
	while (retval >= 0 && (c = audit_getopt_next(g, count)) != -1) {
		int flags = AUDIT_LIST_UNSET, rc;
		char *optarg = g->optarg;
		const struct tok *at = g->optarg_tok ? g->optarg_tok : g->opt_tok;
		switch (c) {
		case 'h':
			diag(lc, SP_SEV_ERROR, g->opt_tok, "option -h prints the usage and fails");
			retval = -1;
			break;
		case 'i':
		case 'c':
			ctrl(lc, c == 'i' ? "-i" : "-c");
			retval = -2;
			break;
		case 's':
			if (count > 3) {
				diag(lc, SP_SEV_ERROR, g->opt_tok, "too many options for status command");
				retval = -1;
				break;
			} else if (g->optind == 2 && count == 3) {
				if (strcmp(g->argv[g->optind]->s, "-i")) {
					diag(lc, SP_SEV_ERROR, g->argv[g->optind], "only -i option is allowed");
					retval = -1;
					break;
				}
				count--;
			}
			ctrl(lc, "-s");
			retval = -2;
			break;
		case 'e':
		case 'f':
			if (!strcmp(optarg, "0") || !strcmp(optarg, "1") || !strcmp(optarg, "2")) {
				ctrl(lc, "-%c %s", c, optarg);
			} else {
				diag(lc, SP_SEV_ERROR, at, "%s must be 0, 1, or 2 was '%s'",
				     c == 'e' ? "enable" : "failure", optarg);
				retval = -1;
			}
			break;
		case 'r':
		case 'b':
		case LO_BACKLOG_WAIT: {
			uint32_t v;
			const char *what = c == 'r' ? "rate" : c == 'b' ? "backlog" : "backlog_wait_time";
			rc = numeric_arg(optarg, &v);
			if (rc == 0) {
				if (c == LO_BACKLOG_WAIT)
					ctrl(lc, "--backlog_wait_time %u", v);
				else
					ctrl(lc, "-%c %u", c, v);
			} else {
				diag(lc, SP_SEV_ERROR, at, rc == -2 ? "error converting %s '%s'"
				     : "%s must be a numeric value was '%s'", what, optarg);
				return -1;
			}
			break;
		}
		case 'l':
			if (count > 4) {
				diag(lc, SP_SEV_ERROR, g->opt_tok, "wrong number of options for list request");
				retval = -1;
				break;
			}
			if (count == 3) {
				if (g->optind >= count || strcmp(g->argv[g->optind]->s, "-i")) {
					diag(lc, SP_SEV_ERROR, g->opt_tok, "only -k or -i options are allowed");
					retval = -1;
					break;
				}
				count--;
				ctrl(lc, "-l");
			} else if (count == 4) {
				if (g->optind >= count || strcmp(g->argv[g->optind]->s, "-k")) {
					diag(lc, SP_SEV_ERROR, g->opt_tok, "only -k or -i options are allowed");
					retval = -1;
					break;
				}
				ctrl(lc, "-l -k %s", g->argv[3]->s);
				count -= 2;
			} else {
				ctrl(lc, "-l");
			}
			list_requested = 1;
			retval = -2;
			break;
		case 'a':
		case 'A':
			if (strstr(optarg, "task") && ls->syscall_added) {
				diag(lc, SP_SEV_ERROR, at, "syscall auditing requested for task list");
				retval = -1;
				break;
			}
			/* fallthrough */
		case 'd':
			rc = rule_setup(lc, optarg, c == 'd' ? &ls->del : &ls->add, &ls->action);
			if (rc == 3) {
				diag(lc, SP_SEV_ERROR, g->opt_tok,
				     "multiple rule insert/delete operations are not allowed");
				retval = -1;
			} else if (rc == 2) {
				diag(lc, SP_SEV_ERROR, at, "%s rule - bad keyword '%s'",
				     c == 'd' ? "delete" : c == 'a' ? "append" : "add", optarg);
				retval = -1;
			} else if (rc == 1) {
				diag(lc, SP_SEV_WARNING, at, "%s rule - possible is deprecated",
				     c == 'd' ? "delete" : "append");
				return -3;
			} else {
				if (c == 'A')
					ls->add |= AL_PREPEND;
				retval = 1;
			}
			break;
		case 'S':
			rc = opt_syscall(lc, optarg, at);
			if (rc == -4)
				return -1;
			if (rc)
				retval = -1;
			break;
		case 'F':
			if (ls->add != AUDIT_LIST_UNSET) {
				flags = ls->add & 7;
			} else if (ls->del != AUDIT_LIST_UNSET) {
				flags = ls->del & 7;
			} else if (g->optind >= count || !strstr(optarg, "arch=") ||
				   strcmp(g->argv[g->optind]->s, "-t")) {
				diag(lc, SP_SEV_ERROR, at, "list must be given before field");
				retval = -1;
				break;
			}
			if (!strncmp(optarg, "key=", 4)) {
				if (add_key(lc, optarg + 4, at))
					retval = -1;
				break;
			}
			rc = audit_fieldpair(ls, optarg, flags);
			if (rc) {
				retval = field_diag(lc, rc, optarg, at);
			} else {
				uint32_t f = ls->rb.fields[ls->rb.field_count - 1];
				if (f == AF_PERM)
					ls->perm_added = 1;
				if (f == AF_EXE)
					ls->exe_added = 1;
			}
			break;
		case 'C':
			if (ls->add != AUDIT_LIST_UNSET)
				flags = ls->add & 7;
			else if (ls->del != AUDIT_LIST_UNSET)
				flags = ls->del & 7;
			rc = audit_fieldcmp(ls, optarg, flags);
			if (rc) {
				if (rc == -7)
					diag(lc, SP_SEV_ERROR, at, "-C '%s' can only be used with exit filter list",
					     optarg);
				else
					retval = field_diag(lc, rc, optarg, at);
				retval = -1;
			}
			break;
		case 'm': {
			if (count > 3) {
				diag(lc, SP_SEV_ERROR, g->opt_tok,
				     "the -m option must be the only option and takes 1 parameter");
				retval = -1;
				break;
			}
			for (const char *s = optarg; *s; s++)
				if ((unsigned char)*s < 32) {
					diag(lc, SP_SEV_ERROR, at, "illegal character in audit event");
					return -1;
				}
			ctrl(lc, "-m %s", optarg);
			return -2;
		}
		case 'R':
			diag(lc, SP_SEV_ERROR, g->opt_tok, "nested rule files not supported");
			retval = -1;
			break;
		case 'D':
			if (count > 4 || count == 3) {
				diag(lc, SP_SEV_ERROR, g->opt_tok,
				     "wrong number of options for delete all request");
				retval = -1;
				break;
			}
			if (count == 4) {
				if (g->optind >= count || strcmp(g->argv[g->optind]->s, "-k")) {
					diag(lc, SP_SEV_ERROR, g->opt_tok, "only the -k option is allowed");
					retval = -1;
					break;
				}
				ctrl(lc, "-D -k %s", g->argv[3]->s);
				count -= 2;
			} else {
				ctrl(lc, "-D");
			}
			ls->key[0] = 0;
			retval = -2;
			break;
		case 'w':
			if (ls->add != AUDIT_LIST_UNSET || ls->del != AUDIT_LIST_UNSET) {
				diag(lc, SP_SEV_ERROR, g->opt_tok, "watch option can't be given with a syscall");
				retval = -1;
				break;
			}
			/* fallthrough */
		case 'W':
			if (c == 'w')
				ls->add = AL_EXIT;
			else
				ls->del = AL_EXIT;
			ls->action = 2;
			ls->syscall_added = 1;
			retval = setup_watch(lc, optarg, at);
			break;
		case 'k':
			if (!(ls->syscall_added || ls->perm_added || ls->exe_added || ls->fs_added) ||
			    (ls->add == AUDIT_LIST_UNSET && ls->del == AUDIT_LIST_UNSET)) {
				diag(lc, SP_SEV_ERROR, g->opt_tok,
				     "key option needs a watch or syscall given prior to it");
				retval = -1;
				break;
			}
			if (add_key(lc, optarg, at))
				retval = -1;
			break;
		case 'p':
			if (ls->add == AUDIT_LIST_UNSET && ls->del == AUDIT_LIST_UNSET) {
				diag(lc, SP_SEV_ERROR, g->opt_tok,
				     "permission option needs a watch given prior to it");
				retval = -1;
			} else {
				retval = setup_perms(lc, optarg, at);
			}
			break;
		case 'q': {
			if (ls->syscall_added) {
				diag(lc, SP_SEV_ERROR, g->opt_tok, "syscall auditing requested for make equivalent");
				retval = -1;
				break;
			}
			char *p = strchr(optarg, ',');
			if (!p || !p[1] || strchr(p + 1, ',')) {
				diag(lc, SP_SEV_ERROR, at, "error parsing equivalent parts");
				retval = -1;
				break;
			}
			ctrl(lc, "-q %s", optarg);
			return -2;
		}
		case 't':
			ctrl(lc, "-t");
			return -2;
		case 'v':
			ctrl(lc, "-v");
			retval = -2;
			break;
		case LO_LOGINUID_IMMUTABLE:
			ctrl(lc, "--loginuid-immutable");
			return -2;
		case LO_RESET_LOST:
			ctrl(lc, "--reset-lost");
			return -2;
		case LO_RESET_BWT:
			ctrl(lc, "--reset_backlog_wait_time_actual");
			return -2;
		case LO_SIGNAL: {
			static const char *const sigs[] = { "TERM", "stop", "HUP", "reload", "USR1",
							    "rotate", "USR2", "resume", "CONT", "state" };
			int ok = 0;
			for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
				ok |= !strcasecmp(optarg, sigs[i]);
			if (!ok) {
				diag(lc, SP_SEV_ERROR, at, "'%s' is an unsupported signal", optarg);
				return -1;
			}
			ctrl(lc, "--signal %s", optarg);
			retval = -2;
			break;
		}
		default: {
			const struct tok *bad = g->optind >= 2 ? g->argv[g->optind - 1] : g->opt_tok;
			diag(lc, SP_SEV_ERROR, bad, "option '%s' on line %u is invalid", bad->s, lc->lineno);
			retval = -1;
			break;
		}
		}
	}
	if (g->optind == 1) {
		diag(lc, SP_SEV_ERROR, g->argc > 1 ? g->argv[1] : NULL, "line does not start with an option");
		retval = -1;
	} else if (g->optind < count && retval != -1) {
		diag(lc, SP_SEV_ERROR, g->argv[g->optind], "parameter passed without an option given");
		retval = -1;
	}
	if (ls->key[0] && !list_requested) {
		int fl = 0;
		if (ls->add != AUDIT_LIST_UNSET)
			fl = ls->add & 7;
		else if (ls->del != AUDIT_LIST_UNSET)
			fl = ls->del & 7;
		char cmd[SP_AUDIT_MAX_KEY_LEN + 8];
		snprintf(cmd, sizeof(cmd), "key=%s", ls->key);
		int rc = audit_fieldpair(ls, cmd, fl);
		if (rc)
			retval = field_diag(lc, rc, cmd, g->argc > 1 ? g->argv[1] : NULL);
	}
	return retval;
}

/* handle_request(): turn the line's state into a rule item. */
static void handle_request(struct line_ctx *lc, int status, const struct tok *first)
{
	struct audit_lstate *ls = lc->ls;
	if (status == 0) {
		if (ls->syscall_added)
			diag(lc, SP_SEV_ERROR, first, "no list specified");
		return;
	}
	if (status < 0)
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

int audit_scratch_new(struct audit_scratch **out, const struct sp_allocator *a)
{
	struct audit_scratch *sc = sp_zalloc(a, sizeof(*sc), 0);
	if (!sc)
		return -ENOMEM;
	sc->alloc = a;
	audit_rb_init(&sc->ls.rb, a);
	*out = sc;
	return 0;
}

void audit_scratch_free(struct audit_scratch *sc)
{
	if (!sc)
		return;
	scratch_drop(sc);
	audit_rb_release(&sc->ls.rb);
	sp_free(sc->alloc, sc, sizeof(*sc));
}

int audit_parse_line(const struct audit_pctx *pc, const char *line, uint32_t lineno, const char *file,
		     struct sp_audit_ruleset *rs, struct sp_diags *d, const struct sp_allocator *a)
{
	size_t n = strlen(line), idx = 0;
	while (line[idx] == ' ')
		idx++;
	if (!line[idx])
		return 0;
	size_t nf = n / 3 + 1;	/* 3.0.9's token cap */
	struct audit_scratch *sc = pc->scratch && !scratch_fit(pc->scratch, n + 1) ? pc->scratch : NULL;
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
	struct line_ctx lc = { .pc = pc, .ls = ls, .rs = rs, .d = d, .file = file, .lineno = lineno };
	struct gopt g = { .argv = argv, .argc = argc, .optind = 1, .first_nonopt = 1, .last_nonopt = 1 };
	int status = setopt(&lc, &g, argc);
	if (status == -1 && !lc.err_reported)
		diag(&lc, SP_SEV_ERROR, &toks[0], "there was an error in line %u", lineno);
	if (status != -3 && status != -1)
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
