/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * symbols.c - seinfo's component listings (setools 4.4): each item of a component with its
 * name and its statement as setools writes it (the text `seinfo -x` prints), from what read.c
 * kept of the file.
 *
 * Orders kept from setools: a type's aliases in the order libsepol's symbol hash table holds
 * them (its buckets in order, each chain sorted by name; the table doubled from its initial size
 * until it exceeds the entries, as libsepol 3.4 resizes), a type's attributes by value, every
 * other list in a statement by name.  Which items are listed: the symbol table's entries (types:
 * primary non-attributes; sensitivities and categories: not aliases; permissive: permissive
 * primary types).  The caller sorts the items (setools sorts by name, MLS symbols by value).
 * Users' levels (MLS policies) are spelled as setools spells a level: the sensitivity, then the
 * categories by value with runs of consecutive values as FIRST.LAST; a range whose high level
 * equals its low is the low level alone.
 * Each statement is built in a buffer that grows with it: O(statement) memory, O(table) time
 * per item at most (aliases and pair lists are scanned once per item).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_int.h"

struct sbuf {
	const struct sp_allocator *a;
	char *s;
	size_t n, cap;
	int err;
};

__attribute__((format(printf, 2, 3))) static void sb_put(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
	va_end(ap);
	if (b->err || need < 0 || (b->s && (size_t)need < b->cap - b->n)) {
		if (need > 0 && b->s && !b->err)
			b->n += (size_t)need;
		return;
	}
	size_t cap = b->cap ? b->cap : 256;
	while (cap - b->n <= (size_t)need)
		cap *= 2;
	char *ns = sp_alloc(b->a, cap, 0);
	if (!ns) {
		b->err = -ENOMEM;
		return;
	}
	if (b->s) {
		memcpy(ns, b->s, b->n);
		sp_free(b->a, b->s, b->cap);
	}
	b->s = ns;
	b->cap = cap;
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
	va_end(ap);
	b->n += (size_t)need;
}

