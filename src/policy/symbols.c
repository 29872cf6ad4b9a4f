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
 * The statement-named listings (ocontexts, typebounds, defaults, constraints) are setools'
 * statement() texts: a nodecon's network as Python's ipaddress writes it (the mask's set bits
 * as the prefix, host bits cleared), a constraint's postfix expression in setools' infix form
 * (cexpr_infix).  A NAME criterion (sp_policy_component_find) is checked per item before its
 * statement is built; NAMEs that are not names (ports, networks) are parsed once, and a class
 * NAME must name a class (setools looks it up).
 * Each statement is built in a buffer that grows with it: O(statement) memory, O(table) time
 * per item at most (aliases and pair lists are scanned once per item; a constraint's stack holds
 * two operands per node).
 */
#include <arpa/inet.h>
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

/* The type an index entry is an alias of (a name not the type's own), else 0. */
static uint32_t alias_of(const struct policy_core *k, const struct policy_name_ix *e)
{
	return e->value && e->value <= k->ntypes && e->name != k->type_name[e->value] ? e->value
										     : 0;
}

int policy_aliases_new(const struct policy_core *k, struct policy_aliases *a)
{
	unsigned size = table_size(512, k->ntype_ix);	/* libsepol's symtab_sizes[SYM_TYPES] */
	size_t nv = (size_t)k->ntypes + 2;
	*a = (struct policy_aliases){ .off = sp_zalloc(k->alloc, nv * sizeof(*a->off), 0) };
	if (!a->off)
		return -ENOMEM;
	for (uint32_t i = 0; i < k->ntype_ix; i++)	/* counts, then ends, by value */
		a->off[alias_of(k, &k->type_ix[i])]++;
	a->off[0] = 0;	/* it counted the entries that are no alias */
	for (size_t v = 1; v < nv; v++)
		a->off[v] += a->off[v - 1];
	a->n = a->off[nv - 1];
	if (!(a->name = sp_alloc(k->alloc, (a->n + 1) * sizeof(*a->name), 0))) {
		policy_aliases_free(k, a);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < k->ntype_ix; i++) {	/* each end moves back to its start */
		uint32_t v = alias_of(k, &k->type_ix[i]);
		if (v)
			a->name[--a->off[v]] = k->type_ix[i].name;
	}
	for (size_t v = 1; v + 1 < nv; v++)	/* each type's aliases in hash table order */
		for (uint32_t i = a->off[v] + 1; i < a->off[v + 1]; i++) {
			const char *x = a->name[i];
			uint32_t j = i;
			for (; j > a->off[v] && hash_before(x, a->name[j - 1], size); j--)
				a->name[j] = a->name[j - 1];
			a->name[j] = x;
		}
	return 0;
}

void policy_aliases_free(const struct policy_core *k, struct policy_aliases *a)
{
	sp_free(k->alloc, a->off, ((size_t)k->ntypes + 2) * sizeof(*a->off));
	sp_free(k->alloc, a->name, (a->n + 1) * sizeof(*a->name));
	*a = (struct policy_aliases){ 0 };
}

/* libsepol 3.4's capability names by bit (a later bit has no name there) */
static const char *const polcap_names[] = {
	"network_peer_controls", "open_perms", "extended_socket_class", "always_check_network",
	"cgroup_seclabel", "nnp_nosuid_transition", "genfs_seclabel_symlinks",
	"ioctl_skip_cloexec",
};

const char *policy_polcap_name(uint32_t bit)
{
	return bit < SP_ARRAY_SIZE(polcap_names) ? polcap_names[bit] : "None";
}

struct emit {
	const struct policy_core *k;
	struct sbuf b;
	const char **tmp;		/* scratch names: every type entry, role, user, MLS symbol */
	struct policy_aliases aliases;	/* the types' (component listings) */
	int (*fn)(void *ud, const char *name, uint32_t value, const char *statement);
	void *ud;
	const char *match;		/* the NAME criterion (NULL: every item) */
	uint32_t lo, hi;		/* portcon: the port range NAME gives */
	uint32_t net[4], nbits, v6;	/* nodecon: the network NAME gives (network byte order) */
};

