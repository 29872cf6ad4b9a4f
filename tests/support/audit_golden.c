/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * audit_golden.c - test support for the audit filter engines (see audit_golden.h).
 * Linked into every test program; every external name is tsupport_*.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libaudit.h>

#include "audit_golden.h"

#define HDR 1040u

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

/* ---- blob sets ---- */

int tsupport_blobset_push(struct tsupport_blobset *s, uint32_t line, int del, const void *blob, size_t len)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		void *v = realloc(s->v, cap * sizeof(*s->v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	struct tsupport_blob *b = &s->v[s->n];
	b->blob = malloc(len ? len : 1);
	if (!b->blob)
		return -ENOMEM;
	memcpy(b->blob, blob, len);
	b->len = len;
	b->line = line;
	b->del = del;
	s->n++;
	return 0;
}

void tsupport_blobset_free(struct tsupport_blobset *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].blob);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tsupport_golden_load(const char *path, struct tsupport_blobset *s)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		char *t1 = strchr(line, '\t'), *t2;
		if (!t1 || !(t2 = strchr(t1 + 1, '\t')))
			continue;
		*t1 = *t2 = 0;
		int del;
		if (!strcmp(t1 + 1, "ADD"))
			del = 0;
		else if (!strcmp(t1 + 1, "DEL"))
			del = 1;
		else
			continue;
		char *hex = t2 + 1;
		size_t hl = strcspn(hex, "\r\n");
		uint8_t *blob = malloc(hl / 2 + 1);
		if (!blob) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i + 1 < hl; i += 2)
			blob[i / 2] = (uint8_t)(hexval(hex[i]) << 4 | hexval(hex[i + 1]));
		err = tsupport_blobset_push(s, (uint32_t)strtoul(line, NULL, 10), del, blob, hl / 2);
		free(blob);
		if (err)
			break;
	}
	free(line);
	fclose(f);
	return err;
}

size_t tsupport_blobset_apply(const struct tsupport_blobset *s, struct sp_audit_ref *r)
{
	size_t rejected = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct tsupport_blob *b = &s->v[i];
		int err = b->del ? sp_audit_ref_del(r, b->blob, b->len)
				 : sp_audit_ref_add(r, b->blob, b->len, b->line);
		if (err)
			rejected++;
	}
	return rejected;
}

static int is_str_field(uint32_t t)
{
	return (t >= 13 && t <= 17) || (t >= 19 && t <= 23) || t == 105 || t == 107 || t == 112 ||
	       t == 210;
}

/* Call fn for every string field of a blob. */
static void blob_strings(const uint8_t *b, size_t len,
			 void (*fn)(void *ud, uint32_t type, const char *s, size_t n), void *ud)
{
	if (len < HDR)
		return;
	uint32_t nf = rd32(b + 8), off = 0;
	if (nf > 64)
		return;
	for (uint32_t i = 0; i < nf; i++) {
		uint32_t t = rd32(b + 268 + 4 * i), v = rd32(b + 524 + 4 * i);
		if (!is_str_field(t))
			continue;
		if (t == 9 && v == 4294967295u)
			continue;
		if ((size_t)off + v > len - HDR)
			return;
		fn(ud, t, (const char *)b + HDR + off, v);
		off += v;
	}
}

struct fsv_ctx {
	struct sp_audit_fsview *fs;
	uint64_t next_ino;
	int err;
};

static void fsv_add_path(struct fsv_ctx *c, const char *path, int dir)
{
	char buf[4200];
	size_t len = strlen(path);
	if (len >= sizeof(buf) || path[0] != '/')
		return;
	memcpy(buf, path, len + 1);
	while (len > 1 && buf[len - 1] == '/')
		buf[--len] = 0;
	/* the path itself, then its ancestors as directories; every fifth watched file is left
	 * missing (its directory exists): a pending watch */
	unsigned h = 0;
	for (const char *q = buf; *q; q++)
		h = h * 31 + (unsigned char)*q;
	for (int first = 1;; first = 0) {
		uint64_t ino;
		if (first && !dir && h % 5 == 0) {
			/* skip the leaf */
		} else if (sp_audit_fsview_lookup(c->fs, buf, &ino, NULL, NULL)) {
			uint32_t mode = (first && !dir) ? 0100644u : 040755u;
			if (sp_audit_fsview_add(c->fs, buf, c->next_ino++, SP_AUDIT_MKDEV(8, 1), mode))
				c->err = -ENOMEM;
		}
		if (len <= 1)
			break;
		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
		buf[len] = 0;
	}
}

