/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * optimize.c - a cheaper rule file with the same kernel decisions.
 *
 * Transformations on the exit family (exit list + inode hash, in global priority order), each
 * justified by a symbolic fact of tools/rules.c before it is applied:
 *  1. drop a rule that can never match (contradictory scalar comparisons, empty mask);
 *  2. drop a rule B when an earlier rule A matches every event B matches (A decides first:
 *     on the exit list by order, across the inode hash by priority), duplicates included;
 *  3. merge B into an earlier A with the same body (list, action, fields, key) and another
 *     syscall set, when every rule between them either has B's effect (action and key) or can
 *     match no event of B's extra syscalls that B matches: moving those syscalls up past it
 *     changes no decision;
 *  4. reorder fields inside a rule (arch first, then success/exit, then other scalars, names
 *     last): fields are pure conjuncts, only the cost of the walk changes;
 *  5. move a rule that surely matches hot syscalls (every field true for the class) ahead of
 *     rules it is disjoint from or shares action and key with: the walk ends earlier;
 *  6. optionally (SP_AUDIT_TOOLS_HOT_NEVER) prepend one `never` rule per arch for the hot
 *     syscalls of the mix that no rule of the set can match.
 * Other lists keep their rules and order; a set with io_uring rules is left as loaded (their
 * priorities interleave with the exit list's).  The text is then parsed back and checked twice:
 * symbolically, projected onto every (arch, syscall) (symbolic_check below), and differentially
 * through the reference engine (tool_equiv); ->equivalent says whether both held.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit/tools/tools_int.h"

static void remove_at(struct tool_set *s, size_t at)
{
	tool_rule_release(&s->v[at]);
	memmove(&s->v[at], &s->v[at + 1], (s->n - at - 1) * sizeof(*s->v));
	s->n--;
	if (at < s->nexit)
		s->nexit--;
}

static void drop_dead(struct tool_set *s, struct sp_audit_optimize_result *res)
{
	char why[160];
	for (size_t i = 0; i < s->nexit;) {
		int drop = tool_never_matches(&s->v[i], why, sizeof(why));
		int dup = 0;
		for (size_t j = 0; j < i && !drop; j++) {
			if (tool_implies(&s->v[i], &s->v[j])) {
				drop = 1;
				dup = tool_implies(&s->v[j], &s->v[i]);
			}
		}
		if (!drop) {
			i++;
			continue;
		}
		if (dup)
			res->dropped_dup++;
		else
			res->dropped_shadow++;
		remove_at(s, i);
	}
}

static void merge(struct tool_set *s, struct sp_audit_optimize_result *res)
{
	for (size_t i = 1; i < s->nexit;) {
		struct tool_rule *b = &s->v[i];
		int merged = 0;
		for (size_t j = i; j-- > 0;) {
			struct tool_rule *a = &s->v[j];
			uint32_t extra[ARD_MASK_WORDS];
			if (!tool_same_body(a, b))
				continue;
			for (int w = 0; w < ARD_MASK_WORDS; w++)
				extra[w] = b->k.mask[w] & ~a->k.mask[w];
			int ok = 1;
			for (size_t k = j + 1; k < i && ok; k++)
				ok = tool_same_effect(&s->v[k], b) || tool_disjoint(&s->v[k], b, extra);
			if (ok) {
				for (int w = 0; w < ARD_MASK_WORDS; w++) {
					a->k.mask[w] |= b->k.mask[w];
					a->wire.mask[w] |= b->wire.mask[w];
				}
				merged = 1;
			}
			break;	/* a farther A would have to pass the same rules */
		}
		if (merged) {
			res->merged++;
			remove_at(s, i);
		} else {
			i++;
		}
	}
}

static int field_rank(const struct audit_kfield *f)
{
	switch (f->type) {
	case AF_ARCH: return 0;
	case AF_SUCCESS: case AF_EXIT: return 1;
	case AF_PERM: return 4;	/* ranked with the name fields (docs/DESIGN.md) */
	case AF_FILTERKEY: return 9;
	default: return tool_scalar_var(f) >= 0 ? 3 : 4;
	}
}

/* Field checks of rule r alone over the mix (every x86_64 syscall once without one). */
static double rule_checks(const struct tool_rule *r, const struct sp_audit_mix *mix)
{
	double c = 0;
	size_t n = mix && sp_audit_mix_count(mix) ? sp_audit_mix_count(mix) : 460;
	for (size_t i = 0; i < n; i++) {
		struct sp_audit_mix_entry e = { SP_AUDIT_ARCH_X86_64, (int32_t)i, 1, 0 };
		if (mix && sp_audit_mix_count(mix))
			sp_audit_mix_entry(mix, i, &e);
		if (e.nr >= ARD_MASK_WORDS * 32 || !(r->k.mask[e.nr / 32] >> (e.nr % 32) & 1))
			continue;
		for (int ok = 0; ok < 2; ok++) {
			double w = (double)(ok ? e.calls - e.errors : e.errors);
			for (uint32_t j = 0; j < r->k.field_count && w > 0; j++) {
				c += w;
				if (tool_field_truth(&r->k.fields[j], e.arch, e.nr, ok) == T_FALSE)
					break;
			}
		}
	}
	return c;
}

static void permute(struct tool_rule *r, const uint32_t *order)
{
	struct audit_kfield kf[ARD_MAX_FIELDS];
	struct sp_audit_field wf[ARD_MAX_FIELDS];
	for (uint32_t a = 0; a < r->k.field_count; a++) {
		kf[a] = r->k.fields[order[a]];
		wf[a] = r->wire.fields[order[a]];
	}
	memcpy(r->k.fields, kf, r->k.field_count * sizeof(*kf));
	memcpy(r->wire.fields, wf, r->k.field_count * sizeof(*wf));
	/* the inode= field index moves with the fields */
	if (r->k.inode_f >= 0)
		for (uint32_t a = 0; a < r->k.field_count; a++)
			if (r->k.fields[a].type == AF_INODE && r->k.fields[a].op == OP_EQ)
				r->k.inode_f = (int)a;
}

/* Fields are pure conjuncts: any order decides the same.  Take the ranked order (decisive,
 * cheap fields first) only where the cost model says it saves field checks. */
static void reorder_fields(struct tool_set *s, const struct sp_audit_mix *mix,
			   struct sp_audit_optimize_result *res)
{
	for (size_t i = 0; i < s->nexit; i++) {
		struct tool_rule *r = &s->v[i];
		uint32_t order[ARD_MAX_FIELDS], back[ARD_MAX_FIELDS];
		int changed = 0;
		if (r->hash)	/* walked per name only; the model does not price it */
			continue;
		for (uint32_t a = 0; a < r->k.field_count; a++)
			order[a] = a;
		for (uint32_t a = 1; a < r->k.field_count; a++) {	/* stable insertion sort */
			uint32_t x = order[a], b = a;
			while (b > 0 && field_rank(&r->k.fields[order[b - 1]]) > field_rank(&r->k.fields[x])) {
				order[b] = order[b - 1];
				b--;
			}
			order[b] = x;
			changed |= b != a;
		}
		if (!changed)
			continue;
		double before = rule_checks(r, mix);
		permute(r, order);
		if (rule_checks(r, mix) < before) {
			res->reordered++;
			continue;
		}
		for (uint32_t a = 0; a < r->k.field_count; a++)
			back[order[a]] = a;
		permute(r, back);
	}
}

/* Could rule r match some event of syscall (arch, nr)?  (sound: 1 when unsure) */
static int rule_may_match(const struct tool_rule *r, uint32_t arch, int32_t nr)
{
	if (nr < 0 || nr >= ARD_MASK_WORDS * 32 || !(r->k.mask[nr / 32] >> (nr % 32) & 1))
		return 0;
	for (uint32_t j = 0; j < r->k.field_count; j++) {
		const struct audit_kfield *f = &r->k.fields[j];
		if (tool_field_truth(f, arch, nr, 1) == T_FALSE &&
		    tool_field_truth(f, arch, nr, 0) == T_FALSE)
			return 0;	/* arch, perm by syscall class, ... */
	}
	return 1;
}

/* Could any exit-family rule of s match a syscall (arch, nr)?  Watches (-w FILE -p wa) only
 * match the syscalls of their perm classes; -S all rules without such a field match anything. */
static int may_match(const struct tool_set *s, uint32_t arch, int32_t nr)
{
	for (size_t i = 0; i < s->nexit; i++)
		if (rule_may_match(&s->v[i], arch, nr))
			return 1;
	return 0;
}

/* Weighted calls of the mix a rule surely matches (every field true): where it ends the walk. */
static double rule_gain(const struct tool_rule *r, const struct sp_audit_mix *mix)
{
	double g = 0;
	for (size_t i = 0; mix && i < sp_audit_mix_count(mix); i++) {
		struct sp_audit_mix_entry e;
		sp_audit_mix_entry(mix, i, &e);
		if (e.nr >= ARD_MASK_WORDS * 32 || !(r->k.mask[e.nr / 32] >> (e.nr % 32) & 1))
			continue;
		for (int ok = 0; ok < 2; ok++) {
			int all = 1;
			for (uint32_t j = 0; j < r->k.field_count && all; j++)
				all = tool_field_truth(&r->k.fields[j], e.arch, e.nr, ok) == T_TRUE;
			if (all)
				g += (double)(ok ? e.calls - e.errors : e.errors);
		}
	}
	return g;
}

/* Move rules that surely match hot syscalls ahead of rules no event can tell them apart from
 * (disjoint, or the same action and key): the walk then ends earlier.  Exit-list rules only. */
static void reorder_rules(struct tool_set *s, const struct sp_audit_mix *mix,
			  struct sp_audit_optimize_result *res)
{
	if (!mix)
		return;
	for (size_t i = 1; i < s->nexit; i++) {
		size_t j = i;
		double g = rule_gain(&s->v[i], mix);
		if (g <= 0 || s->v[i].hash)
			continue;
		while (j > 0 && !s->v[j - 1].hash && rule_gain(&s->v[j - 1], mix) < g &&
		       (tool_disjoint(&s->v[j - 1], &s->v[j], NULL) ||
			tool_same_effect(&s->v[j - 1], &s->v[j]))) {
			struct tool_rule t = s->v[j - 1];
			s->v[j - 1] = s->v[j];
			s->v[j] = t;
			j--;
		}
		res->moved += j != i;
	}
}

static int hot_never(struct tool_set *s, const struct sp_audit_mix *mix, const char *machine,
		     struct sp_audit_optimize_result *res)
{
	uint64_t total = sp_audit_mix_total(mix);
	static const uint32_t arches[2] = { SP_AUDIT_ARCH_X86_64, SP_AUDIT_ARCH_I386 };
	int err = 0;
	if (!s->nexit)	/* a first exit rule would switch every task from a dummy context */
		return 0;
	for (int ai = 1; ai >= 0 && !err; ai--) {
		char text[4096];
		int n = snprintf(text, sizeof(text), "-a never,exit -F arch=%s -S ", ai ? "b32" : "b64");
		int count = 0;
		for (size_t i = 0; i < sp_audit_mix_count(mix); i++) {
			struct sp_audit_mix_entry e;
			sp_audit_mix_entry(mix, i, &e);
			if (e.arch != arches[ai] || e.nr >= ARD_MASK_WORDS * 32 || e.calls * 100 < total)
				continue;
			if (may_match(s, e.arch, e.nr))
				continue;
			const char *name = sp_audit_syscall_name(ai ? "i386" : "x86_64", e.nr);
			if (!name || n + 64 > (int)sizeof(text))
				continue;
			n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%s", count ? "," : "", name);
			count++;
		}
		if (!count)
			continue;
		struct sp_audit_parse_opts po = { .sz = sizeof(po), .machine = machine };
		struct sp_audit_ruleset *rs = NULL;
		struct sp_audit_item it;
		struct tool_rule r;
		err = sp_audit_ruleset_parse(text, (size_t)n, "hot-never", &po, &rs, NULL);
		if (!err && sp_audit_ruleset_count(rs) == 1 && !sp_audit_ruleset_item(rs, 0, &it) &&
		    it.kind == SP_AUDIT_ITEM_ADD && !tool_rule_init(&r, it.blob, it.blob_len, 0, s->fs)) {
			if (s->n == s->cap) {
				struct tool_rule *nv = realloc(s->v, (s->cap * 2 + 8) * sizeof(*nv));
				if (!nv) {
					tool_rule_release(&r);
					sp_audit_ruleset_free(rs);
					return -ENOMEM;
				}
				s->v = nv;
				s->cap = s->cap * 2 + 8;
			}
			double r0, c0, r1, c1;
			tool_mix_cost(s, mix, &r0, &c0);
			memmove(&s->v[1], &s->v[0], s->n * sizeof(*s->v));
			s->v[0] = r;
			s->n++;
			s->nexit++;
			tool_mix_cost(s, mix, &r1, &c1);
			if (r1 + c1 < r0 + c0) {
				res->never_added++;
			} else {	/* not worth its own walk step */
				tool_rule_release(&s->v[0]);
				memmove(&s->v[0], &s->v[1], (s->n - 1) * sizeof(*s->v));
				s->n--;
				s->nexit--;
			}
		}
		sp_audit_ruleset_free(rs);
	}
	return err;
}

/* ---- the symbolic check ----
 *
 * Project both sets onto every (arch, syscall): the exit-family rules whose mask holds the
 * syscall and whose arch fields accept the arch, in priority order.  The original's projection
 * loses its dead rules (never matching, or implied by an earlier rule: tool_implies) and rules
 * with the same body as an earlier rule of the projection (identical conditions there).  Then
 * the optimized projection must be the same rules (by body, fields in any order) in an order
 * where every inverted pair is disjoint on that syscall or has the same action and key; with
 * hot never rules, an extra `never` rule is allowed where no original rule can match.  Syscalls
 * with the same projections are checked once.
 */
struct proj {
	const struct tool_set *s;
	const uint8_t *dead;
	size_t words;
};

static int proj_allowed(const struct tool_rule *r, uint32_t arch, int32_t nr)
{
	if (!(r->k.mask[nr / 32] >> (nr % 32) & 1))
		return 0;
	for (uint32_t j = 0; j < r->k.field_count; j++)
		if (r->k.fields[j].type == AF_ARCH &&
		    !audit_comparator(arch, r->k.fields[j].op, r->k.fields[j].val))
			return 0;
	return 1;
}

static int check_projection(const struct tool_set *o, const uint8_t *dead, const struct tool_set *p,
			    uint32_t arch, int32_t nr, int hot, char *why, size_t len)
{
	size_t *oi = malloc((o->nexit + 1) * sizeof(*oi)), *pi = malloc((p->nexit + 1) * sizeof(*pi));
	size_t *match = malloc((p->nexit + 1) * sizeof(*match));
	uint8_t *used = calloc(o->nexit + 1, 1);
	size_t no = 0, np = 0;
	int ok = 0;
	uint32_t only[ARD_MASK_WORDS] = { 0 };
	const char *an = sp_audit_arch_name(arch);

	only[nr / 32] = 1u << (nr % 32);
	if (!oi || !pi || !match || !used) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < o->nexit; i++) {
		if (dead[i] || !proj_allowed(&o->v[i], arch, nr))
			continue;
		int dup = 0;
		for (size_t k = 0; k < no && !dup; k++)
			dup = tool_same_body_unordered(&o->v[oi[k]], &o->v[i]);
		if (!dup)
			oi[no++] = i;
	}
	for (size_t i = 0; i < p->nexit; i++)
		if (proj_allowed(&p->v[i], arch, nr))
			pi[np++] = i;
	for (size_t k = 0; k < np; k++) {
		const struct tool_rule *r = &p->v[pi[k]];
		match[k] = SIZE_MAX;
		for (size_t m = 0; m < no && match[k] == SIZE_MAX; m++)
			if (!used[m] && tool_same_body_unordered(&o->v[oi[m]], r)) {
				used[m] = 1;
				match[k] = m;
			}
		if (match[k] != SIZE_MAX)
			continue;
		int may = 0;
		for (size_t m = 0; m < no && !may; m++)
			may = rule_may_match(&o->v[oi[m]], arch, nr);
		if (!hot || r->action != AA_NEVER || may) {
			snprintf(why, len, "the rule of line %u has no counterpart for %s syscall %d",
				 r->line, an ? an : "?", nr);
			goto out;
		}
	}
	for (size_t m = 0; m < no; m++)
		if (!used[m]) {
			snprintf(why, len, "the rule of line %u is lost for %s syscall %d",
				 o->v[oi[m]].line, an ? an : "?", nr);
			goto out;
		}
	for (size_t a = 0; a < np; a++)
		for (size_t b = a + 1; b < np; b++) {
			if (match[a] == SIZE_MAX || match[b] == SIZE_MAX || match[a] < match[b])
				continue;
			const struct tool_rule *x = &o->v[oi[match[a]]], *y = &o->v[oi[match[b]]];
			if (!tool_same_effect(x, y) && !tool_disjoint(x, y, only)) {
				snprintf(why, len, "the rules of lines %u and %u overlap on %s syscall %d "
					 "and were swapped", y->line, x->line, an ? an : "?", nr);
				goto out;
			}
		}
	ok = 1;
out:
	free(oi);
	free(pi);
	free(match);
	free(used);
	return ok;
}

