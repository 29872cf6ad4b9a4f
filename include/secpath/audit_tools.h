/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_tools.h - audit in the field: what a rule set costs the kernel, a cheaper equivalent
 * rule set, and the records a rule set would produce for a real command (ptrace).
 *
 *  - sp_audit_mix: a syscall-frequency profile ((arch, syscall) -> calls, errors), from the
 *    bundled strace -c tables (data/syscall-mix/NAME.tsv) or a recorded event stream.
 *  - sp_audit_cost: the kernel's linear walk (exit list, audit_in_mask then the fields in
 *    order, first match stops) priced per syscall of the mix, plus lints (rules that can never
 *    match, shadowed and duplicate rules, rules the kernel rejects).
 *  - sp_audit_optimize: a rewritten rule file with the same decision and key for every event
 *    (merged syscall sets, dropped shadowed/duplicate rules, rules moved up, cheaper field
 *    order), checked before it is returned by a per-(arch, syscall) projection of both rule
 *    lists and by differential testing of both sets through the reference engine.
 *  - sp_audit_trace: run a command under ptrace and emit the audit.log records the kernel would
 *    write for it under the rules (no kernel audit configuration is touched).
 *
 * Cost model (documented approximation): an event class is (arch, syscall, success); a field
 * whose value the class fixes (arch, success, exit on success, the mask) is evaluated exactly;
 * any other field is assumed to pass (worst case), and a rule holding such a field is assumed
 * not to match, so the walk goes on.  The inode-hash pass (per collected name, one bucket) is
 * estimated apart: names of the syscall x hash rules / 32.
 */
#ifndef SECPATH_AUDIT_TOOLS_H
#define SECPATH_AUDIT_TOOLS_H

#include "secpath.h"
#include "audit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- syscall-frequency profiles ---- */

struct sp_audit_mix;

struct sp_audit_mix_entry {
	uint32_t arch;			/* AUDIT_ARCH_* */
	int32_t nr;
	uint64_t calls;
	uint64_t errors;		/* calls that returned an error */
};

SP_API int sp_audit_mix_new(struct sp_audit_mix **out);
SP_API void sp_audit_mix_free(struct sp_audit_mix *m);
/* Add calls (merged with an existing entry of the same arch and nr).  0 or -ENOMEM/-EINVAL. */
SP_API int sp_audit_mix_add(struct sp_audit_mix *m, uint32_t arch, int32_t nr, uint64_t calls,
			    uint64_t errors);
/* `syscall<TAB>calls<TAB>errors` lines ('#' comments) for `machine` (NULL = x86_64).  Unknown
 * syscall names are warnings; malformed lines are errors (line:col in d).  0 or -EINVAL. */
SP_API int sp_audit_mix_parse_tsv(struct sp_audit_mix *m, const char *text, size_t len,
				  const char *machine, const char *file, struct sp_diags *d);
/* Every syscall event of an sp_audit_record stream.  0 or the reader's -errno. */
SP_API int sp_audit_mix_add_stream(struct sp_audit_mix *m, const void *buf, size_t len,
				   struct sp_diags *d);
/* Load a profile file ("-": standard input): an sp_audit_record stream (by its magic) or a .tsv.
 * 0 or -errno. */
SP_API int sp_audit_mix_load(struct sp_audit_mix *m, const char *path, const char *machine,
			     struct sp_diags *d);
/* Add src to m scaled so that src contributes `total` calls (blending profiles with equal
 * weight).  0 or -ENOMEM/-EINVAL. */
SP_API int sp_audit_mix_add_scaled(struct sp_audit_mix *m, const struct sp_audit_mix *src,
				   uint64_t total);
SP_API size_t sp_audit_mix_count(const struct sp_audit_mix *m);
SP_API int sp_audit_mix_entry(const struct sp_audit_mix *m, size_t i, struct sp_audit_mix_entry *e);
SP_API uint64_t sp_audit_mix_total(const struct sp_audit_mix *m);

/* ---- shared options ---- */

struct sp_audit_tools_opts {
	size_t sz;			/* sizeof(struct sp_audit_tools_opts) */
	const char *machine;		/* rule text and syscall names (NULL = x86_64) */
	const struct sp_audit_mix *mix;	/* NULL: no weighting (cost: every syscall once) */
	uint64_t seed;			/* differential testing (0 = fixed default) */
	size_t diff_events;		/* generated events per check (0 = 20000) */
	unsigned flags;			/* SP_AUDIT_TOOLS_* */
	double time_budget_ms;		/* ns/syscall measurement (0 = 20 ms; < 0 = skip) */
	/* optimize: the text rs was parsed from (NULL = none): a rule the optimizer left as it was
	 * keeps its own line (-w form, spacing), and the comment lines above each kept rule and at
	 * the head of the file are carried over */
	const char *source;
	size_t source_len;
	/* how rs was parsed (the host's names and directories); the optimized text is parsed back
	 * the same way (NULL: the machine only) */
	const struct sp_audit_parse_opts *parse;
};