/* The item named `name` passes the NAME criterion. */
static int wanted(const struct emit *e, const char *name)
{
	return !e->match || (name && !strcmp(name, e->match));
}

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
	const char *const *al;
	size_t na = policy_aliases_of(&e->aliases, v, &al);
	sb_put(&e->b, "type %s", k->type_name[v]);
	if (na == 1)
		sb_put(&e->b, " alias %s", al[0]);
	else if (na > 1) {
		sb_put(&e->b, " alias {");
		for (size_t i = 0; i < na; i++)
			sb_put(&e->b, " %s", al[i]);
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

/* Type v is named NAME or has it as an alias (setools' alias_deref): set_match resolved NAME
 * to the value of its entry (e->lo, 0 for none). */
static int type_wanted(const struct emit *e, uint32_t v)
{
	return !e->match || e->lo == v;
}

static int emit_types(struct emit *e, int attrs, int permissive, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->ntypes; v++) {
		uint8_t f = k->type_flags[v];
		if (!(f & 4) || !(f & 1) != !attrs || (permissive && !(f & 2)))
			continue;
		if (!(attrs || permissive ? wanted(e, k->type_name[v]) : type_wanted(e, v)))
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
		if (!k->role_name[v] || !wanted(e, k->role_name[v]))
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
	if (!policy_level_equal(lv[0], lv[1])) {
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
		if (!k->user_name[v] || !wanted(e, k->user_name[v]))
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
		if (!k->bool_name[v] || !wanted(e, k->bool_name[v]))
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
		if (!pc->name || !wanted(e, pc->name))
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
		int want = wanted(e, m[i].name);	/* or an alias's name (setools' alias_deref) */
		for (uint32_t j = 0; !want && j < n; j++)
			want = m[j].value == m[i].value && !strcmp(m[j].name, e->match);
		if (!want)
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
		const char *name = policy_polcap_name(k->caps[i]);
		if (!wanted(e, name))
			continue;
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
	if (!policy_level_equal(low, high)) {
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

/* Byte i of an address the reader kept as little-endian words of network-order bytes. */
static unsigned addr_byte(const uint32_t *w, unsigned i)
{
	return w[i / 4] >> (8 * (i % 4)) & 0xff;
}

/* The first nbits bits set, as such words (nw of them). */
static void prefix_mask(uint32_t *w, unsigned nw, unsigned nbits)
{
	for (unsigned i = 0; i < nw; i++) {
		w[i] = 0;
		for (unsigned b = 0; b < 4; b++, nbits = nbits > 8 ? nbits - 8 : 0)
			w[i] |= (uint32_t)(nbits >= 8 ? 0xff : (0xff00u >> nbits) & 0xff) << (8 * b);
	}
}

/* An address as Python's ipaddress writes it: dotted quad, or IPv6 hextets with the first
 * longest run (two or more) of zero hextets as "::". */
static void addr_str(struct sbuf *b, const uint32_t *w, int v6)
{
	if (!v6) {
		sb_put(b, "%u.%u.%u.%u", addr_byte(w, 0), addr_byte(w, 1), addr_byte(w, 2),
		       addr_byte(w, 3));
		return;
	}
	unsigned h[8], best = 0, bestlen = 0, run = 0;
	for (unsigned i = 0; i < 8; i++) {
		h[i] = addr_byte(w, 2 * i) << 8 | addr_byte(w, 2 * i + 1);
		run = h[i] ? 0 : run + 1;
		if (run > bestlen) {
			bestlen = run;
			best = i + 1 - run;
		}
	}
	if (bestlen < 2)
		best = 8;
	for (unsigned i = 0; i < 8; i++) {
		if (i == best) {
			sb_put(b, "%s:", i ? "" : ":");
			i += bestlen - 1;
			continue;
		}
		sb_put(b, "%x%s", h[i], i < 7 ? ":" : "");
	}
}

static unsigned popcount_words(const uint32_t *w, unsigned nw)
{
	unsigned n = 0;
	for (unsigned i = 0; i < nw; i++)
		n += (unsigned)__builtin_popcount(w[i]);
	return n;
}

/* nodecon's network as setools makes it: the mask's set bits as the prefix length, the
 * address's host bits cleared (ip_network(strict=False)); net gets the network, mask the
 * prefix's mask; returns the prefix length. */
static unsigned node_network(const struct policy_ocon *o, uint32_t net[4], uint32_t mask[4])
{
	unsigned nw = o->kind == 6 ? 4 : 1, nbits = popcount_words(o->f + nw, nw);
	prefix_mask(mask, nw, nbits);
	for (unsigned i = 0; i < nw; i++)
		net[i] = o->f[i] & mask[i];
	return nbits;
}

/* The ocontext's own part of its statement (before the context). */
static void ocon_head(struct emit *e, const struct policy_ocon *o)
{
	static const char *const fsuse[] = { "?", "fs_use_xattr", "fs_use_trans", "fs_use_task" };
	uint32_t net[4], mask[4];
	switch (o->kind) {
	case 0:
		sb_put(&e->b, "sid %s ", o->f[0] < SP_ARRAY_SIZE(sid_names) ? sid_names[o->f[0]] : "?");
		break;
	case 2:
	case 7:
		if (o->kind == 2)
			sb_put(&e->b, "portcon %s %u", port_protocol(o->f[0]), o->f[1]);
		else {
			uint32_t pre[4] = { o->f[0], o->f[1], 0, 0 };
			sb_put(&e->b, "ibpkeycon ");
			addr_str(&e->b, pre, 1);
			sb_put(&e->b, " %#x", o->f[2]);
		}
		if (o->f[o->kind == 2 ? 2 : 3] != o->f[o->kind == 2 ? 1 : 2])
			sb_put(&e->b, o->kind == 2 ? "-%u" : "-%#x", o->f[o->kind == 2 ? 2 : 3]);
		sb_put(&e->b, " ");
		break;
	case 3:
		sb_put(&e->b, "netifcon %s ", o->name);
		break;
	case 4:
	case 6:
		node_network(o, net, mask);
		sb_put(&e->b, "nodecon ");
		addr_str(&e->b, net, o->kind == 6);
		sb_put(&e->b, " ");
		addr_str(&e->b, mask, o->kind == 6);
		sb_put(&e->b, " ");
		break;
	case 5:
		sb_put(&e->b, "%s %s ", o->f[0] < SP_ARRAY_SIZE(fsuse) ? fsuse[o->f[0]] : "?", o->name);
		break;
	case 8:
		sb_put(&e->b, "ibendportcon %s %u ", o->name, o->f[0]);
		break;
	default:
		sb_put(&e->b, "genfscon %s %s %s ", o->name, o->path, genfs_filetype(e->k, o->f[0]));
		break;
	}
}

/* One ocontext record's statement: its head, its contexts (netifcon: two). */
static void ocon_stmt(struct emit *e, const struct policy_ocon *o)
{
	ocon_head(e, o);
	context_str(e, o->ctx[0]);
	if (o->ctx[1] != UINT32_MAX) {
		sb_put(&e->b, " ");
		context_str(e, o->ctx[1]);
	}
	if (o->kind == 5)
		sb_put(&e->b, ";");
}

/* Part `part` of ocontext record i, as sediff writes it, into buf (snprintf's contract):
 * POLICY_OCON_KEY what sediff matches records by and names a modified one by (an initial SID's
 * or a netifcon's name, else the statement's head without its last blank), _CTX and _CTX2 its
 * contexts (the second: netifcon's packet context, "" for the others), _STMT its statement.
 * Returns the text's length, or -ENOMEM. */
int policy_ocon_format(const struct policy_core *k, uint32_t i, int part, char *buf, size_t len)
{
	const struct policy_ocon *o = &k->ocon[i];
	struct emit e = { .k = k, .b = { .a = k->alloc } };
	if (part == POLICY_OCON_CTX || (part == POLICY_OCON_CTX2 && o->ctx[1] != UINT32_MAX))
		context_str(&e, o->ctx[part == POLICY_OCON_CTX ? 0 : 1]);
	else if (part == POLICY_OCON_STMT)
		ocon_stmt(&e, o);
	else if (part == POLICY_OCON_KEY && o->kind == 0)
		sb_put(&e.b, "%s", o->f[0] < SP_ARRAY_SIZE(sid_names) ? sid_names[o->f[0]] : "?");
	else if (part == POLICY_OCON_KEY && o->kind == 3)
		sb_put(&e.b, "%s", o->name);
	else if (part == POLICY_OCON_KEY) {
		ocon_head(&e, o);
		if (e.b.n)
			e.b.s[--e.b.n] = 0;	/* every head ends with one blank */
	}
	int n = e.b.err ? e.b.err : snprintf(buf, len, "%s", e.b.s ? e.b.s : "");
	sp_free(e.b.a, e.b.s, e.b.cap);
	return n;
}

/* The record passes the NAME criterion of its kind: setools' fs (fs_use, genfscon), name
 * (isid, netifcon, ibendportcon), ports (portcon: the range NAME gives lies within the
 * record's), pkeys (ibpkeycon: equal) or network (nodecon: equal). */
static int ocon_wanted(const struct emit *e, const struct policy_ocon *o)
{
	uint32_t net[4], mask[4];
	if (!e->match)
		return 1;
	switch (o->kind) {
	case 0:
		return wanted(e, o->f[0] < SP_ARRAY_SIZE(sid_names) ? sid_names[o->f[0]] : "?");
	case 2:
		return o->f[1] <= e->lo && e->hi <= o->f[2];
	case 7:
		return o->f[2] == e->lo && o->f[3] == e->hi;
	case 4:
	case 6:
		if (!e->v6 != (o->kind == 4) || node_network(o, net, mask) != e->nbits)
			return 0;
		return !memcmp(net, e->net, (o->kind == 6 ? 4 : 1) * sizeof(*net));
	default:
		return wanted(e, o->name);
	}
}

/* Records of one kind (node: node and node6).  The item's name is its statement (setools sorts
 * these by their text) but for initial SIDs, named by setools' table. */
static int emit_ocons(struct emit *e, uint32_t kind, int expand)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k->nocon; i++) {
		const struct policy_ocon *o = &k->ocon[i];
		if ((o->kind != kind && !(kind == 4 && o->kind == 6)) || !ocon_wanted(e, o))
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

/* An item named by its statement (setools sorts these by their text). */
static int emit_stmt(struct emit *e, uint32_t value)
{
	int rc = e->b.err ? e->b.err : e->fn(e->ud, e->b.s ? e->b.s : "", value, e->b.s ? e->b.s : "");
	e->b.n = 0;
	return rc;
}

/* typebounds PARENT CHILD; for each bounded type entry (NAME: the child) */
static int emit_bounds(struct emit *e)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k->type_bounds.n; i++) {
		uint32_t v = k->type_bounds.v[2 * i], b = k->type_bounds.v[2 * i + 1];
		const char *child = v <= k->ntypes ? k->type_name[v] : NULL;
		const char *parent = b <= k->ntypes ? k->type_name[b] : NULL;
		if (!wanted(e, child))
			continue;
		sb_put(&e->b, "typebounds %s %s;", parent ? parent : "?", child ? child : "?");
		rc = emit_stmt(e, i);
	}
	return rc;
}

const char *policy_default_text(unsigned j, uint32_t d)
{
	static const char *const range[] = { "", "source low", "source high", "source low_high",
					     "target low", "target high", "target low_high",
					     "glblub" };
	if (j == 3)
		return d < SP_ARRAY_SIZE(range) ? range[d] : "?";
	return d == 1 ? "source" : d == 2 ? "target" : d == 7 ? "glblub" : "?";
}

/* default_user/_role/_type CLASS source|target; default_range CLASS source|target
 * low|high|low_high; or default_range CLASS glblub; (NAME: the class) */
static int emit_defaults(struct emit *e)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t v = 1; !rc && v <= k->nclasses; v++) {
		const struct policy_class *pc = &k->cls[v];
		if (!pc->name || !wanted(e, pc->name))
			continue;
		for (unsigned j = 0; !rc && j < 4; j++) {
			if (!pc->defaults[j])
				continue;
			sb_put(&e->b, "default_%s %s %s;", policy_default_kind(j), pc->name,
			       policy_default_text(j, pc->defaults[j]));
			rc = emit_stmt(e, v);
		}
	}
	return rc;
}