/* 1 proved, 0 not (why written), -ENOMEM. */
static int symbolic_check(const struct tool_set *o, const struct tool_set *p, int hot, char *why,
			  size_t len)
{
	uint32_t arches[16] = { SP_AUDIT_ARCH_X86_64, SP_AUDIT_ARCH_I386, 0x7fff0000u };
	size_t narch = 3, nsig = 0, capsig = 0, words = (o->nexit + p->nexit + 63) / 64 + 1;
	uint8_t *dead = calloc(o->nexit + 1, 1);
	uint64_t *sigs = NULL, *cur = calloc(words, sizeof(uint64_t));
	char tmp[160];
	int result = 1;

	if (!dead || !cur) {
		free(dead);
		free(cur);
		return -ENOMEM;
	}
	for (int t = 0; t < 2; t++) {
		const struct tool_set *s = t ? p : o;
		for (size_t i = 0; i < s->nexit; i++)
			for (uint32_t j = 0; j < s->v[i].k.field_count; j++) {
				uint32_t v = s->v[i].k.fields[j].val;
				int have = 0;
				if (s->v[i].k.fields[j].type != AF_ARCH)
					continue;
				for (size_t k = 0; k < narch; k++)
					have |= arches[k] == v;
				if (!have && narch < SP_ARRAY_SIZE(arches))
					arches[narch++] = v;
			}
	}
	for (size_t i = 0; i < o->nexit; i++) {
		dead[i] = (uint8_t)tool_never_matches(&o->v[i], tmp, sizeof(tmp));
		for (size_t j = 0; j < i && !dead[i]; j++)
			dead[i] = (uint8_t)tool_implies(&o->v[i], &o->v[j]);
	}
	for (size_t a = 0; a < narch && result == 1; a++)
		for (int32_t nr = 0; nr < ARD_MASK_WORDS * 32 && result == 1; nr++) {
			/* the signature: which rules of either set the projection holds */
			memset(cur, 0, words * sizeof(uint64_t));
			int any = 0;
			for (size_t i = 0; i < o->nexit; i++)
				if (proj_allowed(&o->v[i], arches[a], nr)) {
					cur[i / 64] |= 1ull << (i % 64);
					any = 1;
				}
			for (size_t i = 0; i < p->nexit; i++)
				if (proj_allowed(&p->v[i], arches[a], nr)) {
					size_t b = o->nexit + i;
					cur[b / 64] |= 1ull << (b % 64);
					any = 1;
				}
			if (!any && !hot)
				continue;
			int seen = 0;
			for (size_t k = 0; k < nsig && !seen; k++)
				seen = !memcmp(&sigs[k * words], cur, words * sizeof(uint64_t));
			/* hot never rules depend on the syscall itself: no sharing then */
			if (seen && !hot)
				continue;
			if (!hot) {
				if (nsig == capsig) {
					size_t nc = capsig ? capsig * 2 : 64;
					uint64_t *ns = realloc(sigs, nc * words * sizeof(uint64_t));
					if (!ns) {
						result = -ENOMEM;
						break;
					}
					sigs = ns;
					capsig = nc;
				}
				memcpy(&sigs[nsig++ * words], cur, words * sizeof(uint64_t));
			}
			if (!check_projection(o, dead, p, arches[a], nr, hot, why, len))
				result = 0;
		}
	free(sigs);
	free(cur);
	free(dead);
	return result;
}