static int names_cmp(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* " { a b }" (sorted), " a" for one, " {  }" for none: setools' set spelling */
static void sb_set(struct sbuf *b, const char **v, size_t n)
{
	if (n == 1) {
		sb_put(b, " %s", v[0]);
		return;
	}
	qsort(v, n, sizeof(*v), names_cmp);
	sb_put(b, " { ");
	for (size_t i = 0; i < n; i++)
		sb_put(b, "%s%s", i ? " " : "", v[i]);
	sb_put(b, " }");
}

/* The members of owner in a pair list, as names (name_of), into a fresh array (*out). */
size_t policy_pair_names(const struct policy_core *k, const struct policy_pairs *pp,
			 uint32_t owner, const char *const *name_of, uint32_t limit, const char ***out)
{
	size_t n = 0;
	*out = sp_alloc(k->alloc, ((size_t)pp->n + 1) * sizeof(char *), 0);
	if (!*out)
		return 0;
	for (uint32_t i = 0; i < pp->n; i++)
		if (pp->v[2 * i] == owner && pp->v[2 * i + 1] <= limit && name_of[pp->v[2 * i + 1]])
			(*out)[n++] = name_of[pp->v[2 * i + 1]];
	return n;
}

/* libsepol 3.4's symhash (signed char, as its `const char *`) */
static unsigned symhash(const char *key, unsigned size)
{
	unsigned val = 0;
	for (const signed char *p = (const signed char *)key; *p; p++)
		val = (val << 4 | val >> (8 * sizeof(unsigned) - 4)) ^ (unsigned)(int)*p;
	return val & (size - 1);
}

/* The size libsepol's table ends with after n inserts from `initial` (it doubles while the
 * size does not exceed the entries before an insert). */
static unsigned table_size(unsigned initial, uint32_t n)
{
	unsigned size = initial;
	while (n && size <= n - 1 && size * 2 != 0)
		size *= 2;
	return size;
}

/* before(a, b): a precedes b in the hash table's iteration order */
static int hash_before(const char *a, const char *b, unsigned size)
{
	unsigned ha = symhash(a, size), hb = symhash(b, size);
	return ha != hb ? ha < hb : strcmp(a, b) < 0;
}

/* The aliases of type v (entries of its value that are not its name), in hash table order. */
size_t policy_type_aliases(const struct policy_core *k, uint32_t v, const char **out, size_t max)
{
	unsigned size = table_size(512, k->ntype_ix);	/* libsepol's symtab_sizes[SYM_TYPES] */
	size_t n = 0;
	for (uint32_t i = 0; i < k->ntype_ix && n < max; i++) {
		const struct policy_name_ix *e = &k->type_ix[i];
		if (e->value != v || e->name == k->type_name[v])
			continue;
		size_t j = n++;
		for (; j > 0 && hash_before(e->name, out[j - 1], size); j--)
			out[j] = out[j - 1];
		out[j] = e->name;
	}
	return n;
}

/* libsepol 3.4's capability names by bit (a later bit has no name there) */
static const char *const polcap_names[] = {
	"network_peer_controls", "open_perms", "extended_socket_class", "always_check_network",
	"cgroup_seclabel", "nnp_nosuid_transition", "genfs_seclabel_symlinks",
	"ioctl_skip_cloexec",
};

struct emit {
	const struct policy_core *k;
	struct sbuf b;
	const char **tmp;		/* scratch names, ntypes + nroles + ntype_ix + 1 */
	int (*fn)(void *ud, const char *name, uint32_t value, const char *statement);
	void *ud;
};

static int emit_one(struct emit *e, const char *name, uint32_t value)
{
	if (e->b.err)
		return e->b.err;
	int rc = e->fn(e->ud, name, value, e->b.s ? e->b.s : "");
	e->b.n = 0;
	if (e->b.s)
		e->b.s[0] = 0;
	return rc;
}

/* type NAME[ alias A| alias { A B }][, ATTR...]; */
static void type_stmt(struct emit *e, uint32_t v)
{
	const struct policy_core *k = e->k;
	size_t na = policy_type_aliases(k, v, e->tmp, (size_t)k->ntype_ix + 1);
	sb_put(&e->b, "type %s", k->type_name[v]);
	if (na == 1)
		sb_put(&e->b, " alias %s", e->tmp[0]);
	else if (na > 1) {
		sb_put(&e->b, " alias {");
		for (size_t i = 0; i < na; i++)
			sb_put(&e->b, " %s", e->tmp[i]);
		sb_put(&e->b, " }");
	}
	for (uint32_t j = k->attr_off[v]; j < k->attr_off[v + 1]; j++) {
		uint32_t a = k->attr_v[j];
		if (a == v || !(k->type_flags[a] & 1))
			continue;
		if (k->type_name[a])
			sb_put(&e->b, ", %s", k->type_name[a]);
		else	/* the name setools gives an attribute the file leaves unnamed */
			sb_put(&e->b, ", @ttr%010u", a);
	}
	sb_put(&e->b, ";");
}

/* attribute NAME;\n\tMEMBER... (sorted), or \t<empty attribute> */
static void attr_stmt(struct emit *e, uint32_t v)
{
	const struct policy_core *k = e->k;
	size_t n = 0;
	for (uint32_t j = k->rev_off[v]; j < k->rev_off[v + 1]; j++)
		if (!(k->type_flags[k->rev_v[j]] & 1) && k->type_name[k->rev_v[j]])
			e->tmp[n++] = k->type_name[k->rev_v[j]];
	qsort(e->tmp, n, sizeof(*e->tmp), names_cmp);
	sb_put(&e->b, "attribute %s;", k->type_name[v]);
	for (size_t i = 0; i < n; i++)
		sb_put(&e->b, "\n\t%s", e->tmp[i]);
	if (!n)
		sb_put(&e->b, "\n\t<empty attribute>");
}

static int emit_types(struct emit *e, int attrs, int permissive, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || !(f & 1) != !attrs || (permissive && !(f & 2)))
			continue;
		if (expand)
			(attrs ? attr_stmt : type_stmt)(e, v);
		rc = emit_one(e, k->type_name[v], v);
	}
	return rc;
}

