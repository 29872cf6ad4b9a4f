/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cost.c - what a rule set costs the kernel's syscall-exit filter, and the lints.
 *
 * The price of one syscall is the walk __audit_filter_op() does over the exit list: every rule
 * costs one audit_in_mask() test ("rules examined"), a rule whose mask holds the syscall then
 * evaluates its fields in order until one is false ("field checks"); the first matching rule
 * ends the walk.  An event class is (arch, syscall, success) from a syscall-frequency profile;
 * fields the class fixes are evaluated exactly (arch, success, perm by syscall class, exit
 * against the success flag), others are assumed true but the rule is assumed not to match
 * (the worst case for the walk).  Inode-hash rules (watches, inode=) are walked per collected
 * name, one bucket each; profiles carry no names, so that pass is only estimated (names the
 * syscall collects x hash rules / 32) and kept apart.
 *
 * Invariants: a mix entry is unique per (arch, nr); lints come out in source order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "audit/tools/tools_int.h"
#include "secpath/audit_record.h"

/* ---- mixes ---- */

struct sp_audit_mix {
	struct sp_audit_mix_entry *v;
	size_t n, cap;
};

SP_API int sp_audit_mix_new(struct sp_audit_mix **out)
{
	if (!out)
		return -EINVAL;
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

SP_API void sp_audit_mix_free(struct sp_audit_mix *m)
{
	if (!m)
		return;
	free(m->v);
	free(m);
}

SP_API int sp_audit_mix_add(struct sp_audit_mix *m, uint32_t arch, int32_t nr, uint64_t calls,
			    uint64_t errors)
{
	if (!m || nr < 0 || errors > calls)
		return -EINVAL;
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].arch == arch && m->v[i].nr == nr) {
			m->v[i].calls += calls;
			m->v[i].errors += errors;
			return 0;
		}
	if (m->n == m->cap) {
		size_t nc = m->cap ? m->cap * 2 : 64;
		struct sp_audit_mix_entry *nv = realloc(m->v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		m->v = nv;
		m->cap = nc;
	}
	m->v[m->n++] = (struct sp_audit_mix_entry){ arch, nr, calls, errors };
	return 0;
}

SP_API int sp_audit_mix_parse_tsv(struct sp_audit_mix *m, const char *text, size_t len,
				  const char *machine, const char *file, struct sp_diags *d)
{
	const char *p = text, *end = text + len;
	uint32_t arch = SP_AUDIT_ARCH_X86_64, lineno = 0;
	int bad = 0;
	if (!m || (!text && len))
		return -EINVAL;
	if (!machine)
		machine = "x86_64";
	if (sp_audit_arch_lookup(NULL, machine, &arch))
		return -EINVAL;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		char line[512], name[128];
		unsigned long long calls = 0, errors = 0;
		size_t n = (size_t)(le - p);
		lineno++;
		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = 0;
		p = nl ? nl + 1 : end;
		if (!line[0] || line[0] == '#')
			continue;
		int got = sscanf(line, "%127[^\t]\t%llu\t%llu", name, &calls, &errors);
		if (got < 2 || errors > calls) {
			if (d)
				sp_diags_add(d, SP_SEV_ERROR, -EINVAL, file, lineno, 1, 0,
					     "expected syscall<TAB>calls<TAB>errors");
			bad = 1;
			continue;
		}
		int nr = sp_audit_syscall_lookup(machine, name);
		if (nr < 0 && (!strcmp(name, "pread64") || !strcmp(name, "pwrite64"))) {
			name[strlen(name) - 2] = 0;	/* strace's names; libaudit's are pread/pwrite */
			nr = sp_audit_syscall_lookup(machine, name);
		}
		if (nr < 0) {
			if (d)
				sp_diags_add(d, SP_SEV_WARNING, -ENOENT, file, lineno, 1, 0,
					     "unknown syscall '%s' on %s", name, machine);
			continue;
		}
		int err = sp_audit_mix_add(m, arch, nr, calls, errors);
		if (err)
			return err;
	}
	return bad ? -EINVAL : 0;
}

SP_API int sp_audit_mix_add_stream(struct sp_audit_mix *m, const void *buf, size_t len,
				   struct sp_diags *d)
{
	struct sp_audit_record_reader *r = NULL;
	struct sp_audit_event *ev = NULL;
	int err = sp_audit_record_reader_new(buf, len, &r);
	if (!err)
		err = sp_audit_event_new(&ev);
	while (!err) {
		int rc = sp_audit_record_read(r, ev, d);
		if (rc <= 0) {
			err = rc;
			break;
		}
		if (ev->kind != SP_AUDIT_EV_SYSCALL)
			continue;
		err = sp_audit_mix_add(m, ev->arch, ev->major < 0 ? 0 : ev->major, 1,
				       ev->return_valid == RET_FAILURE);
	}
	sp_audit_event_free(ev);
	sp_audit_record_reader_free(r);
	return err;
}