static void fsv_cb(void *ud, uint32_t type, const char *s, size_t n)
{
	char tmp[4200];
	if (type != 105 && type != 107 && type != 112)
		return;
	if (n >= sizeof(tmp))
		return;
	memcpy(tmp, s, n);
	tmp[n] = 0;
	fsv_add_path(ud, tmp, type == 107);
}

int tsupport_blobset_fsview(const struct tsupport_blobset *s, struct sp_audit_fsview *fs)
{
	struct fsv_ctx c = { .fs = fs, .next_ino = 1000 + sp_audit_fsview_count(fs) * 7 };
	for (size_t i = 0; i < s->n; i++)
		blob_strings(s->v[i].blob, s->v[i].len, fsv_cb, &c);
	return c.err;
}

/* ---- blob builder ---- */

void tsupport_rule_init(struct tsupport_rule *r, uint32_t flags, uint32_t action)
{
	memset(r->buf, 0, HDR);
	wr32(r->buf, flags);
	wr32(r->buf + 4, action);
	r->len = HDR;
}

void tsupport_rule_syscall(struct tsupport_rule *r, int nr)
{
	if (nr < 0) {
		for (int i = 0; i < 64; i++)
			wr32(r->buf + 12 + 4 * i, 0xffffffffu);
		return;
	}
	if (nr >= 2048)
		return;
	uint32_t w = rd32(r->buf + 12 + 4 * (nr / 32));
	wr32(r->buf + 12 + 4 * (nr / 32), w | 1u << (nr % 32));
}

int tsupport_rule_field(struct tsupport_rule *r, uint32_t type, uint32_t wire_op, uint32_t val)
{
	uint32_t n = rd32(r->buf + 8);
	if (n >= 64)
		return -E2BIG;
	wr32(r->buf + 268 + 4 * n, type);
	wr32(r->buf + 524 + 4 * n, val);
	wr32(r->buf + 780 + 4 * n, wire_op);
	wr32(r->buf + 8, n + 1);
	return 0;
}

int tsupport_rule_str(struct tsupport_rule *r, uint32_t type, uint32_t wire_op, const char *s)
{
	size_t l = strlen(s);
	if (r->len + l > sizeof(r->buf))
		return -E2BIG;
	int err = tsupport_rule_field(r, type, wire_op, (uint32_t)l);
	if (err)
		return err;
	memcpy(r->buf + r->len, s, l);
	r->len += l;
	wr32(r->buf + 1036, (uint32_t)(r->len - HDR));
	return 0;
}

/* ---- auditctl text (subset) -> blob ---- */

static const struct {
	const char *text;
	uint32_t wire;
} ops[] = {
	{ "!=", 0x30000000 }, { ">=", 0x60000000 }, { "<=", 0x50000000 }, { "&=", 0x48000000 },
	{ "=", 0x40000000 },  { ">", 0x20000000 },  { "<", 0x10000000 },  { "&", 0x08000000 },
};

