/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tools_int.h - internals of the audit field tools (cost, optimize, equivalence, trace): the
 * loaded rule model shared by tool_*.c.
 *
 * A struct tool_set is a rule set as the kernel holds it after replaying a file's items in
 * order (ADD appends or prepends, DEL removes, -D flushes, rejected and duplicate ADDs are
 * dropped), split into the exit family (exit list and inode hash, in one global priority order:
 * highest priority first) and everything else (other lists, in list order).  Each rule keeps
 * its wire form (decoded, for printing) and its kernel form (struct audit_krule: class bits
 * expanded, auid=-1 turned into loginuid_set), which is what the analyses read.
 *
 * Invariants: every rule in a set was accepted by sp_audit_ref_add over tool_set.fs (or is a
 * generated hot `never` rule); the wire field i and the kernel field i describe the same field
 * (optimize permutes and widens both together; blob keeps the bytes the rule was loaded from).
 */
#ifndef SP_AUDIT_TOOLS_INT_H
#define SP_AUDIT_TOOLS_INT_H

#include <stdint.h>
#include <stddef.h>

#include "secpath/audit_tools.h"
#include "audit/filter/filter_int.h"

struct tool_rule {
	void *blob;			/* owned wire bytes */
	size_t len;
	uint32_t line;			/* source line */
	uint32_t list;			/* AFL_* */
	uint32_t action;		/* AA_* */
	int hash;			/* lives in the inode hash (path= or inode=) */
	int64_t prio;			/* exit/io_uring: insertion priority (higher first) */
	struct sp_audit_rule wire;	/* strings point into blob */
	struct audit_krule k;		/* kernel form */
};

struct tool_set {
	struct tool_rule *v;		/* exit family first (priority order), then the others */
	size_t n, cap;
	size_t nexit;			/* v[0..nexit) is the exit family */
	int64_t prio_app, prio_pre;	/* the kernel's shared exit/io_uring priority counters */
	char **ctrl_pre, **ctrl_post;	/* control lines before / after the rules */
	size_t npre, npost;
	struct sp_audit_fsview *fs;	/* identities of every path the rules name */
	struct sp_audit_lint *lints;	/* rejected rules */
	size_t nlints;
	char machine[32];
};

/* The synthetic file system: every watch/dir/exe path of rs (and of rs2 if non-NULL) with its
 * ancestors as directories and one child per directory.  0 or -ENOMEM. */
int tool_fs_build(const struct sp_audit_ruleset *rs, const struct sp_audit_ruleset *rs2,
		  struct sp_audit_fsview **out, char ***paths, size_t *npaths);
void tool_paths_free(char **paths, size_t n);

/* Replay rs into s over fs (borrowed; NULL = build one from rs).  0, -ENOMEM. */
int tool_set_load(struct tool_set *s, const struct sp_audit_ruleset *rs, struct sp_audit_fsview *fs,
		  const char *machine);
void tool_set_release(struct tool_set *s);
/* Load a rule into r from a blob (copies it).  0 or -errno. */
int tool_rule_init(struct tool_rule *r, const void *blob, size_t len, uint32_t line,
		   const struct sp_audit_fsview *fs);
void tool_rule_release(struct tool_rule *r);
/* The rules file of s (exit family in order, all -a, control lines kept).  malloc'd text. */
/* The source a set was loaded from, for tool_set_format to carry unchanged lines over. */
struct tool_source {
	const char *text;		/* NULL: none */
	size_t len;
	const struct sp_audit_ruleset *rs;
	const struct sp_audit_parse_opts *parse; /* how rs was parsed */
};
int tool_set_format(const struct tool_set *s, const struct tool_source *src, char **text,
		    size_t *len);
/* Lint add helper.  0 or -ENOMEM. */
int tool_lint_add(struct sp_audit_lint **v, size_t *n, enum sp_audit_lint_kind kind, uint32_t line,
		  uint32_t other, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* ---- symbolic facts over the kernel form ---- */

/* Allowed values of one scalar event variable: a union of at most two closed intervals. */
struct tool_iv {
	uint8_t n;			/* 0 = empty */
	uint32_t lo[2], hi[2];
};

/* Scalar variable index of a kernel field, or -1 (names, LSM, bit operators, groups...). */
int tool_scalar_var(const struct audit_kfield *f);
#define TOOL_NVARS 24
/* Every event matching rule a also matches rule b (sound, incomplete). */
int tool_implies(const struct tool_rule *a, const struct tool_rule *b);
/* No event with a syscall in `only` (64 words; NULL = any) matches both rules (sound). */
int tool_disjoint(const struct tool_rule *a, const struct tool_rule *b, const uint32_t *only);
/* Same decision when either matches: action and key. */
int tool_same_effect(const struct tool_rule *a, const struct tool_rule *b);
/* A scalar comparison true for every value of its variable (exit>=0, auid<=4294967295). */
int tool_field_always(const struct audit_kfield *f);
/* Rule can never match (empty interval, empty mask).  Writes the reason. */
int tool_never_matches(const struct tool_rule *r, char *why, size_t len);
/* All non-mask parts equal (fields in order, action, list, key). */
int tool_same_body(const struct tool_rule *a, const struct tool_rule *b);
/* The same, fields in any order. */
int tool_same_body_unordered(const struct tool_rule *a, const struct tool_rule *b);

/* ---- cost model ---- */

enum { T_FALSE = 0, T_TRUE = 1, T_UNKNOWN = 2 };
/* What a field evaluates to for every event of the class (arch, nr, success). */
int tool_field_truth(const struct audit_kfield *f, uint32_t arch, int32_t nr, int success);

/* Expected rules/checks per syscall of s under the mix (NULL mix: every x86_64 syscall once). */
void tool_mix_cost(const struct tool_set *s, const struct sp_audit_mix *mix, double *rules,
		   double *checks);
/* Measured ns per syscall event of the reference engine loaded with a (and b, may be NULL)
 * under the mix: alternating rounds, the fastest round of each side (0 when budget_ms < 0). */
void tool_measure_pair(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
		       const struct sp_audit_mix *mix, double budget_ms, double *ns_a, double *ns_b);

/* The differential check behind sp_audit_equiv_check (relaxed: exit verdicts "no match" and
 * "never" are not told apart).  1 equal, 0 different, -errno. */
int tool_equiv(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
	       const struct sp_audit_tools_opts *o, int relaxed, size_t *tested, char *witness,
	       size_t wlen);

#endif