SP_API int sp_audit_optimize(const struct sp_audit_ruleset *rs, const struct sp_audit_tools_opts *o,
			     struct sp_audit_optimize_result **out)
{
	struct sp_audit_optimize_result *res;
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ruleset *outrs = NULL;
	struct tool_set s, s2;
	const char *machine = o && o->machine ? o->machine : "x86_64";
	const struct sp_audit_mix *mix = o ? o->mix : NULL;
	struct sp_diags d;
	int err, has_uring = 0;

	if (!rs || !out)
		return -EINVAL;
	res = calloc(1, sizeof(*res));
	if (!res)
		return -ENOMEM;
	memset(&s2, 0, sizeof(s2));
	sp_diags_init(&d, NULL);
	err = tool_fs_build(rs, NULL, &fs, NULL, NULL);
	if (!err)
		err = tool_set_load(&s, rs, fs, machine);
	if (err)
		goto fail_fs;
	res->rules_before = s.nexit;
	tool_mix_cost(&s, mix, &res->rules_walk_before, &res->checks_before);
	for (size_t i = 0; i < s.n; i++)
		has_uring |= s.v[i].list == AL_URING;
	if (!has_uring) {
		drop_dead(&s, res);
		merge(&s, res);
		if (!(o && (o->flags & SP_AUDIT_TOOLS_KEEP_FIELDS)))
			reorder_fields(&s, mix, res);
		reorder_rules(&s, mix, res);
		if (o && (o->flags & SP_AUDIT_TOOLS_HOT_NEVER) && mix)
			err = hot_never(&s, mix, machine, res);
	}
	struct sp_audit_parse_opts pb = { .sz = sizeof(pb), .machine = machine };
	if (SP_OPTS_HAS(o, parse) && o->parse) {
		pb = *o->parse;
		pb.sz = sizeof(pb);
		pb.machine = machine;
		pb.flags = 0;
	}
	struct tool_source src = { .rs = rs, .parse = &pb };
	if (SP_OPTS_HAS(o, source_len) && o->source) {
		src.text = o->source;
		src.len = o->source_len;
	}
	if (!err)
		err = tool_set_format(&s, &src, &res->text, &res->text_len);
	tool_set_release(&s);
	if (err)
		goto fail_fs;