static int split_pair(char *s, char **name, uint32_t *wire, char **val)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		char *p = strstr(s, ops[i].text);
		if (p) {
			*p = 0;
			*name = s;
			*wire = ops[i].wire;
			*val = p + strlen(ops[i].text);
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_number(const char *v, uint32_t *out)
{
	char *end;
	if (*v == '-') {
		long long x = strtoll(v, &end, 0);
		*out = (uint32_t)x;
	} else {
		unsigned long long x = strtoull(v, &end, 0);
		*out = (uint32_t)x;
	}
	return *v && !*end ? 0 : -EINVAL;
}

static int cmp_id(const char *name)
{
	static const char *const n[] = { "uid", "euid", "suid", "fsuid", "auid", "gid", "egid", "sgid",
					 "fsgid", "obj_uid", "obj_gid", "loginuid" };
	for (int i = 0; i < 12; i++)
		if (!strcasecmp(name, n[i]))
			return i == 11 ? 4 : i;
	return -1;
}

/* AUDIT_COMPARE_* for an (a, b) pair of cmp_id() values, 0 if none. */
static uint32_t compare_value(int a, int b)
{
	static const uint8_t t[26][2] = {
		[1] = { 0, 9 }, [2] = { 5, 10 }, [3] = { 1, 9 }, [4] = { 6, 10 }, [5] = { 4, 9 },
		[6] = { 2, 9 }, [7] = { 7, 10 }, [8] = { 3, 9 }, [9] = { 8, 10 }, [10] = { 0, 4 },
		[11] = { 0, 1 }, [12] = { 0, 3 }, [13] = { 0, 2 }, [14] = { 4, 3 }, [15] = { 4, 2 },
		[16] = { 4, 1 }, [17] = { 1, 2 }, [18] = { 1, 3 }, [19] = { 2, 3 }, [20] = { 5, 6 },
		[21] = { 5, 8 }, [22] = { 5, 7 }, [23] = { 6, 8 }, [24] = { 6, 7 }, [25] = { 7, 8 },
	};
	for (uint32_t v = 1; v <= 25; v++)
		if ((t[v][0] == a && t[v][1] == b) || (t[v][0] == b && t[v][1] == a))
			return v;
	return 0;
}

static uint32_t perm_bits(const char *v)
{
	uint32_t p = 0;
	for (; *v; v++)
		switch (tolower((unsigned char)*v)) {
		case 'r': p |= 4; break;
		case 'w': p |= 2; break;
		case 'x': p |= 1; break;
		case 'a': p |= 8; break;
		}
	return p;
}

#define TERR(...) do { snprintf(err, errlen, __VA_ARGS__); return -EINVAL; } while (0)

int tsupport_text_rule(const char *text, struct tsupport_rule *r, int *del, char *err, size_t errlen)
{
	char buf[8192], *tok[256], key[300] = "";
	int ntok = 0, machine = MACH_86_64, have_list = 0, have_sc = 0, listnr = 4;
	int perm_idx = -1;
	size_t keylen = 0;
	if (strlen(text) >= sizeof(buf))
		TERR("line too long");
	strcpy(buf, text);
	for (char *p = strtok(buf, " \t\r\n"); p && ntok < 256; p = strtok(NULL, " \t\r\n"))
		tok[ntok++] = p;
	*del = 0;
	tsupport_rule_init(r, 4, 2);
	for (int i = 0; i < ntok; i++) {
		const char *o = tok[i];
		const char *a = i + 1 < ntok ? tok[i + 1] : NULL;
		if (!strcmp(o, "-a") || !strcmp(o, "-A") || !strcmp(o, "-d")) {
			char la[64], *c;
			int action = -1;
			if (!a || strlen(a) >= sizeof(la) || !(c = strchr(strcpy(la, a), ',')))
				TERR("bad list,action");
			*c = 0;
			const char *w[2] = { la, c + 1 };
			listnr = -1;
			for (int k = 0; k < 2; k++) {
				if (!strcmp(w[k], "never")) action = 0;
				else if (!strcmp(w[k], "always")) action = 2;
				else if (!strcmp(w[k], "user")) listnr = 0;
				else if (!strcmp(w[k], "task")) listnr = 1;
				else if (!strcmp(w[k], "exit")) listnr = 4;
				else if (!strcmp(w[k], "exclude")) listnr = 5;
				else if (!strcmp(w[k], "filesystem")) listnr = 6;
				else if (!strcmp(w[k], "io_uring")) listnr = 7;
			}
			if (listnr < 0 || action < 0)
				TERR("bad list,action '%s'", a);
			wr32(r->buf, (uint32_t)listnr | (!strcmp(o, "-A") ? 0x10u : 0));
			wr32(r->buf + 4, (uint32_t)action);
			*del = !strcmp(o, "-d");
			have_list = 1;
			i++;
		} else if (!strcmp(o, "-w") || !strcmp(o, "-W")) {
			if (!a)
				TERR("-w needs a path");
			tsupport_rule_init(r, 4, 2);
			tsupport_rule_syscall(r, -1);
			have_sc = have_list = 1;
			*del = !strcmp(o, "-W");
			tsupport_rule_str(r, 105, 0x40000000, a);
			perm_idx = (int)rd32(r->buf + 8);
			tsupport_rule_field(r, 106, 0x40000000, 15);
			i++;
		} else if (!strcmp(o, "-p")) {
			if (!a)
				TERR("-p needs perms");
			if (perm_idx >= 0)
				wr32(r->buf + 524 + 4 * perm_idx, perm_bits(a));
			else
				tsupport_rule_field(r, 106, 0x40000000, perm_bits(a));
			i++;
		} else if (!strcmp(o, "-k")) {
			if (!a)
				TERR("-k needs a key");
			size_t l = strlen(a);
			if (keylen + l + 1 >= sizeof(key))
				TERR("key too long");
			if (keylen)
				key[keylen++] = 1;
			memcpy(key + keylen, a, l + 1);
			keylen += l;
			i++;
		} else if (!strcmp(o, "-S")) {
			char sc[1024];
			if (!a || strlen(a) >= sizeof(sc))
				TERR("-S needs syscalls");
			strcpy(sc, a);
			for (char *s = strtok(sc, ","); s; s = strtok(NULL, ",")) {
				int nr;
				if (!strcmp(s, "all"))
					nr = -1;
				else if ((nr = audit_name_to_syscall(s, machine)) < 0) {
					char *end;
					long v = strtol(s, &end, 0);
					if (*end || v < 0)
						TERR("unknown syscall '%s'", s);
					nr = (int)v;
				}
				tsupport_rule_syscall(r, nr);
			}
			have_sc = 1;
			i++;
		} else if (!strcmp(o, "-F") || !strcmp(o, "-C")) {
			char pair[4200], *name, *val;
			uint32_t wire, v;
			if (!a || strlen(a) >= sizeof(pair))
				TERR("%s needs an argument", o);
			strcpy(pair, a);
			if (split_pair(pair, &name, &wire, &val))
				TERR("no operator in '%s'", a);
			i++;
			if (!strcmp(o, "-C")) {
				uint32_t cv = compare_value(cmp_id(name), cmp_id(val));
				if (!cv)
					TERR("bad comparison '%s'", a);
				tsupport_rule_field(r, 111, wire, cv);
				continue;
			}
			if (!strcmp(name, "key")) {
				size_t l = strlen(val);
				if (keylen)
					key[keylen++] = 1;
				memcpy(key + keylen, val, l + 1);
				keylen += l;
				continue;
			}
			int f = audit_name_to_field(name);
			if (f < 0)
				TERR("unknown field '%s'", name);
			switch (f) {
			case 11:
				if (!strcasecmp(val, "b64")) { v = 0xc000003e; machine = MACH_86_64; }
				else if (!strcasecmp(val, "b32")) { v = 0x40000003; machine = MACH_X86; }
				else if (parse_number(val, &v)) TERR("bad arch '%s'", val);
				break;
			case 1: case 2: case 3: case 4: case 9: case 109:
				if (!strcmp(val, "unset")) v = 4294967295u;
				else if (parse_number(val, &v)) TERR("bad uid '%s'", val);
				break;
			case 103:
				if (parse_number(val, &v)) {
					int neg = *val == '-';
					int e = audit_name_to_errno(val + neg);
					if (e <= 0)
						TERR("bad errno '%s'", val);
					v = neg ? (uint32_t)-e : (uint32_t)e;
				}
				break;
			case 12:
				if (parse_number(val, &v)) {
					int t = audit_name_to_msg_type(val);
					if (t < 0)
						TERR("bad msgtype '%s'", val);
					v = (uint32_t)t;
				}
				break;
			case 106: v = perm_bits(val); break;
			case 108: {
				int t = audit_name_to_ftype(val);
				if (t < 0)
					TERR("bad filetype '%s'", val);
				v = (uint32_t)t;
				break;
			}
			case 26:
				if (!strcmp(val, "tracefs")) v = 0x74726163;
				else if (!strcmp(val, "debugfs")) v = 0x64626720;
				else if (parse_number(val, &v)) TERR("bad fstype '%s'", val);
				break;
			default:
				if (is_str_field((uint32_t)f)) {
					if (tsupport_rule_str(r, (uint32_t)f, wire, val))
						TERR("string too long");
					if (f == 105 || f == 107)
						have_sc = have_sc || 0;
					continue;
				}
				if (parse_number(val, &v))
					TERR("bad value '%s'", val);
			}
			tsupport_rule_field(r, (uint32_t)f, wire, v);
		} else {
			TERR("unknown option '%s'", o);
		}
	}
	if (!have_list)
		TERR("no -a/-A/-d/-w");
	if (rd32(r->buf) % 16 != 1 && !have_sc)
		tsupport_rule_syscall(r, -1);
	if (keylen && tsupport_rule_str(r, 210, 0x40000000, key))
		TERR("key too long");
	return 0;
}

/* ---- random generation ---- */

uint64_t tsupport_rand(struct tsupport_rng *g)
{
	uint64_t x = g->s ? g->s : 0x9e3779b97f4a7c15ull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	g->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

static uint32_t rnd(struct tsupport_rng *g, uint32_t n)
{
	return n ? (uint32_t)(tsupport_rand(g) % n) : 0;
}

struct pfield {
	uint32_t type, wire, val;
	char *str;
};

struct tsupport_pool {
	struct pfield *f;
	size_t nf, capf;
	uint32_t *sys;		/* syscall numbers seen in masks */
	size_t nsys, capsys;
	uint32_t *consts;	/* numeric constants */
	size_t nconst, capconst;
	char **paths;		/* path/dir/exe strings and their ancestors */
	size_t npaths, cappaths;
	uint32_t masks[16][64];
	size_t nmasks;
};

#define PUSH(arr, n, cap, x)                                                                       \
	do {                                                                                       \
		if ((n) == (cap)) {                                                                \
			size_t c__ = (cap) ? (cap) * 2 : 32;                                       \
			void *p__ = realloc((arr), c__ * sizeof(*(arr)));                          \
			if (!p__)                                                                  \
				return -ENOMEM;                                                    \
			(arr) = p__;                                                               \
			(cap) = c__;                                                               \
		}                                                                                  \
		(arr)[(n)++] = (x);                                                                \
	} while (0)

static int pool_path(struct tsupport_pool *p, const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return -ENOMEM;
	memcpy(d, s, n);
	d[n] = 0;
	while (n > 1 && d[n - 1] == '/')
		d[--n] = 0;
	PUSH(p->paths, p->npaths, p->cappaths, d);
	return 0;
}

int tsupport_pool_new(const struct tsupport_blobset *s, const struct sp_audit_fsview *fs,
		      struct tsupport_pool **out)
{
	struct tsupport_pool *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	*out = p;
	static const uint32_t base_consts[] = { 0, 1, 2, 3, 4, 13, 1000, 1001, 4294967295u,
						4294967283u, 0xc000003e, 0x40000003, 1300, 1100,
						0x74726163, 0x64626720, 8, 10, 100 };
	for (size_t i = 0; i < sizeof(base_consts) / sizeof(base_consts[0]); i++)
		PUSH(p->consts, p->nconst, p->capconst, base_consts[i]);
	static const char *const base_paths[] = { "/etc/passwd", "/etc", "/tmp/x", "/var/log/audit" };
	for (size_t i = 0; i < 4; i++)
		if (pool_path(p, base_paths[i], strlen(base_paths[i])))
			return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		const uint8_t *b = s->v[i].blob;
		size_t len = s->v[i].len;
		if (len < HDR)
			continue;
		uint32_t nf = rd32(b + 8), off = 0;
		if (p->nmasks < 16 && rnd(&(struct tsupport_rng){ i + 1 }, 4) == 0)
			memcpy(p->masks[p->nmasks++], b + 12, 256);
		for (uint32_t nr = 0; nr < 2048; nr++)
			if ((rd32(b + 12 + 4 * (nr / 32)) >> (nr % 32) & 1) && rd32(b + 12 + 4 * (nr / 32)) != 0xffffffffu)
				PUSH(p->sys, p->nsys, p->capsys, nr);
		for (uint32_t k = 0; k < nf && k < 64; k++) {
			struct pfield f = { rd32(b + 268 + 4 * k), rd32(b + 780 + 4 * k), rd32(b + 524 + 4 * k), NULL };
			if (is_str_field(f.type) && !(f.type == 9)) {
				if (off + f.val > len - HDR)
					break;
				f.str = malloc(f.val + 1);
				if (!f.str)
					return -ENOMEM;
				memcpy(f.str, b + HDR + off, f.val);
				f.str[f.val] = 0;
				if (f.type == 105 || f.type == 107 || f.type == 112)
					if (pool_path(p, f.str, f.val))
						return -ENOMEM;
				off += f.val;
			} else {
				PUSH(p->consts, p->nconst, p->capconst, f.val);
			}
			PUSH(p->f, p->nf, p->capf, f);
		}
	}
	(void)fs;
	if (!p->nsys)
		PUSH(p->sys, p->nsys, p->capsys, 2u);
	return 0;
}

void tsupport_pool_free(struct tsupport_pool *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nf; i++)
		free(p->f[i].str);
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	free(p->f);
	free(p->sys);
	free(p->consts);
	free(p->paths);
	free(p);
}