SP_API int sp_audit_mix_load(struct sp_audit_mix *m, const char *path, const char *machine,
			     struct sp_diags *d)
{
	char *buf = NULL;
	size_t len = 0;
	if (!m || !path)
		return -EINVAL;
	int err = sp_file_read(path, &buf, &len);
	if (err)
		return err;
	if (sp_audit_record_is_stream(buf, len))
		err = sp_audit_mix_add_stream(m, buf, len, d);
	else
		err = sp_audit_mix_parse_tsv(m, buf, len, machine, path, d);
	free(buf);
	return err;
}

SP_API int sp_audit_mix_add_scaled(struct sp_audit_mix *m, const struct sp_audit_mix *src,
				   uint64_t total)
{
	uint64_t t = sp_audit_mix_total(src);
	if (!m || !src)
		return -EINVAL;
	for (size_t i = 0; t && i < src->n; i++) {
		const struct sp_audit_mix_entry *e = &src->v[i];
		uint64_t c = (uint64_t)((double)e->calls * (double)total / (double)t + 0.5);
		uint64_t er = (uint64_t)((double)e->errors * (double)total / (double)t + 0.5);
		if (!c)
			continue;
		int err = sp_audit_mix_add(m, e->arch, e->nr, c, er > c ? c : er);
		if (err)
			return err;
	}
	return 0;
}

SP_API size_t sp_audit_mix_count(const struct sp_audit_mix *m)
{
	return m ? m->n : 0;
}

SP_API int sp_audit_mix_entry(const struct sp_audit_mix *m, size_t i, struct sp_audit_mix_entry *e)
{
	if (!m || i >= m->n || !e)
		return -ERANGE;
	*e = m->v[i];
	return 0;
}

SP_API uint64_t sp_audit_mix_total(const struct sp_audit_mix *m)
{
	uint64_t t = 0;
	for (size_t i = 0; m && i < m->n; i++)
		t += m->v[i].calls;
	return t;
}

/* ---- the walk ---- */


/* audit_match_perm() as far as (arch, nr) decides it. */
static int perm_truth(uint32_t arch, int32_t nr, uint32_t mask)
{
	int cls = audit_classify_syscall(arch, (uint32_t)nr);
	int c32 = cls == SC_COMPAT;
	switch (cls) {
	case SC_NATIVE:
	case SC_COMPAT:
		if ((mask & PERM_WRITE) && audit_match_class(c32 ? CL_WRITE_32 : CL_WRITE, (uint32_t)nr))
			return T_TRUE;
		if ((mask & PERM_READ) && audit_match_class(c32 ? CL_READ_32 : CL_READ, (uint32_t)nr))
			return T_TRUE;
		if ((mask & PERM_ATTR) && audit_match_class(c32 ? CL_CHATTR_32 : CL_CHATTR, (uint32_t)nr))
			return T_TRUE;
		return T_FALSE;
	case SC_EXECVE:
		return mask & PERM_EXEC ? T_TRUE : T_FALSE;
	case SC_SOCKETCALL:
		return mask & PERM_WRITE ? T_UNKNOWN : T_FALSE;
	default:	/* open, openat, openat2: the access mode decides */
		return mask & (PERM_READ | PERM_WRITE) ? T_UNKNOWN : T_FALSE;
	}
}

int tool_field_truth(const struct audit_kfield *f, uint32_t arch, int32_t nr, int success)
{
	switch (f->type) {
	case AF_ARCH:
		return audit_comparator(arch, f->op, f->val);
	case AF_SUCCESS:
		return audit_comparator(success ? RET_SUCCESS : RET_FAILURE, f->op,
					f->val ? RET_SUCCESS : RET_FAILURE);
	case AF_EXIT:
		/* errors are -4095..-1; successes are rarely in that range once truncated */
		if (f->op == OP_EQ && (f->val >= 0xfffff001u) != !success)
			return T_FALSE;
		return T_UNKNOWN;
	case AF_PERM: {
		int t = perm_truth(arch, nr, f->val);
		if (f->op == OP_NE && t != T_UNKNOWN)
			t = !t;
		return t;
	}
	case AF_FILTERKEY:
		return T_TRUE;
	default:
		return T_UNKNOWN;
	}
}

/* Walk cost of s for one class (arch, nr, success).  Adds per-rule costs to rule_rules /
 * rule_checks (indexed like s->v, may be NULL), weighted by w. */