/* setools' operand names by a constraint node's attr (CEXPR_USER 1 .. CEXPR_L2H2 1024, + 8
 * CEXPR_TARGET, + 16 CEXPR_XTARGET) */
static const char *cexpr_sym(uint32_t attr)
{
	static const struct { uint32_t a; const char *s; } t[] = {
		{ 1, "u1" }, { 2, "r1" }, { 4, "t1" }, { 9, "u2" }, { 10, "r2" }, { 12, "t2" },
		{ 17, "u3" }, { 18, "r3" }, { 20, "t3" }, { 32, "l1" }, { 64, "l1" }, { 128, "h1" },
		{ 256, "h1" }, { 512, "l1" }, { 1024, "l2" }, { 40, "l2" }, { 72, "h2" },
		{ 136, "l2" }, { 264, "h2" }, { 520, "h1" }, { 1032, "h2" },
	};
	for (size_t i = 0; i < SP_ARRAY_SIZE(t); i++)
		if (t[i].a == attr)
			return t[i].s;
	return "?";
}

/* A names node's set as setools' ConstraintExpression writes it: "{ A B } " (the trailing
 * space is setools'), one name alone, nothing for none; names sorted (setools' order is its
 * frozenset's, which varies with Python's string hashing). */
static void cexpr_set(struct emit *e, const struct policy_cexpr *x, struct sbuf *out)
{
	const struct policy_core *k = e->k;
	const char *const *names = (x->attr & 4) ? k->type_name : (x->attr & 2) ? k->role_name
									    : k->user_name;
	uint32_t lim = (x->attr & 4) ? k->ntypes : (x->attr & 2) ? k->nroles : k->nusers;
	size_t n = 0;
	for (uint32_t i = 0; i < x->nnames; i++) {
		uint32_t v = k->cnames.v[x->names_off + i];
		if (v <= lim && names[v])
			e->tmp[n++] = names[v];
	}
	if (n > 1) {
		sb_set(out, e->tmp, n);
		sb_put(out, " ");
	} else if (n == 1) {
		sb_put(out, " %s", e->tmp[0]);
	} else {
		sb_put(out, " ");
	}
}

