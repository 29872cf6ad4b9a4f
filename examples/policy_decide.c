/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * policy_decide.c - secpath example: answer SELinux access questions from a binary policy.
 *
 * What a policy-aware agent does with libsecpath's policy reader:
 *   1. read a kernel binary policy (policy.33, as in /etc/selinux/default/policy/) into a
 *      struct sp_policy (sp_policy_read_file also takes .xz files when xz(1) is installed);
 *   2. put an AVC (access vector cache) in front of it, as the kernel does: repeated
 *      (source, target, class) questions are answered from the cache, and sp_avc_set_policy /
 *      sp_avc_set_bool may swap the policy under readers (liburcu);
 *   3. turn names into policy values once, then ask: each query is the TE decision
 *      (allow rules over the types' attributes, enabled conditional rules; constraints and
 *      MLS are not applied).
 *
 * Usage: policy_decide [POLICY [SOURCE TARGET CLASS [PERM...]]]
 *   POLICY defaults to data/policy/debian-default.policy.33.xz.  Without a query on the command
 *   line, queries are read from stdin, one "SOURCE TARGET CLASS [PERM...]" per line ('#' and
 *   blank lines skipped).
 * Output, one line per query:  "SOURCE TARGET CLASS [PERM...]: VERDICT allowed=P1,P2,..."
 *   VERDICT is granted (every PERM allowed), denied (one is not) or "-" (no PERM given);
 *   " permissive" is appended when the source type is permissive.  At the end, the AVC's
 *   counters go to stderr ("avc: lookups=N hits=N misses=N").
 * Exit status: 0, 1 if the policy or a query was rejected (unknown type, class or permission).
 *
 * Build against an installed secpath:  cc policy_decide.c $(pkg-config --cflags --libs secpath)
 */
#define _POSIX_C_SOURCE 200809L	/* strtok_r */
#include <stdio.h>
#include <string.h>

#include <secpath/policy.h>
#include <secpath/audit.h>	/* sp_audit_reader_register: liburcu reader registration */

#define MAX_WORDS 40

/* Answer one query of n words.  Returns 0, or -1 after printing why. */
static int query(struct sp_avc *avc, const struct sp_policy *p, char **w, int n)
{
	if (n < 3) {
		fprintf(stderr, "query needs SOURCE TARGET CLASS [PERM...]\n");
		return -1;
	}
	/* Names -> values: types and classes are 1-based, 0 means "no such name". */
	uint32_t s = sp_policy_type_lookup(p, w[0]), t = sp_policy_type_lookup(p, w[1]);
	uint32_t c = sp_policy_class_lookup(p, w[2]);
	if (!s || !t || !c) {
		fprintf(stderr, "no %s '%s' in the policy\n", c || !s || !t ? "type" : "class",
			!s ? w[0] : !t ? w[1] : w[2]);
		return -1;
	}
	/* Permission names -> one access vector: permission value v is bit v - 1. */
	uint32_t want = 0;
	for (int i = 3; i < n; i++) {
		unsigned v = sp_policy_perm_lookup(p, c, w[i]);
		if (!v) {
			fprintf(stderr, "class '%s' has no permission '%s'\n", w[2], w[i]);
			return -1;
		}
		want |= 1u << (v - 1);
	}

	struct sp_av_decision avd;
	if (sp_avc_lookup(avc, s, t, c, &avd))
		return -1;

	for (int i = 0; i < n; i++)
		printf("%s%s", i ? " " : "", w[i]);
	printf(": %s allowed=", !want ? "-" : (avd.allowed & want) == want ? "granted" : "denied");
	const char *sep = "";
	for (unsigned bit = 0; bit < 32; bit++) {
		const char *name = avd.allowed >> bit & 1 ? sp_policy_perm_name(p, c, bit) : NULL;
		if (name) {
			printf("%s%s", sep, name);
			sep = ",";
		}
	}
	printf("%s\n", avd.flags & SP_AVD_FLAGS_PERMISSIVE ? " permissive" : "");
	return 0;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "data/policy/debian-default.policy.33.xz";
	struct sp_diags d;
	struct sp_policy *p = NULL;
	struct sp_avc *avc = NULL;
	int status = 0;

	if ((argc > 1 && argv[1][0] == '-') || argc == 3 || argc == 4) {
		fprintf(stderr, "usage: %s [POLICY [SOURCE TARGET CLASS [PERM...]]]\n", argv[0]);
		return 2;
	}
	sp_diags_init(&d, NULL);
	/* The flat avtab layout is secpath's fastest; all layouts give the same decisions. */
	struct sp_policy_opts po = { .sz = sizeof(po), .layout = SP_AVTAB_FLAT, .diags = &d,
				     .file = path };
	int err = sp_policy_read_file(path, &po, &p);
	if (err) {
		for (size_t i = 0; i < d.n; i++) {	/* "file:+0x1a4: error: msg" */
			char msg[512];
			sp_diag_format(&d.v[i], NULL, msg, sizeof(msg));
			fprintf(stderr, "%s\n", msg);
		}
		fprintf(stderr, "%s: cannot load the policy: %s\n", path, strerror(-err));
		sp_diags_release(&d);
		return 1;
	}
	sp_diags_release(&d);

	/* The AVC owns the policy from here on; default sizes are the kernel's (512 slots). */
	if (sp_avc_create(p, NULL, &avc)) {
		sp_policy_free(p);
		return 1;
	}
	/* Every thread that calls sp_avc_lookup registers with liburcu once. */
	sp_audit_reader_register();

	if (argc > 4) {
		status = query(avc, p, argv + 2, argc - 2) ? 1 : 0;
	} else {
		char line[4096];
		while (fgets(line, sizeof(line), stdin)) {
			char *w[MAX_WORDS], *save;
			int n = 0;
			for (char *tok = strtok_r(line, " \t\r\n", &save); tok && n < MAX_WORDS;
			     tok = strtok_r(NULL, " \t\r\n", &save))
				w[n++] = tok;
			if (n == 0 || w[0][0] == '#')
				continue;
			if (query(avc, p, w, n))
				status = 1;
		}
	}

	struct sp_avc_stats st;
	sp_avc_get_stats(avc, &st);
	fprintf(stderr, "avc: lookups=%llu hits=%llu misses=%llu\n", (unsigned long long)st.lookups,
		(unsigned long long)st.hits, (unsigned long long)st.misses);
	sp_audit_reader_unregister();
	sp_avc_free(avc);	/* frees the policy too */
	return status;
}