/* optimize: prepend `never` rules for hot syscalls no rule can match (changes the exit verdict
 * from "no match" to "never", which the kernel can tell apart when a syscall emits an auxiliary
 * record: see secpath-audit-tools(1)); off by default. */
#define SP_AUDIT_TOOLS_HOT_NEVER	0x1u
/* optimize: do not reorder fields inside rules. */
#define SP_AUDIT_TOOLS_KEEP_FIELDS	0x2u

/* ---- cost and lints ---- */

enum sp_audit_lint_kind {
	SP_AUDIT_LINT_REJECTED = 0,	/* the kernel refuses the rule (EINVAL/EEXIST/ENOENT) */
	SP_AUDIT_LINT_NEVER_MATCHES,	/* contradictory fields / impossible comparison */
	SP_AUDIT_LINT_SHADOWED,		/* an earlier rule matches every event this one matches */
	SP_AUDIT_LINT_DUPLICATE,	/* same events, action and key as an earlier rule */
	SP_AUDIT_LINT_NOOP_FIELD,	/* a field that is always true (e.g. exit>=0) */
};

struct sp_audit_lint {
	enum sp_audit_lint_kind kind;
	uint32_t line;			/* source line of the rule */
	uint32_t other_line;		/* the earlier rule (shadowed, duplicate), else 0 */
	char msg[200];
};

struct sp_audit_cost_sys {
	uint32_t arch;
	int32_t nr;
	uint64_t calls;			/* weight in the mix */
	double rules;			/* rules examined per call (exit list + hash walk) */
	double checks;			/* field checks per call */
};

struct sp_audit_cost_rule {
	uint32_t line;			/* source line */
	double rules;			/* times examined per syscall of the mix */
	double checks;			/* field checks per syscall of the mix */
};

struct sp_audit_cost {
	size_t exit_rules;		/* rules on the exit list and in the inode hash */
	size_t hash_rules;		/* of which in the inode hash (watches, inode=) */
	double rules_per_syscall;	/* expected rules examined per syscall (exit list) */
	double hash_per_syscall;	/* estimate for the inode-hash pass: names the syscall
					 * collects x hash rules / 32 buckets (uniform inodes) */
	double checks_per_syscall;	/* expected field checks per syscall */
	double ns_per_syscall;		/* reference engine, measured (0 if skipped) */
	uint64_t calls;			/* total weight */
	size_t nsys, nrules, nlints;
	struct sp_audit_cost_sys *sys;	/* sorted by weighted checks, descending */
	struct sp_audit_cost_rule *rules; /* sorted by checks, descending */
	struct sp_audit_lint *lints;	/* in source order */
};

/* Price rs (the rule set as loaded in order: ADD/DEL/-D) under the mix.  0, -EINVAL, -ENOMEM. */
SP_API int sp_audit_cost_compute(const struct sp_audit_ruleset *rs, const struct sp_audit_tools_opts *o,
				 struct sp_audit_cost **out);
SP_API void sp_audit_cost_free(struct sp_audit_cost *c);

/* ---- optimize ---- */

struct sp_audit_optimize_result {
	char *text;			/* the optimized rules file (NUL-terminated) */
	size_t text_len;
	size_t rules_before, rules_after;	/* exit list + hash rules */
	size_t merged, dropped_dup, dropped_shadow, reordered, moved, never_added;
	double checks_before, checks_after;	/* field checks per syscall (mix-weighted) */
	double rules_walk_before, rules_walk_after;	/* rules examined per syscall */
	double ns_before, ns_after;		/* reference engine ns/syscall (0 if skipped) */
	size_t events_tested;
	int symbolic;			/* 1: the per-(arch, syscall) projection check proved the
					 * exit-family rewrite (see secpath-audit-tools(1)) */
	int equivalent;			/* 1: no difference found; 0: text must not be used */
	char witness[1024];		/* the distinguishing event and both decisions, if any */
};

/* Optimize rs.  Returns 0 (also when a difference was found: check ->equivalent), -EINVAL
 * (rs holds no rules, bad options), -ENOMEM. */
SP_API int sp_audit_optimize(const struct sp_audit_ruleset *rs, const struct sp_audit_tools_opts *o,
			     struct sp_audit_optimize_result **out);
SP_API void sp_audit_optimize_result_free(struct sp_audit_optimize_result *r);

/*
 * Differential check: load a and b (each in its own reference engine, over one file-system view
 * holding every path either mentions), decide generated events biased to both sets' constants,
 * syscalls and paths, and compare record, exclude, task/exit/user verdicts, context, key and
 * hidden names.  Returns 1 equivalent, 0 different (witness filled), or -errno.
 */
SP_API int sp_audit_equiv_check(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
				const struct sp_audit_tools_opts *o, size_t *events_tested,
				char *witness, size_t witness_len);

/* ---- run a command under ptrace ---- */

struct sp_audit_trace_key {
	char key[SP_AUDIT_MAX_KEY_LEN + 1];	/* "(null)" for records without a key */
	uint64_t count;
};

struct sp_audit_trace_stats {
	uint64_t syscalls;		/* syscall exits seen (all traced tasks) */
	uint64_t recorded;		/* events whose SYSCALL record would be written */
	uint64_t tasks;			/* traced tasks (processes and threads) */
	size_t nkeys;
	struct sp_audit_trace_key *keys;	/* per key, in order of first appearance */
	int exec_errno;			/* why the command could not be executed (0: it was) */
};

