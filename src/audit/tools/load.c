/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * load.c - one call from a rules file to a matcher, for an agent embedding the filter: read, parse
 * (auditctl -R, the kernel's checks on), resolve watches on this host, load ADD/DEL in order
 * (-D starts over), compile.  A rule the kernel refuses at load time fails the load or, with
 * SP_AUDIT_LOAD_CONTINUE, is skipped with a warning.  Every refusal is a diagnostic naming the
 * file and line.  The matcher is immutable and owns what it needs: the parse, the view and the
 * reference engine are freed before it is returned.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/tools/tools_int.h"

/* The items into a fresh reference engine over fs; each refusal reported.  0, -EINVAL (some
 * refused; a load-time refusal only without SP_AUDIT_LOAD_CONTINUE) or -ENOMEM. */
static int load_items(const struct sp_audit_ruleset *rs, const char *path, unsigned flags,
		      const struct sp_audit_fsview *fs, struct sp_audit_ref **ref, struct sp_diags *d)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	int err = sp_audit_ref_new(&eo, ref), bad = 0;
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it))
			continue;
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (!strcmp(it.ctrl, "-D")) {
				sp_audit_ref_free(*ref);
				*ref = NULL;
				err = sp_audit_ref_new(&eo, ref);
			}
			continue;
		}
		if (it.kernel_err) {	/* reported by the parser, at its columns */
			bad = 1;
			continue;
		}
		int rc = it.kind == SP_AUDIT_ITEM_ADD ? sp_audit_ref_add(*ref, it.blob, it.blob_len, it.line)
						      : sp_audit_ref_del(*ref, it.blob, it.blob_len);
		if (rc == -ENOMEM) {
			err = rc;
		} else if (rc) {
			int go_on = flags & SP_AUDIT_LOAD_CONTINUE;
			bad |= !go_on;
			sp_diags_add(d, go_on ? SP_SEV_WARNING : SP_SEV_ERROR, rc, path, it.line, 0, 0,
				     "the kernel refuses this rule: %s", rc == -EEXIST
				     ? "it is already loaded (EEXIST)" : rc == -ENOENT && it.kind ==
				     SP_AUDIT_ITEM_ADD ? "a path it names (for a watch, its "
				     "directory) does not exist on this host (ENOENT)" : rc == -ENOENT ? "no such rule to delete (ENOENT)"
				     : sp_strerror(rc));
		}
	}
	return err ? err : bad ? -EINVAL : 0;
}

SP_API int sp_audit_matcher_from_file(const char *path, const struct sp_audit_parse_opts *po,
				      unsigned flags, struct sp_audit_matcher **out,
				      struct sp_diags *d)
{
	struct sp_audit_parse_opts o = { .sz = sizeof(o) };
	struct sp_audit_ruleset *rs = NULL;
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ref *ref = NULL;
	char *text = NULL;
	size_t len = 0;
	if (!path || !out)
		return -EINVAL;
	*out = NULL;
	if (po && po->sz) {
		size_t n = po->sz < sizeof(o) ? po->sz : sizeof(o);
		memcpy(&o, po, n);
		o.sz = sizeof(o);
	}
	o.flags |= SP_AUDIT_PARSE_KERNEL;
	int err = sp_file_read(path, &text, &len);
	if (err) {
		sp_diags_add(d, SP_SEV_ERROR, err, path, 0, 0, 0, "cannot read the rules: %s",
			     sp_strerror(err));
		return err;
	}
	struct sp_diags local;
	sp_diags_init(&local, NULL);
	struct sp_diags *dd = d ? d : &local;	/* a refusal must be counted even if unreported */
	size_t errs = dd->nerrors;
	err = sp_audit_ruleset_parse(text, len, path, &o, &rs, dd);
	if (!err && dd->nerrors > errs)
		err = -EINVAL;	/* auditctl -R stops at a rejected line */
	if (!err)
		err = sp_audit_fsview_from_host(rs, &fs);
	if (!err)
		err = load_items(rs, path, flags, fs, &ref, d);
	if (!err)
		err = sp_audit_matcher_compile(ref, out);
	sp_audit_ref_free(ref);
	sp_audit_fsview_free(fs);
	sp_audit_ruleset_free(rs);
	sp_diags_release(&local);
	free(text);
	return err;
}