static uint32_t pick_const(struct tsupport_rng *g, const struct tsupport_pool *p)
{
	uint32_t v = p->consts[rnd(g, (uint32_t)p->nconst)];
	switch (rnd(g, 8)) {
	case 0: return v + 1;
	case 1: return v - 1;
	case 2: return rnd(g, 64);
	default: return v;
	}
}

static const uint32_t wire_ops[8] = { 0x40000000, 0x30000000, 0x08000000, 0x48000000,
				      0x10000000, 0x20000000, 0x50000000, 0x60000000 };

static const char *const ctxs[] = {
	"system_u:system_r:sshd_t:s0-s0:c0.c1023", "unconfined_u:unconfined_r:unconfined_t:s0",
	"system_u:object_r:etc_t:s0", "system_u:object_r:shadow_t:s1:c2", "user_u:user_r:user_t:s0:c1,c3",
	"system_u:system_r:auditd_t:s15:c0.c1023",
};
static const char *const lsm_terms[] = { "sshd_t", "etc_t", "shadow_t", "unconfined_t", "system_u",
					 "object_r", "s0", "s1:c2", "s0:c1", "s15", "s0-s15:c0.c1023",
					 "bad level", "user_u", "user_r" };

void tsupport_random_rule(struct tsupport_rng *g, const struct tsupport_pool *p, struct tsupport_rule *r)
{
	static const uint32_t lists[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 1, 1, 0, 5, 5, 6, 7, 2, 3 };
	uint32_t list = lists[rnd(g, sizeof(lists) / sizeof(lists[0]))];
	uint32_t action = rnd(g, 50) == 0 ? 1 : rnd(g, 4) == 0 ? 0 : 2;
	tsupport_rule_init(r, list | (rnd(g, 5) == 0 ? 0x10u : 0), action);
	switch (rnd(g, 8)) {
	case 0: case 1:
		tsupport_rule_syscall(r, -1);
		break;
	case 2:
		if (p->nmasks) {
			memcpy(r->buf + 12, p->masks[rnd(g, (uint32_t)p->nmasks)], 256);
			break;
		}
		/* fallthrough */
	case 3:
		tsupport_rule_syscall(r, 2047 - (int)rnd(g, 10));	/* a class selector */
		/* fallthrough */
	default:
		for (uint32_t k = 1 + rnd(g, 4); k; k--)
			tsupport_rule_syscall(r, rnd(g, 6) ? (int)p->sys[rnd(g, (uint32_t)p->nsys)] : (int)rnd(g, 460));
		break;
	}
	if ((list == 0 || list == 1 || list == 5 || list == 6) && rnd(g, 3)) {
		/* list-specific fields: what audit_filter(), audit_filter_task() and __audit_inode() read */
		static const uint32_t ue[] = { 12, 12, 12, 1, 5, 0, 9, 24, 15, 112, 2, 25, 18 };
		static const uint32_t tk[] = { 1, 5, 2, 0, 9, 11, 106, 106, 108, 112, 25, 15, 111, 200, 103 };
		for (uint32_t k = 1 + rnd(g, 3); k; k--) {
			uint32_t t = list == 6 ? 26 : list == 1 ? tk[rnd(g, sizeof(tk) / sizeof(tk[0]))]
							  : ue[rnd(g, sizeof(ue) / sizeof(ue[0]))];
			uint32_t wire = wire_ops[rnd(g, 2)];
			switch (t) {
			case 26: tsupport_rule_field(r, t, wire, rnd(g, 3) ? (rnd(g, 2) ? 0x74726163 : 0x64626720) : rnd(g, 9)); break;
			case 12: tsupport_rule_field(r, t, wire_ops[rnd(g, 3) ? rnd(g, 2) : 4 + rnd(g, 4)],
						     rnd(g, 2) ? 1300 : 1100 + rnd(g, 30)); break;
			case 112: tsupport_rule_str(r, t, wire, p->paths[rnd(g, (uint32_t)p->npaths)]); break;
			case 15: tsupport_rule_str(r, t, wire, lsm_terms[rnd(g, 4)]); break;
			case 106: tsupport_rule_field(r, t, wire, 1 + rnd(g, 15)); break;
			case 108: tsupport_rule_field(r, t, wire, rnd(g, 2) ? 0100000 : 0040000); break;
			case 111: tsupport_rule_field(r, t, wire, 1 + rnd(g, 25)); break;
			case 24: tsupport_rule_field(r, t, wire, rnd(g, 2)); break;
			case 11: tsupport_rule_field(r, t, wire, rnd(g, 2) ? 0xc000003e : 0x40000003); break;
			default: tsupport_rule_field(r, t, wire, rnd(g, 2) ? pick_const(g, p) : rnd(g, 2) * 1000); break;
			}
		}
		if (rnd(g, 3) == 0)
			tsupport_rule_str(r, 210, 0x40000000, "k1");
		return;
	}
	for (uint32_t k = rnd(g, 5); k; k--) {
		if (rnd(g, 10) < 7 && p->nf) {
			struct pfield f = p->f[rnd(g, (uint32_t)p->nf)];
			if (f.type == 210)
				continue;
			if (rnd(g, 10) == 0)
				f.wire = wire_ops[rnd(g, 8)];
			if (f.str)
				tsupport_rule_str(r, f.type, f.wire, f.str);
			else
				tsupport_rule_field(r, f.type, f.wire, rnd(g, 6) ? f.val : pick_const(g, p));
			continue;
		}
		static const uint32_t types[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 17,
						  18, 19, 21, 22, 23, 24, 25, 26, 100, 101, 102, 103,
						  104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 200,
						  201, 202, 203, 999 };
		uint32_t t = types[rnd(g, sizeof(types) / sizeof(types[0]))];
		uint32_t wire = rnd(g, 3) ? wire_ops[rnd(g, 2)] : wire_ops[rnd(g, 8)];
		if (t == 105 || t == 107 || t == 112) {
			const char *s = p->paths[rnd(g, (uint32_t)p->npaths)];
			tsupport_rule_str(r, t, rnd(g, 5) ? 0x40000000 : wire, s);
		} else if ((t >= 13 && t <= 17) || (t >= 19 && t <= 23)) {
			tsupport_rule_str(r, t, wire, lsm_terms[rnd(g, sizeof(lsm_terms) / sizeof(lsm_terms[0]))]);
		} else if (t == 106) {
			tsupport_rule_field(r, t, wire, rnd(g, 16));
		} else if (t == 108) {
			static const uint32_t ft[] = { 0100000, 0040000, 0020000, 0140000, 0120000 };
			tsupport_rule_field(r, t, wire, ft[rnd(g, 5)]);
		} else if (t == 111) {
			tsupport_rule_field(r, t, wire, rnd(g, 27));
		} else if (t == 24) {
			tsupport_rule_field(r, t, wire, rnd(g, 3));
		} else if (t == 102) {
			tsupport_rule_field(r, t, wire, rnd(g, 2) ? 1000 + rnd(g, 40) : pick_const(g, p));
		} else {
			tsupport_rule_field(r, t, wire, pick_const(g, p));
		}
	}
	if (rnd(g, 2)) {
		static const char *const keys[] = { "k1", "identity", "access", "perm_mod", "a\001b" };
		tsupport_rule_str(r, 210, 0x40000000, keys[rnd(g, 5)]);
	}
}

