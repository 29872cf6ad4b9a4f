/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fuzz_policy.c - libFuzzer target for the binary policy reader: any byte string must be
 * rejected with a positioned diagnostic or accepted into a policy on which lookups, decisions
 * (incl. xperms), boolean changes, iteration and seinfo's counts and listings (every component,
 * expanded) are safe, every iterated entry is found again by a keyed search, and a range text
 * (sesearch -D's) that parses formats back to one that parses to the same levels, and policy diff
 * of the policy against itself (another layout) succeeds.  An input in xz format is decompressed
 * first (its errors positioned too).  The layout is chosen by the input length so all three
 * table builders see fuzzed input.  Corpus: the tiny fixtures (every format revision), tiny.33.xz.
 */
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "secpath/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct visit {
	const struct sp_policy *p;
	int cond;
	size_t n;
};

/* every entry a table iterates is found again by a keyed search of its own kind */
/* every listed item has a name and a statement (the statement's bytes are touched) */
static int touch_item(void *ud, const char *name, uint32_t value, const char *stmt)
{
	(void)value;
	*(size_t *)ud += strlen(name) + strlen(stmt);
	return 0;
}

static int count_entry(void *ud, const struct sp_avtab_entry *e)
{
	struct visit *v = ud;
	uint32_t data;
	v->n += e->source != 0;
	if (!sp_policy_avtab_search(v->p, v->cond, e->source, e->target, e->tclass,
				    e->specified & (uint16_t)~SP_AVTAB_ENABLED, &data))
		__builtin_trap();
	return 0;
}

/* A sensitivity or category name the range syntax can carry (no separator, not empty). */
static int plain_name(void *ud, const char *name, uint32_t value, const char *stmt)
{
	(void)value, (void)stmt;
	if (!*name || name[strcspn(name, "-:,. \t\n\r\v\f?")])
		*(int *)ud = 0;
	return 0;
}

/* A range text parsed, when taken, formats back to a text that parses to the same levels:
 * on policies whose names are plain and whose values all have a name (the formatter writes
 * "?" for one without). */
static void range_round_trip(const struct sp_policy *p, const char *text, int plain)
{
	uint32_t a[256], b[256];
	char why[256], back[1024];
	size_t at = 0;
	int n = sp_policy_range_parse_at(p, text, a, 256, why, sizeof(why), &at);
	if (n == -EINVAL && at > strlen(text))
		__builtin_trap();	/* an error's position lies in the text */
	if (n <= 0 || n > 256)
		return;
	const uint32_t *high = a + 2 + a[1];
	if (sp_policy_range_format(p, a, high, back, sizeof(back)) >= (int)sizeof(back) || !plain ||
	    strchr(back, '?'))
		return;
	if (sp_policy_range_parse(p, back, b, 256, why, sizeof(why)) != n ||
	    memcmp(a, b, (size_t)n * sizeof(*a)))
		__builtin_trap();
}

/* sesearch -D's range texts: fixed ones, and the input's last bytes as one */
static void range_texts(const struct sp_policy *p, const uint8_t *data, size_t size)
{
	static const char *const fixed[] = { "s0", "s0 - s1:c0.c3", "s1:c2.c0,c4 - s0", "s0:c0.c1.c2",
					     "s0:", "-", "s0-s0-s0", " s1 : c1 , c2 " };
	int plain = 1;
	sp_policy_component_foreach(p, SP_COMP_SENSITIVITIES, 0, plain_name, &plain);
	sp_policy_component_foreach(p, SP_COMP_CATEGORIES, 0, plain_name, &plain);
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		range_round_trip(p, fixed[i], plain);
	char tail[49];
	size_t k = size < 48 ? size : 48;
	memcpy(tail, data + size - k, k);
	tail[k] = 0;
	range_round_trip(p, tail, plain);
}

/* policy diff of the policy against itself read in another layout: every section written,
 * both ways, without an error but memory. */
static void diff_self(const struct sp_policy *p, const uint8_t *data, size_t size)
{
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = (enum sp_avtab_layout)((size + 1) % 3) };
	struct sp_policy *q = NULL;
	FILE *out = fopen("/dev/null", "w");
	if (!out)
		return;
	if (!sp_policy_read(data, size, &o, &q)) {
		uint64_t all = (1ull << sp_policy_diff_section_count()) - 1;
		int rc = sp_policy_diff_write(p, q, all, out);
		if (!rc)
			rc = sp_policy_diff_write(q, p, 0, out);
		if (rc && rc != -ENOMEM)
			__builtin_trap();
		sp_policy_free(q);
	}
	fclose(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = (enum sp_avtab_layout)(size % 3),
				    .diags = &d, .file = "fuzz" };
	struct sp_policy *p = NULL;
	int rc = sp_policy_read(data, size, &o, &p);
	if (rc) {
		if (!d.n && rc != -ENOMEM)
			__builtin_trap();	/* every rejection names a section and offset */
		sp_diags_release(&d);
		return 0;
	}
	sp_diags_release(&d);
	uint32_t nt = sp_policy_type_count(p), nc = sp_policy_class_count(p);
	struct sp_av_decision a, b;
	for (uint32_t s = 1; s <= nt && s <= 16; s++)
		for (uint32_t t = 1; t <= nt && t <= 16; t++) {
			uint32_t c = 1 + (s * 7 + t) % nc, out;
			sp_policy_compute_av(p, s, t, c, &a);
			sp_policy_compute_av_ref(p, s, t, c, &b);
			if (a.allowed != b.allowed || a.auditdeny != b.auditdeny ||
			    a.auditallow != b.auditallow)
				__builtin_trap();
			sp_policy_compute_type(p, s, t, c, SP_AVTAB_TRANSITION, "x", &out);
			struct sp_xperms_decision x;
			sp_policy_compute_xperms(p, s, t, c, (uint8_t)(s * 16 + t), &x);
		}
	struct visit v = { p, 0, 0 };
	sp_policy_avtab_foreach(p, 0, count_entry, &v);
	v.cond = 1;
	sp_policy_avtab_foreach(p, 1, count_entry, &v);
	if (sp_policy_bool_count(p))
		sp_policy_bool_set(p, 1, !sp_policy_bool_get(p, 1));
	char buf[256];
	uint32_t bv[8];
	for (uint32_t i = 1; i <= 4; i++) {
		sp_policy_cond_format(p, i, buf, sizeof(buf));
		sp_policy_cond_bools(p, i, bv, 8);
	}
	range_texts(p, data, size);
	diff_self(p, data, size);
	struct sp_policy_counts n = { .sz = sizeof(n) };
	sp_policy_get_counts(p, &n);
	size_t bytes = 0;
	for (unsigned c = 0; c < SP_COMP_N; c++)
		sp_policy_component_foreach(p, (enum sp_policy_component)c, 1, touch_item, &bytes);
	sp_policy_free(p);
	return 0;
}