struct sp_audit_trace_opts {
	size_t sz;
	const struct sp_audit_ruleset *rules;
	/* one audit.log line (no newline) per call; NULL = no text output */
	void (*emit)(void *ud, const char *line, size_t len);
	void *ud;
	int record_fd;			/* >= 0: every event also goes to an sp_audit_record stream */
	uint32_t first_serial;		/* audit(SEC.MSEC:SERIAL) numbering (0 = 1) */
};

/* 0 if this process may trace a child (PTRACE_SEIZE + PTRACE_GET_SYSCALL_INFO), or -errno
 * (-EPERM under a seccomp/LSM/yama policy, -ENOSYS without the ptrace requests). */
SP_API int sp_audit_trace_supported(void);
/*
 * Run argv[0] (PATH search) with argv under ptrace, following forks, vforks, clones and execs.
 * *status gets the wait status of the command.  stats (may be NULL) is filled; free it with
 * sp_audit_trace_stats_release().  Returns 0, -EINVAL, -ENOMEM, -errno of fork/ptrace, or of a
 * failed write to record_fd; a command that cannot be executed exits 127 like a shell's, with
 * stats->exec_errno saying why.
 */
SP_API int sp_audit_trace_run(char *const argv[], const struct sp_audit_trace_opts *o, int *status,
			      struct sp_audit_trace_stats *stats);
SP_API void sp_audit_trace_stats_release(struct sp_audit_trace_stats *s);

/* ---- this host ---- */

/* The file-system view (audit_filter.h) of this host for rs: every path its watch, dir and exe
 * rules name and their ancestors, stat()ed now; missing paths are left out.  Free it with
 * sp_audit_fsview_free().  Returns 0, -EINVAL or -ENOMEM. */
SP_API int sp_audit_fsview_from_host(const struct sp_audit_ruleset *rs, struct sp_audit_fsview **out);
/* Add the absolute `path` and each of its ancestors, as stat() sees them now, to fs: what an
 * event's name needs to resolve (its inode for watches, its walked ancestors for dir=).  Parts
 * that do not exist are left out.  Returns 0, -EINVAL (not absolute), -ENAMETOOLONG, -ENOMEM. */
SP_API int sp_audit_fsview_add_host(struct sp_audit_fsview *fs, const char *path);

/* ---- one call: a rules file to a matcher ---- */

/* A rule the kernel refuses at load time (a dir= tree or a watch's directory this host lacks:
 * ENOENT; a duplicate: EEXIST) is a warning and is skipped, as `auditctl -c -R` goes on past it.
 * Without it the load fails: auditctl -R stops there. */
#define SP_AUDIT_LOAD_CONTINUE	0x1u

/*
 * What an agent needs to filter with a rules file: read `path`, parse it (po may be NULL: this
 * host; the kernel's checks are always on), resolve its watches against this host
 * (sp_audit_fsview_from_host), load its rules as the kernel would (-D starts over) and compile
 * them.  Every problem is a diagnostic in d (may be NULL) naming the file and line: auditctl's
 * refusals, the kernel's, and a file that cannot be read.  A rule auditctl refuses always fails
 * the load; one the kernel refuses at load time does unless flags has SP_AUDIT_LOAD_CONTINUE.
 * All or nothing: *out is set only on success; free it with sp_audit_matcher_free.  Returns 0,
 * -EINVAL (a rule refused), -ENOMEM, or the -errno of reading the file or the host files.
 */
SP_API int sp_audit_matcher_from_file(const char *path, const struct sp_audit_parse_opts *po,
				      unsigned flags, struct sp_audit_matcher **out,
				      struct sp_diags *d);

/* ---- auditctl -l ---- */

struct sp_audit_listing_opts {
	size_t sz;			/* sizeof(struct sp_audit_listing_opts) */
	const char *machine;		/* the host auditctl runs on: syscall names of rules without
					 * an arch field (NULL = x86_64) */
	const char *key;		/* auditctl -l -k KEY: rules with a key containing KEY */
	const struct sp_audit_fsview *fs; /* the file system the kernel resolves watches and dir
					   * rules against (NULL: none resolves, dir rules refused) */
};
/*
 * What `auditctl -l` (3.0.9, without -i) prints after `auditctl -R` loaded rs into a kernel with
 * no rules: every rule the kernel keeps (the reference engine judges each add, delete, -D and
 * -e 2), list by list in the kernel's order, as auditctl's print_rule formats it (watches as
 * `-w PATH -p PERMS -k KEY`), or "No rules".  One call of emit per line (no newline).
 * Returns 0, -EINVAL, -ENOMEM, or -ENOSPC (a rule longer than 16 KiB of text).
 */
SP_API int sp_audit_listing(const struct sp_audit_ruleset *rs, const struct sp_audit_listing_opts *o,
			    void (*emit)(void *ud, const char *line), void *ud);

#ifdef __cplusplus
}
#endif
#endif
