/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * env.c - the host inputs auditctl consults, made injectable: user and group names
 * (passwd/group files or NSS) and "is this -w path a directory" (a list file or stat()).
 * Invariant: a loaded env is immutable; lookups never allocate.  Files are read once at load
 * (sp_file_read); a NUL byte in one ends its text there.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/lang/lang_int.h"

struct dir_ent {
	const char *p;			/* into audit_env.dirs, trailing '/' trimmed */
	size_t n;
};

struct audit_env {
	const struct sp_allocator *alloc;
	char *passwd, *group, *dirs;	/* file contents (sp_file_read: NUL-terminated, malloc'd),
					 * NULL = live host */
	size_t passwd_len, group_len, dirs_len;
	int use_dirs;
	struct dir_ent *dv;		/* the dirs list, sorted for binary search */
	size_t ndv, dv_cap;
};

static size_t trim_len(const char *p, size_t n);

static int dir_cmp(const void *a, const void *b)
{
	const struct dir_ent *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int c = memcmp(x->p, y->p, n);
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static int index_dirs(struct audit_env *e)
{
	size_t cap = 1;
	for (const char *q = e->dirs; *q; q++)
		cap += *q == '\n';
	e->dv = sp_alloc(e->alloc, cap * sizeof(*e->dv), 0);
	if (!e->dv)
		return -ENOMEM;
	e->dv_cap = cap;
	for (const char *p = e->dirs; *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		size_t next = ll + (eol ? 1 : 0);
		while (ll && (p[ll - 1] == '\r' || p[ll - 1] == ' ' || p[ll - 1] == '\t'))
			ll--;
		if (ll && p[0] != '#' && e->ndv < cap)
			e->dv[e->ndv++] = (struct dir_ent){ p, trim_len(p, ll) };
		p += next;
	}
	qsort(e->dv, e->ndv, sizeof(*e->dv), dir_cmp);
	return 0;
}

int audit_env_load(struct audit_env **out, const struct sp_audit_parse_opts *o,
		   const struct sp_allocator *a)
{
	struct audit_env *e = sp_zalloc(a, sizeof(*e), 0);
	if (!e)
		return -ENOMEM;
	e->alloc = a;
	int rc = 0;
	if (o && o->passwd_file && (rc = sp_file_read(o->passwd_file, &e->passwd, &e->passwd_len)))
		goto fail;
	if (o && o->group_file && (rc = sp_file_read(o->group_file, &e->group, &e->group_len)))
		goto fail;
	if (o && o->dirs_file) {
		if ((rc = sp_file_read(o->dirs_file, &e->dirs, &e->dirs_len)) || (rc = index_dirs(e)))
			goto fail;
		e->use_dirs = 1;
	}
	*out = e;
	return 0;
fail:
	audit_env_free(e);
	return rc;
}

void audit_env_free(struct audit_env *e)
{
	if (!e)
		return;
	free(e->passwd);
	free(e->group);
	free(e->dirs);
	if (e->dv)
		sp_free(e->alloc, e->dv, e->dv_cap * sizeof(*e->dv));
	sp_free(e->alloc, e, sizeof(*e));
}

/* Find "name:x:ID:" in a passwd/group-format text; field 3 is the id in both formats. */
static int db_lookup(const char *db, const char *name, uint32_t *id)
{
	size_t nl = strlen(name);
	for (const char *p = db; *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		if (ll > nl && !memcmp(p, name, nl) && p[nl] == ':') {
			const char *q = memchr(p + nl + 1, ':', ll - nl - 1);
			if (q) {
				char *end;
				unsigned long v = strtoul(q + 1, &end, 10);
				if (end != q + 1 && *end == ':') {
					*id = (uint32_t)v;
					return 0;
				}
			}
		}
		p += ll + (eol ? 1 : 0);
	}
	return -ENOENT;
}

int audit_env_uid(const struct audit_env *e, const char *name, uint32_t *id)
{
	if (e && e->passwd)
		return db_lookup(e->passwd, name, id);
	struct passwd pw, *res = NULL;
	char buf[4096];
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) || !res)
		return -ENOENT;
	*id = res->pw_uid;
	return 0;
}

int audit_env_gid(const struct audit_env *e, const char *name, uint32_t *id)
{
	if (e && e->group)
		return db_lookup(e->group, name, id);
	struct group gr, *res = NULL;
	char buf[8192];
	if (getgrnam_r(name, &gr, buf, sizeof(buf), &res) || !res)
		return -ENOENT;
	*id = res->gr_gid;
	return 0;
}

/* Length of p without trailing '/' (but "/" stays "/"). */
static size_t trim_len(const char *p, size_t n)
{
	while (n > 1 && p[n - 1] == '/')
		n--;
	return n;
}

int audit_env_is_dir(const struct audit_env *e, const char *path)
{
	if (!e || !e->use_dirs) {
		struct stat st;
		return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
	}
	struct dir_ent key = { path, trim_len(path, strlen(path)) };
	return bsearch(&key, e->dv, e->ndv, sizeof(*e->dv), dir_cmp) != NULL;
}
