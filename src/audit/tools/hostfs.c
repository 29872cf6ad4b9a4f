/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hostfs.c - the file-system view of this host for a rule set: every path a watch, dir or exe
 * rule names, and each of its ancestors, with the identity they have now (inode, device in
 * the kernel's encoding, mode).  A watch or exe path is taken as lstat() gives it: the kernel
 * resolves its mark with kern_path_locked(), which does not follow the last component, so a
 * watch on a symlink watches the link; directories (the ancestors, dir= roots) as stat() gives
 * them.  Paths that do not exist are left out, as the kernel would find them missing.
 * sp_audit_fsview_add_host does the same (stat) for one path an event names.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "audit/tools/tools_int.h"

/* path as stat() (or lstat()) sees it now, if it exists: 0, -ENOMEM; a missing path is not an
 * error */
static int add_stat(struct sp_audit_fsview *fs, const char *path, int nofollow)
{
	struct stat st;
	if (nofollow ? lstat(path, &st) : stat(path, &st))
		return 0;
	return sp_audit_fsview_add(fs, path, st.st_ino,
				   SP_AUDIT_MKDEV(major(st.st_dev), minor(st.st_dev)), st.st_mode);
}

SP_API int sp_audit_fsview_add_host(struct sp_audit_fsview *fs, const char *path)
{
	char buf[PATH_MAX];
	size_t len = path ? strlen(path) : 0;
	if (!fs || !path || path[0] != '/')
		return -EINVAL;
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')	/* the view holds no trailing '/' */
		buf[--len] = '\0';
	for (int err;;) {	/* the path, then each ancestor up to and including "/" */
		if ((err = add_stat(fs, buf, 0)))
			return err;
		char *slash = strrchr(buf, '/');
		if (slash == buf) {
			if (!buf[1])
				return 0;
			buf[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
}

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
	if (!err)
		err = sp_audit_fsview_new(out);
	for (size_t i = 0; !err && i < n; i++) {
		uint64_t ino;
		uint32_t dev, mode = S_IFDIR;
		sp_audit_fsview_lookup(synth, paths[i], &ino, &dev, &mode);
		err = add_stat(*out, paths[i], S_ISREG(mode));	/* the synthetic view's files: watch, exe */
	}
	sp_audit_fsview_free(synth);
	tool_paths_free(paths, n);
	if (err) {
		sp_audit_fsview_free(*out);
		*out = NULL;
	}
	return err;
}