/*
 * A postfix expression in setools' infix form (ConstraintExpression.infix and __str__): each
 * node is its postfix tokens (operand, operand, operator), an operator wraps its operands in
 * parentheses unless its precedence is below the previous operator's (one running value over
 * the whole expression, as setools keeps it), `not` always; tokens joined by one space.
 * stack holds nexpr * 2 + 1 buffers (two operands per node at most): each entry is its text
 * with a leading space.
 */
static int cexpr_infix(struct emit *e, const struct policy_constraint *c, struct sbuf *stack)
{
	static const char *const ops[] = { "?", "==", "!=", "dom", "domby", "incomp" };
	static const char *const logic[] = { "?", "not", "and", "or" };
	size_t sp = 0;
	int prev = 4;		/* precedence: not 4, comparisons 3, and 2, or 1 */
	for (uint32_t j = 0; j < c->nexpr; j++) {
		const struct policy_cexpr *x = &e->k->cex[c->expr_off + j];
		const char *op;
		int prec;
		if (x->type >= 4) {
			sb_put(&stack[sp++], " %s", cexpr_sym(x->attr));
			if (x->type == 4)
				sb_put(&stack[sp++], " %s", cexpr_sym(x->attr + 8));
			else
				cexpr_set(e, x, &stack[sp++]);
			op = x->op < SP_ARRAY_SIZE(ops) ? ops[x->op] : "?";
			prec = 3;
		} else {
			op = logic[x->type];
			prec = x->type == 1 ? 4 : x->type == 2 ? 2 : 1;
		}
		struct sbuf *a = &stack[sp - (x->type == 1 ? 1 : 2)], *b = a + 1;
		struct sbuf r = { .a = e->b.a };
		if (x->type == 1)
			sb_put(&r, " not (%s )", a->s);
		else if (prec < prev)
			sb_put(&r, "%s %s%s", a->s, op, b->s);
		else
			sb_put(&r, " (%s %s%s )", a->s, op, b->s);
		prev = prec;
		if (x->type != 1) {
			sp--;
			sp_free(b->a, b->s, b->cap);
			*b = (struct sbuf){ .a = e->b.a };
		}
		sp_free(a->a, a->s, a->cap);
		*a = r;
		if (r.err)
			return r.err;
	}
	return sp == 1 ? 0 : -EINVAL;
}