void tsupport_random_event(struct tsupport_rng *g, const struct tsupport_pool *p,
			   const struct sp_audit_fsview *fs, struct sp_audit_event *ev)
{
	static const uint32_t archs[] = { 0xc000003e, 0xc000003e, 0xc000003e, 0x40000003, 0xc00000b7 };
	static const int64_t rets[] = { 0, 3, -13, -1, -2, -512, -515, -516, -4095, -4096, 4294967283ll };
	sp_audit_event_reset(ev);
	uint32_t kind = rnd(g, 20);
	sp_audit_event_set_kind(ev, kind < 17 ? SP_AUDIT_EV_SYSCALL : kind < 18 ? SP_AUDIT_EV_URING
									      : SP_AUDIT_EV_USER);
	int32_t nr = rnd(g, 10) < 7 ? (int32_t)p->sys[rnd(g, (uint32_t)p->nsys)]
				    : rnd(g, 20) == 0 ? (int32_t)(2040 + rnd(g, 20)) - (rnd(g, 2) ? 0 : 5000)
						      : (int32_t)rnd(g, 460);
	sp_audit_event_set_syscall(ev, archs[rnd(g, 5)], nr);
	uint64_t a[4];
	for (int i = 0; i < 4; i++)
		a[i] = rnd(g, 3) == 0 ? pick_const(g, p) : rnd(g, 4) == 0 ? (tsupport_rand(g) & 0x1ffffffffull) : rnd(g, 8);
	sp_audit_event_set_args(ev, a[0], a[1], a[2], a[3]);
	if (rnd(g, 8))
		sp_audit_event_set_return(ev, rets[rnd(g, sizeof(rets) / sizeof(rets[0]))]);
	uint32_t ids[4];
	for (int i = 0; i < 4; i++)
		ids[i] = rnd(g, 3) ? (rnd(g, 2) ? 0 : 1000) : pick_const(g, p);
	sp_audit_event_set_uids(ev, ids[0], rnd(g, 4) ? ids[0] : ids[1], ids[2], rnd(g, 4) ? ids[0] : ids[3]);
	sp_audit_event_set_gids(ev, ids[1], ids[1], rnd(g, 2) ? ids[1] : ids[2], ids[3]);
	uint32_t groups[3] = { pick_const(g, p), 1000, 24 };
	sp_audit_event_set_groups(ev, groups, rnd(g, 4));
	sp_audit_event_set_pids(ev, rnd(g, 4) ? 100 + rnd(g, 5) : pick_const(g, p), 100 + rnd(g, 5),
				rnd(g, 3) ? 1 : pick_const(g, p));
	sp_audit_event_set_loginuid(ev, rnd(g, 3) == 0 ? 4294967295u : rnd(g, 2) ? 1000 : pick_const(g, p));
	sp_audit_event_set_sessionid(ev, rnd(g, 3) ? 4294967295u : pick_const(g, p));
	if (rnd(g, 6) == 0)
		sp_audit_event_set_personality(ev, pick_const(g, p));
	if (rnd(g, 3) == 0)
		sp_audit_event_set_subj_ctx(ev, ctxs[rnd(g, sizeof(ctxs) / sizeof(ctxs[0]))]);
	if (rnd(g, 5) == 0)
		sp_audit_event_set_saddr_fam(ev, (int)rnd(g, 12));
	if (rnd(g, 4) == 0)
		sp_audit_event_set_msgtype(ev, rnd(g, 2) ? pick_const(g, p) : 1100 + rnd(g, 30));
	if (rnd(g, 5) == 0)
		sp_audit_event_set_openat2_flags(ev, tsupport_rand(g));
	if (rnd(g, 60) == 0)
		sp_audit_event_set_auditd(ev, 1);
	if (rnd(g, 3) == 0) {
		uint64_t ino;
		uint32_t dev;
		const char *exe = p->paths[rnd(g, (uint32_t)p->npaths)];
		if (!sp_audit_fsview_lookup(fs, exe, &ino, &dev, NULL))
			sp_audit_event_set_exe(ev, ino, dev);
		else
			sp_audit_event_set_exe(ev, rnd(g, 50), 8 << 20);
	}
	for (uint32_t k = rnd(g, 4); k; k--) {
		int i;
		if (rnd(g, 5)) {
			char path[4300];
			const char *b = p->paths[rnd(g, (uint32_t)p->npaths)];
			if (rnd(g, 3) == 0)
				snprintf(path, sizeof(path), "%s/child%u", b, rnd(g, 3));
			else
				snprintf(path, sizeof(path), "%s", b);
			i = sp_audit_event_add_path(ev, fs, path);
		} else {
			i = sp_audit_event_add_name(ev, rnd(g, 4) ? 1000 + rnd(g, 64) : SP_AUDIT_INO_UNSET,
						    SP_AUDIT_MKDEV(rnd(g, 2) ? 8 : 253, rnd(g, 3)));
			sp_audit_event_name_set_mode(ev, i, rnd(g, 2) ? 0100644 : 0020666);
		}
		if (i < 0)
			break;
		if (rnd(g, 3) == 0)
			sp_audit_event_name_set_owner(ev, i, ids[rnd(g, 4)], pick_const(g, p));
		if (rnd(g, 4) == 0)
			sp_audit_event_name_set_rdev(ev, i, SP_AUDIT_MKDEV(rnd(g, 300), rnd(g, 300)));
		if (rnd(g, 4) == 0)
			sp_audit_event_name_set_obj_ctx(ev, i, ctxs[rnd(g, sizeof(ctxs) / sizeof(ctxs[0]))]);
		if (rnd(g, 6) == 0)
			sp_audit_event_name_set_fs_magic(ev, i, rnd(g, 2) ? 0x74726163 : 0x64626720);
		if (rnd(g, 8) == 0)
			sp_audit_event_name_add_walked(ev, i, 1000 + rnd(g, 64), SP_AUDIT_MKDEV(8, 1));
	}
	if (rnd(g, 3) == 0) {
		/* the task list's view: the forking task had other credentials */
		uint32_t tu[4], tg[4], tgr[2] = { pick_const(g, p), 1000 };
		for (int i = 0; i < 4; i++) {
			tu[i] = rnd(g, 2) ? ids[i] : rnd(g, 2) ? 1000 : pick_const(g, p);
			tg[i] = rnd(g, 2) ? ids[3 - i] : pick_const(g, p);
		}
		sp_audit_event_set_task_creds(ev, rnd(g, 2) ? 1 : pick_const(g, p), tu, tg, tgr, rnd(g, 3),
					      rnd(g, 3) == 0 ? 4294967295u : rnd(g, 2) ? 1000 : pick_const(g, p),
					      rnd(g, 2) ? 4294967295u : pick_const(g, p));
	}
}