/* role NAME types T; / types { T... }; (setools' braces even for none) */
static int emit_roles(struct emit *e, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->nroles; v++) {
		if (!k->role_name[v])
			continue;
		if (expand) {
			const char **names;
			size_t n = policy_pair_names(k, &k->role_types, v, k->type_name, k->ntypes, &names);
			if (!names)
				return -ENOMEM;
			sb_put(&e->b, "role %s types", k->role_name[v]);
			sb_set(&e->b, names, n);
			sb_put(&e->b, ";");
			sp_free(k->alloc, names, ((size_t)k->role_types.n + 1) * sizeof(char *));
		}
		rc = emit_one(e, k->role_name[v], v);
	}
	return rc;
}

/* The primary name of MLS value v in m[0..n) (NULL: none). */
static const char *mls_name(const struct policy_mls_sym *m, uint32_t n, uint32_t v)
{
	for (uint32_t i = 0; i < n; i++)
		if (!m[i].alias && m[i].value == v)
			return m[i].name;
	return NULL;
}

/* A level (sens, ncats, cats) as setools writes it: SENS[:CATS], runs of consecutive category
 * values as FIRST.LAST.  lv has 2 + lv[1] values (user_levels checked it). */
static void level_str(struct emit *e, const uint32_t *lv)
{
	const struct policy_core *k = e->k;
	const char *sn = mls_name(k->sens, k->nsens, lv[0]);
	sb_put(&e->b, "%s", sn ? sn : "?");
	for (uint32_t i = 0; i < lv[1];) {
		uint32_t j = i;
		while (j + 1 < lv[1] && lv[2 + j + 1] == lv[2 + j] + 1)
			j++;
		const char *a = mls_name(k->cats, k->ncats, lv[2 + i]);
		sb_put(&e->b, "%s%s", i ? "," : ":", a ? a : "?");
		if (j > i) {
			const char *b = mls_name(k->cats, k->ncats, lv[2 + j]);
			sb_put(&e->b, ".%s", b ? b : "?");
		}
		i = j + 1;
	}
}

/* The levels of user v's record (range low, high, default level), or 0 when it has none. */
int policy_user_levels(const struct policy_core *k, uint32_t v, const uint32_t *lv[3])
{
	const struct u32vec *m = &k->user_mls;
	for (uint32_t i = 0; i < m->n;) {
		uint32_t user = m->v[i++];
		for (int j = 0; j < 3; j++) {
			if (i + 2 > m->n || m->v[i + 1] > m->n - i - 2)
				return 0;
			lv[j] = &m->v[i];
			i += 2 + m->v[i + 1];
		}
		if (user == v)
			return 1;
	}
	return 0;
}

/* Levels are equal when their sensitivity and category lists are (setools' Level ==). */
static int same_level(const uint32_t *a, const uint32_t *b)
{
	return a[1] == b[1] && !memcmp(a, b, (2 + (size_t)a[1]) * sizeof(*a));
}

/* " level L range LOW[ - HIGH]" (MLS policies) */
static void user_mls(struct emit *e, uint32_t v)
{
	const uint32_t *lv[3];
	if (!(e->k->config & 1) || !policy_user_levels(e->k, v, lv))
		return;
	sb_put(&e->b, " level ");
	level_str(e, lv[2]);
	sb_put(&e->b, " range ");
	level_str(e, lv[0]);
	if (!same_level(lv[0], lv[1])) {
		sb_put(&e->b, " - ");
		level_str(e, lv[1]);
	}
}