/* [mls]constrain CLASS PERMS (EXPR); (setools' trailing space) or [mls]validatetrans CLASS
 * (EXPR); for each kept constraint of the kind (NAME: the class) */
static int emit_constraints(struct emit *e, int validatetrans)
{
	const struct policy_core *k = e->k;
	int rc = 0;
	for (uint32_t i = 0; !rc && i < k->ncons; i++) {
		const struct policy_constraint *c = &k->cons[i];
		const struct policy_class *pc = c->cls <= k->nclasses ? &k->cls[c->cls] : NULL;
		if (c->validatetrans != validatetrans || !pc || !wanted(e, pc->name))
			continue;
		size_t ns = 2 * (size_t)c->nexpr + 1;
		struct sbuf *stack = sp_zalloc(k->alloc, ns * sizeof(*stack), 0);
		if (!stack)
			return -ENOMEM;
		for (size_t j = 0; j < ns; j++)
			stack[j].a = k->alloc;
		rc = cexpr_infix(e, c, stack);
		sb_put(&e->b, "%s%s %s", c->mls ? "mls" : "", validatetrans ? "validatetrans"
									: "constrain", pc->name);
		if (!validatetrans) {
			size_t n = 0;
			for (unsigned b = 0; b < 32; b++)
				if ((c->perms >> b & 1) && pc->perm[b])
					e->tmp[n++] = pc->perm[b];
			if (n)
				sb_set(&e->b, e->tmp, n);
		}
		sb_put(&e->b, " (%s);%s", stack[0].s ? stack[0].s + 1 : "", validatetrans ? "" : " ");
		for (size_t j = 0; j < ns; j++)
			sp_free(k->alloc, stack[j].s, stack[j].cap);
		sp_free(k->alloc, stack, ns * sizeof(*stack));
		if (!rc)
			rc = emit_stmt(e, i);
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
	case SP_COMP_NODECON: return emit_ocons(e, 4, expand);
	case SP_COMP_IBPKEYCON: return emit_ocons(e, 7, expand);
	case SP_COMP_IBENDPORTCON: return emit_ocons(e, 8, expand);
	case SP_COMP_TYPEBOUNDS: return emit_bounds(e);
	case SP_COMP_DEFAULTS: return emit_defaults(e);
	case SP_COMP_CONSTRAINTS: return emit_constraints(e, 0);
	case SP_COMP_VALIDATETRANS: return emit_constraints(e, 1);
	}
	return -EINVAL;
}

