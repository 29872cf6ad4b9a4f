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

/* A passwd or group file read whole: every line that is not empty or a '#' comment must be
 * NAME:X:ID:... with a numeric ID (field 3 in both formats); the others are warned about, and
 * a NUL byte ends the text the lookups see.  The file is used either way, as NSS would. */
static void check_db(const char *path, const char *kind, const char *text, size_t len,
		     struct sp_diags *d)
{
	size_t nul = strlen(text);
	if (nul < len)
		sp_diags_add_offset(d, SP_SEV_WARNING, -EINVAL, path, nul,
				    "a NUL byte in the %s file: the names after it are not seen", kind);
	uint32_t line = 0, bad = 0;
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		line++;
		const char *c1 = memchr(p, ':', ll), *c2 = c1 ? memchr(c1 + 1, ':', ll - (size_t)(c1 - p) - 1) : NULL;
		int ok = !ll || p[0] == '#' || (c1 && c1 > p && c2 && c2 + 1 < p + ll &&
						 c2[1] >= '0' && c2[1] <= '9');
		if (!ok && bad++ < 3)
			sp_diags_add(d, SP_SEV_WARNING, -EINVAL, path, line, 1, (uint32_t)ll,
				     "not a %s line (NAME:PASSWORD:ID:...): its name is not used", kind);
		p += ll + (eol ? 1 : 0);
	}
	if (bad > 3)
		sp_diags_add(d, SP_SEV_WARNING, -EINVAL, path, 0, 0, 0,
			     "%u lines in all are not %s lines", bad, kind);
}

/* Read one host file, or report why it cannot be read (naming it). */
static int read_host_file(const char *path, const char *kind, char **buf, size_t *len,
			  struct sp_diags *d)
{
	int rc = sp_file_read(path, buf, len);
	if (rc)
		sp_diags_add(d, SP_SEV_ERROR, rc, path, 0, 0, 0, "cannot read the %s file: %s", kind,
			     strerror(-rc));
	return rc;
}

int audit_env_load(struct audit_env **out, const struct sp_audit_parse_opts *o,
		   const struct sp_allocator *a, struct sp_diags *d)
{
	struct audit_env *e = sp_zalloc(a, sizeof(*e), 0);
	if (!e)
		return -ENOMEM;
	e->alloc = a;
	int rc = 0;
	if (o && o->passwd_file) {
		if ((rc = read_host_file(o->passwd_file, "passwd", &e->passwd, &e->passwd_len, d)))
			goto fail;
		check_db(o->passwd_file, "passwd", e->passwd, e->passwd_len, d);
	}
	if (o && o->group_file) {
		if ((rc = read_host_file(o->group_file, "group", &e->group, &e->group_len, d)))
			goto fail;
		check_db(o->group_file, "group", e->group, e->group_len, d);
	}
	if (o && o->dirs_file) {
		if ((rc = read_host_file(o->dirs_file, "dirs", &e->dirs, &e->dirs_len, d)) ||
		    (rc = index_dirs(e)))
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