static void walk_cost(const struct tool_set *s, uint32_t arch, int32_t nr, int success, double w,
		      double *rules, double *checks, double *rule_rules, double *rule_checks)
{
	for (size_t i = 0; i < s->nexit; i++) {
		const struct tool_rule *r = &s->v[i];
		if (r->hash)
			continue;
		*rules += w;
		if (rule_rules)
			rule_rules[i] += w;
		if (nr < 0 || nr >= ARD_MASK_WORDS * 32 ||
		    !(r->k.mask[nr / 32] >> (nr % 32) & 1))
			continue;
		int all_true = 1, stop = 0;
		for (uint32_t j = 0; j < r->k.field_count && !stop; j++) {
			int t = tool_field_truth(&r->k.fields[j], arch, nr, success);
			*checks += w;
			if (rule_checks)
				rule_checks[i] += w;
			if (t == T_FALSE)
				stop = 1;
			else if (t == T_UNKNOWN)
				all_true = 0;
		}
		if (!stop && all_true)
			return;		/* matched: the walk ends here */
	}
}

void tool_mix_cost(const struct tool_set *s, const struct sp_audit_mix *mix, double *rules,
		   double *checks)
{
	double r = 0, c = 0, total = 0;
	if (!mix || !mix->n) {
		for (int nr = 0; nr < 460; nr++)
			walk_cost(s, SP_AUDIT_ARCH_X86_64, nr, 1, 1, &r, &c, NULL, NULL);
		total = 460;
	} else {
		for (size_t i = 0; i < mix->n; i++) {
			const struct sp_audit_mix_entry *e = &mix->v[i];
			walk_cost(s, e->arch, e->nr, 1, (double)(e->calls - e->errors), &r, &c,
				       NULL, NULL);
			walk_cost(s, e->arch, e->nr, 0, (double)e->errors, &r, &c, NULL, NULL);
			total += (double)e->calls;
		}
	}
	*rules = total ? r / total : 0;
	*checks = total ? c / total : 0;
}

/* ---- measured: the reference engine over the mix ---- */

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* One side of a measurement: a reference engine loaded with a rule set. */
static int bench_ref(const struct sp_audit_ruleset *rs, struct sp_audit_fsview **fs,
		     struct sp_audit_ref **ref)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo) };
	int err = tool_fs_build(rs, NULL, fs, NULL, NULL);
	if (err)
		return err;
	eo.fs = *fs;
	err = sp_audit_ref_new(&eo, ref);
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, i, &it);
		if (it.kind == SP_AUDIT_ITEM_CTRL && !strcmp(it.ctrl, "-D")) {
			sp_audit_ref_free(*ref);
			*ref = NULL;
			err = sp_audit_ref_new(&eo, ref);
		} else if (it.kind == SP_AUDIT_ITEM_ADD) {
			sp_audit_ref_add(*ref, it.blob, it.blob_len, (uint32_t)i);
		} else if (it.kind == SP_AUDIT_ITEM_DEL) {
			sp_audit_ref_del(*ref, it.blob, it.blob_len);
		}
	}
	return err;
}