/* user NAME roles R; / roles { R... };, MLS policies' levels before the ; */
static int emit_users(struct emit *e, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->nusers; v++) {
		if (!k->user_name[v])
			continue;
		if (expand) {
			const char **names;
			size_t n = policy_pair_names(k, &k->user_roles, v, k->role_name, k->nroles, &names);
			if (!names)
				return -ENOMEM;
			sb_put(&e->b, "user %s roles", k->user_name[v]);
			sb_set(&e->b, names, n);
			user_mls(e, v);
			sb_put(&e->b, ";");
			sp_free(k->alloc, names, ((size_t)k->user_roles.n + 1) * sizeof(char *));
		}
		rc = emit_one(e, k->user_name[v], v);
	}
	return rc;
}

static int emit_bools(struct emit *e, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->nbools; v++) {
		if (!k->bool_name[v])
			continue;
		if (expand)
			sb_put(&e->b, "bool %s %s;", k->bool_name[v], k->bool_default[v] ? "true" : "false");
		rc = emit_one(e, k->bool_name[v], v);
	}
	return rc;
}

/* The names of the permissions of mask in pc, sorted, each after "\n\t". */
static void perm_lines(struct emit *e, const struct policy_class *pc, uint32_t mask)
{
	size_t n = 0;
	for (unsigned b = 0; b < 32; b++)
		if ((mask >> b & 1) && pc->perm[b])
			e->tmp[n++] = pc->perm[b];
	qsort(e->tmp, n, sizeof(*e->tmp), names_cmp);
	for (size_t i = 0; i < n; i++)
		sb_put(&e->b, "\n\t%s", e->tmp[i]);
}

/* class NAME\n[inherits COMMON\n][{\n\tPERM...\n}] ; common NAME\n{\n\tPERM...\n} */
static int emit_classes(struct emit *e, int commons, int expand)
{
	const struct policy_core *k = e->k;
	uint32_t n = commons ? k->ncommons : k->nclasses;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= n; v++) {
		const struct policy_class *pc = commons ? &k->commons[v] : &k->cls[v];
		if (!pc->name)
			continue;
		if (expand) {
			sb_put(&e->b, "%s %s\n", commons ? "common" : "class", pc->name);
			if (pc->common)
				sb_put(&e->b, "inherits %s\n", k->commons[pc->common].name);
			if (commons || pc->own) {
				sb_put(&e->b, "{");
				perm_lines(e, pc, pc->own);
				sb_put(&e->b, "\n}");
			}
		}
		rc = emit_one(e, pc->name, v);
	}
	return rc;
}

/* sensitivity / category NAME[ alias ...]; in file order; the caller sorts by value */
static int emit_mls(struct emit *e, int cats, int expand)
{
	const struct policy_core *k = e->k;
	const struct policy_mls_sym *m = cats ? k->cats : k->sens;
	uint32_t n = cats ? k->ncats : k->nsens;
	unsigned size = table_size(16, n);	/* libsepol's symtab_sizes[SYM_LEVELS], [SYM_CATS] */
	int rc = 0;
	for (uint32_t i = 0; !rc && i < n; i++) {
		if (m[i].alias)
			continue;
		if (expand) {
			size_t na = 0;
			for (uint32_t j = 0; j < n; j++) {
				if (!m[j].alias || m[j].value != m[i].value)
					continue;
				size_t x = na++;
				for (; x > 0 && hash_before(m[j].name, e->tmp[x - 1], size); x--)
					e->tmp[x] = e->tmp[x - 1];
				e->tmp[x] = m[j].name;
			}
			sb_put(&e->b, "%s %s", cats ? "category" : "sensitivity", m[i].name);
			if (na == 1)
				sb_put(&e->b, " alias %s", e->tmp[0]);
			else if (na > 1) {
				sb_put(&e->b, " alias {");
				for (size_t x = 0; x < na; x++)
					sb_put(&e->b, " %s", e->tmp[x]);
				sb_put(&e->b, " }");
			}
			sb_put(&e->b, ";");
		}
		rc = emit_one(e, m[i].name, m[i].value);
	}
	return rc;
}