/* "N" or "N-M" (base 10 or, for pkeys, 16) into lo, hi: 0, or -EINVAL. */
static int parse_range(const char *s, int base, uint32_t *lo, uint32_t *hi)
{
	char *end;
	unsigned long a = strtoul(s, &end, base), b = a;
	if (end == s || (*s < '0' || *s > '9'))
		return -EINVAL;
	if (*end == '-') {
		const char *t = end + 1;
		b = strtoul(t, &end, base);
		if (end == t || *t < '0' || *t > '9')
			return -EINVAL;
	}
	if (*end || a > UINT32_MAX || b > UINT32_MAX)
		return -EINVAL;
	*lo = (uint32_t)a;
	*hi = (uint32_t)b;
	return 0;
}

/* ADDR[/PREFIX] into e's network: 0, -EINVAL (not an address), -EDOM (host bits set). */
static int parse_network(struct emit *e, const char *s)
{
	char a[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n >= sizeof(a))
		return -EINVAL;
	memcpy(a, s, n);
	a[n] = 0;
	unsigned char bytes[16];
	e->v6 = strchr(a, ':') != NULL;
	if (inet_pton(e->v6 ? AF_INET6 : AF_INET, a, bytes) != 1)
		return -EINVAL;
	unsigned nw = e->v6 ? 4 : 1, max = 32 * nw;
	e->nbits = max;
	if (slash) {
		char *end;
		unsigned long p = strtoul(slash + 1, &end, 10);
		if (end == slash + 1 || *end || p > max)
			return -EINVAL;
		e->nbits = (uint32_t)p;
	}
	uint32_t mask[4];
	prefix_mask(mask, nw, e->nbits);
	for (unsigned i = 0; i < nw; i++) {
		e->net[i] = 0;
		for (unsigned b = 0; b < 4; b++)
			e->net[i] |= (uint32_t)bytes[4 * i + b] << (8 * b);
		if (e->net[i] & ~mask[i])
			return -EDOM;
	}
	return 0;
}