void tool_measure_pair(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
		       const struct sp_audit_mix *mix, double budget_ms, double *ns_a, double *ns_b)
{
	enum { NSAMPLE = 512 };
	struct sp_audit_fsview *fs[2] = { NULL, NULL };
	struct sp_audit_ref *ref[2] = { NULL, NULL };
	struct sp_audit_event **ev = NULL;
	struct sp_audit_decision d;
	double best[2] = { 0, 0 };
	size_t n = 0;
	int sides = b ? 2 : 1;

	*ns_a = 0;
	if (ns_b)
		*ns_b = 0;
	if (budget_ms < 0)
		return;
	if (budget_ms == 0)
		budget_ms = 20;
	if (bench_ref(a, &fs[0], &ref[0]) || (b && bench_ref(b, &fs[1], &ref[1])))
		goto out;
	ev = calloc(NSAMPLE, sizeof(*ev));
	if (!ev)
		goto out;
	/* systematic sample of the mix: event j takes the class at cumulative weight (j+.5)/N */
	uint64_t total = sp_audit_mix_total(mix);
	size_t ci = 0;
	double cum = 0;
	for (n = 0; n < NSAMPLE; n++) {
		int32_t nr = (int32_t)(n % 460);
		uint32_t arch = SP_AUDIT_ARCH_X86_64;
		int fail = 0;
		if (total) {
			double target = ((double)n + 0.5) * (double)total / NSAMPLE;
			while (ci + 1 < mix->n && cum + (double)mix->v[ci].calls <= target)
				cum += (double)mix->v[ci++].calls;
			nr = mix->v[ci].nr;
			arch = mix->v[ci].arch;
			fail = (target - cum) < (double)mix->v[ci].errors;
		}
		if (sp_audit_event_new(&ev[n]))
			goto out;
		sp_audit_event_set_syscall(ev[n], arch, nr);
		sp_audit_event_set_args(ev[n], 3, 0x7ffc0000, 0x80000, 0);
		sp_audit_event_set_return(ev[n], fail ? -2 : 0);
		sp_audit_event_set_pids(ev[n], 4242, 4242, 4000);
		sp_audit_event_set_uids(ev[n], 1000, 1000, 1000, 1000);
		sp_audit_event_set_gids(ev[n], 1000, 1000, 1000, 1000);
		sp_audit_event_set_loginuid(ev[n], 1000);
		sp_audit_event_set_sessionid(ev[n], 3);
	}
	/* alternate short rounds of both sides; the fastest round of each is the least disturbed */
	double start = now_ns();
	do {
		for (int s = 0; s < sides; s++) {
			double t0 = now_ns();
			for (size_t j = 0; j < n; j++)
				sp_audit_ref_filter(ref[s], ev[j], &d);
			double per = (now_ns() - t0) / (double)n;
			if (!best[s] || per < best[s])
				best[s] = per;
		}
	} while (now_ns() - start < budget_ms * 1e6);
	*ns_a = best[0];
	if (ns_b)
		*ns_b = best[1];
out:
	for (size_t j = 0; ev && j < NSAMPLE; j++)
		sp_audit_event_free(ev[j]);
	free(ev);
	for (int s = 0; s < 2; s++) {
		sp_audit_ref_free(ref[s]);
		sp_audit_fsview_free(fs[s]);
	}
}

/* ---- lints ---- */

static int lint_set(const struct tool_set *s, struct sp_audit_lint **v, size_t *n)
{
	char why[160];
	int err = 0;
	for (size_t i = 0; i < s->n && !err; i++) {
		const struct tool_rule *b = &s->v[i];
		if (tool_never_matches(b, why, sizeof(why))) {
			err = tool_lint_add(v, n, SP_AUDIT_LINT_NEVER_MATCHES, b->line, 0,
					    "rule can never match: %s", why);
			continue;
		}
		for (uint32_t j = 0; j < b->k.field_count && !err; j++) {
			const struct audit_kfield *f = &b->k.fields[j];
			const char *name = sp_audit_field_name(f->type);
			const char *op = audit_op_str(f->op < OP_BAD ? f->op : OP_EQ);
			if (!tool_field_always(f))
				continue;
			if (f->type == AF_EXIT || f->type == AF_SUCCESS)
				err = tool_lint_add(v, n, SP_AUDIT_LINT_NOOP_FIELD, b->line, 0,
						    "%s%s%d is always true when there is a return value "
						    "(compared as unsigned 32-bit; use success=): it only "
						    "excludes exit/exit_group", name ? name : "?",
						    op ? op : "?", (int32_t)f->val);
			else
				err = tool_lint_add(v, n, SP_AUDIT_LINT_NOOP_FIELD, b->line, 0,
						    "%s%s%u is always true (unsigned 32-bit compare)",
						    name ? name : "?", op ? op : "?", f->val);
		}
		if (i >= s->nexit)
			continue;
		for (size_t j = 0; j < i && !err; j++) {
			const struct tool_rule *a = &s->v[j];
			if (!tool_implies(b, a))
				continue;
			if (tool_implies(a, b) && tool_same_effect(a, b))
				err = tool_lint_add(v, n, SP_AUDIT_LINT_DUPLICATE, b->line, a->line,
						    "rule duplicates the rule of line %u", a->line);
			else
				err = tool_lint_add(v, n, SP_AUDIT_LINT_SHADOWED, b->line, a->line,
						    "rule is shadowed by the rule of line %u: it can "
						    "never decide an event", a->line);
			break;
		}
	}
	return err;
}

static int lint_cmp(const void *x, const void *y)
{
	const struct sp_audit_lint *a = x, *b = y;
	return a->line < b->line ? -1 : a->line > b->line;
}

/* ---- the report ---- */

static int sys_cmp(const void *x, const void *y)
{
	const struct sp_audit_cost_sys *a = x, *b = y;
	double wa = a->checks * (double)a->calls + a->rules * (double)a->calls;
	double wb = b->checks * (double)b->calls + b->rules * (double)b->calls;
	return wa > wb ? -1 : wa < wb;
}