static int emit_polcaps(struct emit *e, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k->ncaps; i++) {
		const char *name = k->caps[i] < SP_ARRAY_SIZE(polcap_names) ? polcap_names[k->caps[i]]
									    : "None";
		if (expand)
			sb_put(&e->b, "policycap %s;", name);
		rc = emit_one(e, name, k->caps[i]);
	}
	return rc;
}

/* setools' SELINUX_SIDNAMES (a binary policy names no initial SID) */
static const char *const sid_names[] = {
	"undefined", "kernel", "security", "unlabeled", "fs", "file", "file_labels", "init",
	"any_socket", "port", "netif", "netmsg", "node", "igmp_packet", "icmp_socket",
	"tcp_socket", "sysctl_modprobe", "sysctl", "sysctl_fs", "sysctl_kernel", "sysctl_net",
	"sysctl_net_unix", "sysctl_vm", "sysctl_dev", "kmod", "policy", "scmp_packet", "devnull",
};

/* user:role:type[:range] (the range on MLS policies) of the context at ctxv offset off */
static void context_str(struct emit *e, uint32_t off)
{
	const struct policy_core *k = e->k;
	const uint32_t *v = k->ctxv.v + off;
	sb_put(&e->b, "%s:%s:%s", k->user_name[v[0]] ? k->user_name[v[0]] : "?",
	       k->role_name[v[1]] ? k->role_name[v[1]] : "?",
	       k->type_name[v[2]] ? k->type_name[v[2]] : "?");
	if (!(k->config & 1) || k->version < 19)
		return;
	const uint32_t *low = v + 3, *high = low + 2 + low[1];
	sb_put(&e->b, ":");
	level_str(e, low);
	if (!same_level(low, high)) {
		sb_put(&e->b, " - ");
		level_str(e, high);
	}
}

/* genfscon's file type spelling by the record's class name (setools' _filetype_to_text) */
static const char *genfs_filetype(const struct policy_core *k, uint32_t cls)
{
	static const char *const map[][2] = {
		{ "dir", "-d" }, { "file", "--" }, { "lnk_file", "-l" }, { "fifo_file", "-p" },
		{ "sock_file", "-s" }, { "blk_file", "-b" }, { "chr_file", "-c" },
	};
	if (!cls || cls > k->nclasses || !k->cls[cls].name)
		return "";
	for (size_t i = 0; i < SP_ARRAY_SIZE(map); i++)
		if (!strcmp(k->cls[cls].name, map[i][0]))
			return map[i][1];
	return "";
}

static const char *port_protocol(uint32_t p)
{
	return p == 6 ? "tcp" : p == 17 ? "udp" : p == 33 ? "dccp" : p == 132 ? "sctp" : "?";
}

/* One ocontext record's statement (fs_use, genfscon, netifcon, portcon; isid: sid NAME CTX) */
static void ocon_stmt(struct emit *e, const struct policy_ocon *o)
{
	static const char *const fsuse[] = { "?", "fs_use_xattr", "fs_use_trans", "fs_use_task" };
	switch (o->kind) {
	case 0:
		sb_put(&e->b, "sid %s ", o->f[0] < SP_ARRAY_SIZE(sid_names) ? sid_names[o->f[0]] : "?");
		break;
	case 2:
		sb_put(&e->b, "portcon %s %u", port_protocol(o->f[0]), o->f[1]);
		if (o->f[2] != o->f[1])
			sb_put(&e->b, "-%u", o->f[2]);
		sb_put(&e->b, " ");
		break;
	case 3:
		sb_put(&e->b, "netifcon %s ", o->name);
		break;
	case 5:
		sb_put(&e->b, "%s %s ", o->f[0] < SP_ARRAY_SIZE(fsuse) ? fsuse[o->f[0]] : "?", o->name);
		break;
	default:
		sb_put(&e->b, "genfscon %s %s %s ", o->name, o->path, genfs_filetype(e->k, o->f[0]));
		break;
	}
	context_str(e, o->ctx[0]);
	if (o->ctx[1] != UINT32_MAX) {
		sb_put(&e->b, " ");
		context_str(e, o->ctx[1]);
	}
	if (o->kind == 5)
		sb_put(&e->b, ";");
}