/* The NAME criterion of component c into e: 0, -EINVAL / -EDOM (a bad port range or
 * network), -ENOENT (constraints, validatetrans, defaults: no such class). */
static int set_match(struct emit *e, enum sp_policy_component c, const char *name)
{
	e->match = name;
	if (!name)
		return 0;
	switch (c) {
	case SP_COMP_TYPES:
		e->lo = 0;
		for (uint32_t i = 0; i < e->k->ntype_ix; i++)
			if (!strcmp(e->k->type_ix[i].name, name))
				e->lo = e->k->type_ix[i].value;
		return 0;
	case SP_COMP_PORTCON: return parse_range(name, 10, &e->lo, &e->hi);
	case SP_COMP_IBPKEYCON: return parse_range(name, 16, &e->lo, &e->hi);
	case SP_COMP_NODECON: return parse_network(e, name);
	case SP_COMP_CONSTRAINTS:
	case SP_COMP_VALIDATETRANS:
	case SP_COMP_DEFAULTS:
		for (uint32_t v = 1; v <= e->k->nclasses; v++)
			if (e->k->cls[v].name && !strcmp(e->k->cls[v].name, name))
				return 0;
		return -ENOENT;
	default:
		return 0;
	}
}

SP_API int sp_policy_component_find(const struct sp_policy *p, enum sp_policy_component c,
				    const char *name, int expand,
				    int (*fn)(void *ud, const char *name, uint32_t value,
					      const char *statement),
				    void *ud)
{
	const struct policy_core *k = p->core;
	if (!fn || (unsigned)c >= SP_COMP_N)
		return -EINVAL;
	size_t ntmp = (size_t)k->ntypes + k->ntype_ix + k->nsens + k->ncats + k->nusers +
		      k->nroles + 64;
	struct emit e = { .k = k, .b = { .a = k->alloc }, .fn = fn, .ud = ud };
	int rc = set_match(&e, c, name);
	if (rc)
		return rc;
	e.tmp = sp_alloc(k->alloc, ntmp * sizeof(char *), 0);
	if (!e.tmp)
		return -ENOMEM;
	rc = policy_aliases_new(k, &e.aliases);
	if (!rc)
		rc = emit_component(&e, c, expand);
	policy_aliases_free(k, &e.aliases);
	sp_free(k->alloc, e.tmp, ntmp * sizeof(char *));
	sp_free(k->alloc, e.b.s, e.b.cap);
	return rc;
}

SP_API int sp_policy_component_foreach(const struct sp_policy *p, enum sp_policy_component c,
				       int expand,
				       int (*fn)(void *ud, const char *name, uint32_t value,
						 const char *statement),
				       void *ud)
{
	return sp_policy_component_find(p, c, NULL, expand, fn, ud);
}

SP_API int sp_policy_range_format(const struct sp_policy *p, const uint32_t *low,
				  const uint32_t *high, char *buf, size_t len)
{
	struct emit e = { .k = p->core, .b = { .a = p->core->alloc } };
	level_str(&e, low);
	if (!policy_level_equal(low, high)) {
		sb_put(&e.b, " - ");
		level_str(&e, high);
	}
	int n = e.b.err ? e.b.err : snprintf(buf, len, "%s", e.b.s ? e.b.s : "");
	sp_free(e.b.a, e.b.s, e.b.cap);
	return n;
}
