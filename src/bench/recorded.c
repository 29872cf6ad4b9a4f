/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * recorded.c - the recorded mixes for the audit suite (recorded.h): data/audit/recorded/ (one
 * .rec per mix), the identities their events were recorded against, and audit run's counts to
 * check against.
 *
 * Invariants: the events are read in the order of `mixes` and, within a mix, of the stream; a
 * selection is the same for every variant of a case (it depends only on the files and the
 * reference's decisions), so the variants filter the same events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/recorded.h"
#include "bench/suites.h"
#include "secpath/audit_record.h"

static const char *const mixes[] = { "files", "tar", "git", "cc", "python" };
#define NMIX (sizeof(mixes) / sizeof(mixes[0]))

int bench_recorded_identities(struct sp_audit_fsview *fs)
{
	char path[600], line[4400];
	FILE *f = bench_data_file("audit/recorded/identities.tsv", path, sizeof(path))
			  ? NULL : fopen(path, "r");
	int rc = 0;
	if (!f)
		return -ENOENT;
	while (!rc && fgets(line, sizeof(line), f)) {
		unsigned long long ino;
		unsigned maj, min, mode;
		int at = 0;
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%llu\t%u\t%u\t%x\t%n", &ino, &maj, &min, &mode, &at) != 4 || !at) {
			rc = -EPROTO;
			break;
		}
		line[strcspn(line, "\n")] = 0;
		if (sp_audit_fsview_lookup(fs, line + at, NULL, NULL, NULL))
			rc = sp_audit_fsview_add(fs, line + at, ino, SP_AUDIT_MKDEV(maj, min), mode);
	}
	fclose(f);
	return rc;
}

/* audit run's recorded count under the checked rule set, summed over the mixes (summary.tsv). */
static int expected_recorded(uint64_t *sum)
{
	char path[600], line[256], name[64];
	FILE *f = bench_data_file("audit/recorded/summary.tsv", path, sizeof(path))
			  ? NULL : fopen(path, "r");
	unsigned long long calls, rec;
	*sum = 0;
	if (!f)
		return -ENOENT;
	if (!fgets(line, sizeof(line), f)) {	/* the header */
		fclose(f);
		return -EPROTO;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu %llu", name, &calls, &rec) == 3)
			*sum += rec;
	fclose(f);
	return 0;
}

/* One pass over every mix: each event of the wanted class numbered k; the ones whose k is in
 * pick (ascending, npick of them) are kept in out.  0 or -errno. */
static int pass(const struct sp_audit_ref *ref, int recorded, const uint64_t *pick, unsigned npick,
		struct sp_audit_event **out, unsigned *nout, struct bench_rec_share *share)
{
	uint64_t k = 0;
	unsigned next = 0;
	int rc = 0;
	for (size_t m = 0; m < NMIX && !rc; m++) {
		char rel[64], path[600];
		size_t len;
		char *buf = NULL;
		snprintf(rel, sizeof(rel), "audit/recorded/%s.rec", mixes[m]);
		if (bench_data_file(rel, path, sizeof(path)) || sp_file_read(path, &buf, &len))
			return -ENOENT;
		struct sp_audit_record_reader *r = NULL;
		struct sp_audit_event *ev = NULL;
		if (!rc)
			rc = sp_audit_record_reader_new(buf, len, &r);
		while (!rc && (ev || !(rc = sp_audit_event_new(&ev)))) {
			int got = sp_audit_record_read(r, ev, NULL);
			if (got <= 0) {
				rc = got;
				break;
			}
			struct sp_audit_decision d;
			sp_audit_ref_filter(ref, ev, &d);
			share->events++;
			share->recorded += d.record != 0;
			if ((d.record != 0) != recorded)
				continue;
			if (next < npick && pick[next] == k) {
				out[(*nout)++] = ev;	/* a fresh event for the next read */
				ev = NULL;
				next++;
			}
			k++;
		}
		sp_audit_event_free(ev);
		sp_audit_record_reader_free(r);
		free(buf);
	}
	return rc;
}

int bench_recorded_events(const struct sp_audit_ref *ref, int recorded, int check,
			  struct sp_audit_event **out, unsigned max, unsigned *nout,
			  struct bench_rec_share *share)
{
	struct bench_rec_share count = { 0 };
	uint64_t *pick = calloc(max ? max : 1, sizeof(*pick));
	unsigned npick = 0;
	int rc = pick ? pass(ref, recorded, NULL, 0, NULL, nout, &count) : -ENOMEM;	/* counts */
	*nout = 0;
	uint64_t n = recorded ? count.recorded : count.events - count.recorded;
	for (unsigned k = 0; !rc && k < max && k < n; k++)	/* ascending, distinct */
		pick[npick++] = n <= max ? k : (uint64_t)k * n / max;
	memset(share, 0, sizeof(*share));
	if (!rc)
		rc = pass(ref, recorded, pick, npick, out, nout, share);
	free(pick);
	if (!rc && check && !(rc = expected_recorded(&share->expect)) &&
	    share->expect != share->recorded) {
		fprintf(stderr, "bench audit: the recorded mixes: %llu events recorded by "
			"neo23x0-audit.rules here, %llu by audit run (summary.tsv)\n",
			(unsigned long long)share->recorded, (unsigned long long)share->expect);
		rc = -EPROTO;
	}
	if (rc) {
		for (unsigned i = 0; i < *nout; i++)
			sp_audit_event_free(out[i]);
		*nout = 0;
	}
	return rc;
}
