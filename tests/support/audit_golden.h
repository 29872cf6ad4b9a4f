/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_golden.h - test support for the audit filter engines: golden blob sets
 * (tests/data/audit/golden/<set>/<file>.tsv), a blob builder, a small auditctl-text -> blob
 * builder for case files (names resolved through libaudit, a test oracle), and random
 * rule/event generators for differential testing.  All names are tsupport_*.
 */
#ifndef TSUPPORT_AUDIT_GOLDEN_H
#define TSUPPORT_AUDIT_GOLDEN_H

#include <stddef.h>
#include <stdint.h>
#include "secpath/audit.h"

struct tsupport_blob {
	uint32_t line;		/* source line (used as the rule id) */
	int del;		/* 1: AUDIT_DEL_RULE */
	uint8_t *blob;
	size_t len;
};

struct tsupport_blobset {
	struct tsupport_blob *v;
	size_t n, cap;
};

/* Load LINE<TAB>ADD|DEL<TAB>hex rows (others skipped).  0 or -errno. */
int tsupport_golden_load(const char *path, struct tsupport_blobset *s);
void tsupport_blobset_free(struct tsupport_blobset *s);
int tsupport_blobset_push(struct tsupport_blobset *s, uint32_t line, int del, const void *blob, size_t len);
/* Apply every blob to r (ADD/DEL), ids = lines.  Returns the number of rejected blobs. */
size_t tsupport_blobset_apply(const struct tsupport_blobset *s, struct sp_audit_ref *r);
/* Give every path/dir/exe string of the blobs (and their ancestors) a synthetic identity in fs:
 * dir fields and ancestors are directories.  0 or -errno. */
int tsupport_blobset_fsview(const struct tsupport_blobset *s, struct sp_audit_fsview *fs);

/* ---- blob builder ---- */
struct tsupport_rule {
	uint8_t buf[1040 + 16384];
	size_t len;
};
void tsupport_rule_init(struct tsupport_rule *r, uint32_t flags, uint32_t action);
void tsupport_rule_syscall(struct tsupport_rule *r, int nr);	/* -1 = all */
int tsupport_rule_field(struct tsupport_rule *r, uint32_t type, uint32_t wire_op, uint32_t val);
int tsupport_rule_str(struct tsupport_rule *r, uint32_t type, uint32_t wire_op, const char *s);

/* One auditctl rule line (-a/-A/-d, -S, -F, -C, -w, -p, -k) -> blob.  *del set for -d/-W.
 * 0, or -EINVAL with a message in err. */
int tsupport_text_rule(const char *line, struct tsupport_rule *r, int *del, char *err, size_t errlen);

/* ---- random generation (deterministic xorshift) ---- */
struct tsupport_rng {
	uint64_t s;
};
uint64_t tsupport_rand(struct tsupport_rng *g);
/* Constants harvested from a blob set, to bias generation. */
struct tsupport_pool;
int tsupport_pool_new(const struct tsupport_blobset *s, const struct sp_audit_fsview *fs,
		      struct tsupport_pool **out);
void tsupport_pool_free(struct tsupport_pool *p);
/* A random rule blob biased to the pool's fields and constants. */
void tsupport_random_rule(struct tsupport_rng *g, const struct tsupport_pool *p, struct tsupport_rule *r);
/* Fill ev (reset first) with a random event biased to the pool. */
void tsupport_random_event(struct tsupport_rng *g, const struct tsupport_pool *p,
			   const struct sp_audit_fsview *fs, struct sp_audit_event *ev);

#endif
