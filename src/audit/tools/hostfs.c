/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostfs.c - the file-system view of this host for a rule set: every path a watch, dir or exe
 * rule names, and each of its ancestors, with the identity stat() gives now (inode, device in
 * the kernel's encoding, mode).  Paths that do not exist are left out, as the kernel would find
 * them missing.
 */
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "audit/tools/tools_int.h"

SP_API int sp_audit_fsview_from_host(const struct sp_audit_ruleset *rs, struct sp_audit_fsview **out)
{
	char **paths = NULL;
	size_t n = 0;
	struct sp_audit_fsview *synth = NULL;
	if (!rs || !out)
		return -EINVAL;
	*out = NULL;
	/* the synthetic view lists every rule path and its ancestors; take their real identities */
	int err = tool_fs_build(rs, NULL, &synth, &paths, &n);
	sp_audit_fsview_free(synth);
	if (!err)
		err = sp_audit_fsview_new(out);
	for (size_t i = 0; !err && i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0)
			err = sp_audit_fsview_add(*out, paths[i], st.st_ino,
						  SP_AUDIT_MKDEV(major(st.st_dev), minor(st.st_dev)),
						  st.st_mode);
	}
	tool_paths_free(paths, n);
	if (err) {
		sp_audit_fsview_free(*out);
		*out = NULL;
	}
	return err;
}