	/* the text is the product: parse it back and check it */
	err = sp_audit_ruleset_parse(res->text, res->text_len, "optimized", &pb, &outrs, &d);
	if (err)
		goto fail_fs;
	if (d.nerrors) {
		char line[512];
		sp_diag_format(&d.v[0], NULL, line, sizeof(line));
		snprintf(res->witness, sizeof(res->witness), "the optimized text does not parse: %s", line);
		res->equivalent = 0;
	} else {
		int rc = tool_equiv(rs, outrs, o, o && (o->flags & SP_AUDIT_TOOLS_HOT_NEVER),
				    &res->events_tested, res->witness, sizeof(res->witness));
		if (rc < 0) {
			err = rc;
			goto fail_fs;
		}
		res->equivalent = rc;
	}
	err = tool_set_load(&s2, outrs, fs, machine);
	if (err)
		goto fail_fs;
	if (!has_uring && res->equivalent) {
		struct tool_set so;
		char why[512];
		err = tool_set_load(&so, rs, fs, machine);
		if (err) {
			tool_set_release(&s2);
			goto fail_fs;
		}
		int rc = symbolic_check(&so, &s2, o && (o->flags & SP_AUDIT_TOOLS_HOT_NEVER), why,
					sizeof(why));
		tool_set_release(&so);
		if (rc < 0) {
			tool_set_release(&s2);
			err = rc;
			goto fail_fs;
		}
		res->symbolic = rc;
		if (!rc) {
			res->equivalent = 0;
			snprintf(res->witness, sizeof(res->witness), "symbolic check: %s", why);
		}
	}
	res->rules_after = s2.nexit;
	tool_mix_cost(&s2, mix, &res->rules_walk_after, &res->checks_after);
	tool_set_release(&s2);
	double budget = o ? o->time_budget_ms : 0;
	tool_measure_pair(rs, outrs, mix, budget, &res->ns_before, &res->ns_after);
	sp_audit_ruleset_free(outrs);
	sp_audit_fsview_free(fs);
	sp_diags_release(&d);
	*out = res;
	return 0;
fail_fs:
	sp_audit_ruleset_free(outrs);
	sp_audit_fsview_free(fs);
	sp_diags_release(&d);
	sp_audit_optimize_result_free(res);
	return err;
}

SP_API void sp_audit_optimize_result_free(struct sp_audit_optimize_result *r)
{
	if (!r)
		return;
	free(r->text);
	free(r);
}