/* Records of one kind.  The item's name is its statement (setools sorts these by their text)
 * but for initial SIDs, named by setools' table. */
static int emit_ocons(struct emit *e, uint32_t kind, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k->nocon; i++) {
		const struct policy_ocon *o = &k->ocon[i];
		if (o->kind != kind)
			continue;
		ocon_stmt(e, o);
		if (kind == 0) {
			const char *name = o->f[0] < SP_ARRAY_SIZE(sid_names) ? sid_names[o->f[0]] : "?";
			if (!expand && e->b.s)
				e->b.s[e->b.n = 0] = 0;
			rc = emit_one(e, name, o->f[0]);
		} else {
			rc = e->b.err ? e->b.err : e->fn(e->ud, e->b.s, i, e->b.s);
			e->b.n = 0;
		}
	}
	return rc;
}

static int emit_component(struct emit *e, enum sp_policy_component c, int expand)
{
	switch (c) {
	case SP_COMP_TYPES: return emit_types(e, 0, 0, expand);
	case SP_COMP_ATTRIBUTES: return emit_types(e, 1, 0, expand);
	case SP_COMP_PERMISSIVE: return emit_types(e, 0, 1, expand);
	case SP_COMP_ROLES: return emit_roles(e, expand);
	case SP_COMP_USERS: return emit_users(e, expand);
	case SP_COMP_BOOLS: return emit_bools(e, expand);
	case SP_COMP_CLASSES: return emit_classes(e, 0, expand);
	case SP_COMP_COMMONS: return emit_classes(e, 1, expand);
	case SP_COMP_SENSITIVITIES: return emit_mls(e, 0, expand);
	case SP_COMP_CATEGORIES: return emit_mls(e, 1, expand);
	case SP_COMP_POLCAPS: return emit_polcaps(e, expand);
	case SP_COMP_FS_USE: return emit_ocons(e, 5, expand);
	case SP_COMP_GENFSCON: return emit_ocons(e, POLICY_OCON_GENFS, expand);
	case SP_COMP_INITIALSIDS: return emit_ocons(e, 0, expand);
	case SP_COMP_NETIFCON: return emit_ocons(e, 3, expand);
	case SP_COMP_PORTCON: return emit_ocons(e, 2, expand);
	}
	return -EINVAL;
}

SP_API int sp_policy_component_foreach(const struct sp_policy *p, enum sp_policy_component c,
				       int expand,
				       int (*fn)(void *ud, const char *name, uint32_t value,
						 const char *statement),
				       void *ud)
{
	const struct policy_core *k = p->core;
	if (!fn || (unsigned)c >= SP_COMP_N)
		return -EINVAL;
	size_t ntmp = (size_t)k->ntypes + k->ntype_ix + k->nsens + k->ncats + 64;
	struct emit e = { .k = k, .b = { .a = k->alloc }, .fn = fn, .ud = ud };
	e.tmp = sp_alloc(k->alloc, ntmp * sizeof(char *), 0);
	if (!e.tmp)
		return -ENOMEM;
	int rc = emit_component(&e, c, expand);
	sp_free(k->alloc, e.tmp, ntmp * sizeof(char *));
	sp_free(k->alloc, e.b.s, e.b.cap);
	return rc;
}

SP_API int sp_policy_range_format(const struct sp_policy *p, const uint32_t *low,
				  const uint32_t *high, char *buf, size_t len)
{
	struct emit e = { .k = p->core, .b = { .a = p->core->alloc } };
	level_str(&e, low);
	if (!same_level(low, high)) {
		sb_put(&e.b, " - ");
		level_str(&e, high);
	}
	int n = e.b.err ? e.b.err : snprintf(buf, len, "%s", e.b.s ? e.b.s : "");
	sp_free(e.b.a, e.b.s, e.b.cap);
	return n;
}
