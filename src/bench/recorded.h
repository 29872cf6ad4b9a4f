/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * recorded.h - the recorded mixes of data/audit/recorded/ (scripts/record-mixes.sh: real
 * programs under `secpath audit run --record` as a login user) for the audit suite.
 */
#ifndef SP_BENCH_RECORDED_H
#define SP_BENCH_RECORDED_H
#include "secpath/audit.h"

/* What the mixes hold under one rule set. */
struct bench_rec_share {
	uint64_t events, recorded;	/* every event of every mix; those the rules record */
	uint64_t expect;		/* audit run's recorded count (the checked rule set, else 0) */
};

/* The recording host's identities of the rule sets' paths (identities.tsv) into fs, before
 * the rules are loaded.  0, -ENOENT (missing file: named by bench_data_missing), -EPROTO, or
 * -ENOMEM. */
int bench_recorded_identities(struct sp_audit_fsview *fs);

/*
 * Every event of every mix, decided by ref: of those the rules record (recorded = 1) or do not,
 * at most max spread evenly over the mixes' order (the k-th of n taken at k * n / max) into out
 * (*nout of them, the caller frees them); *share counts them all.  For the rule set the mixes
 * were recorded under (check = 1: neo23x0-audit.rules) the recorded count must be audit run's
 * (summary.tsv), else -EPROTO.  0 or -errno.
 */
int bench_recorded_events(const struct sp_audit_ref *ref, int recorded, int check,
			  struct sp_audit_event **out, unsigned max, unsigned *nout,
			  struct bench_rec_share *share);
#endif