static int rule_cmp(const void *x, const void *y)
{
	const struct sp_audit_cost_rule *a = x, *b = y;
	if (a->checks != b->checks)
		return a->checks > b->checks ? -1 : 1;
	return (a->line > b->line) - (a->line < b->line);
}

SP_API int sp_audit_cost_compute(const struct sp_audit_ruleset *rs, const struct sp_audit_tools_opts *o,
				 struct sp_audit_cost **out)
{
	struct sp_audit_fsview *fs = NULL;
	struct tool_set s;
	struct sp_audit_cost *c;
	const struct sp_audit_mix *mix = o ? o->mix : NULL;
	double *rr = NULL, *rc = NULL;
	int err;

	if (!rs || !out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = tool_fs_build(rs, NULL, &fs, NULL, NULL);
	if (!err)
		err = tool_set_load(&s, rs, fs, o ? o->machine : NULL);
	if (err) {
		sp_audit_fsview_free(fs);
		free(c);
		return err;
	}
	size_t nclass = mix && mix->n ? mix->n : 460;
	c->sys = calloc(nclass, sizeof(*c->sys));
	rr = calloc(s.n + 1, sizeof(double));
	rc = calloc(s.n + 1, sizeof(double));
	c->rules = calloc(s.n + 1, sizeof(*c->rules));
	if (!c->sys || !rr || !rc || !c->rules) {
		err = -ENOMEM;
		goto out;
	}
	double total = 0, R = 0, C = 0, H = 0;
	for (size_t i = 0; i < s.nexit; i++)
		c->hash_rules += s.v[i].hash != 0;
	for (size_t i = 0; i < nclass; i++) {
		struct sp_audit_cost_sys *cs = &c->sys[i];
		double r = 0, k = 0;
		if (mix && mix->n) {
			const struct sp_audit_mix_entry *e = &mix->v[i];
			cs->arch = e->arch;
			cs->nr = e->nr;
			cs->calls = e->calls;
			walk_cost(&s, e->arch, e->nr, 1, (double)(e->calls - e->errors), &r, &k, rr, rc);
			walk_cost(&s, e->arch, e->nr, 0, (double)e->errors, &r, &k, rr, rc);
			H += (double)e->calls * sp_audit_names_count(e->arch, e->nr) *
			     (double)c->hash_rules / 32;
		} else {
			cs->arch = SP_AUDIT_ARCH_X86_64;
			cs->nr = (int32_t)i;
			cs->calls = 1;
			walk_cost(&s, cs->arch, cs->nr, 1, 1, &r, &k, rr, rc);
		}
		total += (double)cs->calls;
		R += r;
		C += k;
		cs->rules = cs->calls ? r / (double)cs->calls : 0;
		cs->checks = cs->calls ? k / (double)cs->calls : 0;
	}
	c->nsys = nclass;
	c->calls = (uint64_t)total;
	c->rules_per_syscall = total ? R / total : 0;
	c->checks_per_syscall = total ? C / total : 0;
	c->hash_per_syscall = total ? H / total : 0;
	qsort(c->sys, c->nsys, sizeof(*c->sys), sys_cmp);
	for (size_t i = 0; i < s.nexit; i++) {
		c->rules[c->nrules].line = s.v[i].line;
		c->rules[c->nrules].rules = total ? rr[i] / total : 0;
		c->rules[c->nrules].checks = total ? rc[i] / total : 0;
		c->nrules++;
	}
	qsort(c->rules, c->nrules, sizeof(*c->rules), rule_cmp);
	c->exit_rules = s.nexit;
	/* lints: the rejected ones from loading, then the set's */
	for (size_t i = 0; i < s.nlints && !err; i++)
		err = tool_lint_add(&c->lints, &c->nlints, s.lints[i].kind, s.lints[i].line,
				    s.lints[i].other_line, "%s", s.lints[i].msg);
	if (!err)
		err = lint_set(&s, &c->lints, &c->nlints);
	if (c->nlints)
		qsort(c->lints, c->nlints, sizeof(*c->lints), lint_cmp);
	if (!err)
		tool_measure_pair(rs, NULL, mix, o ? o->time_budget_ms : 0, &c->ns_per_syscall, NULL);
out:
	free(rr);
	free(rc);
	tool_set_release(&s);
	sp_audit_fsview_free(fs);
	if (err) {
		sp_audit_cost_free(c);
		return err;
	}
	*out = c;
	return 0;
}

SP_API void sp_audit_cost_free(struct sp_audit_cost *c)
{
	if (!c)
		return;
	free(c->sys);
	free(c->rules);
	free(c->lints);
	free(c);
}
