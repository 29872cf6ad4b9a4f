/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * listing.c - what `auditctl -l` prints after `auditctl -R FILE` on an empty kernel rule list:
 * the kernel's side (each AUDIT_ADD_RULE / AUDIT_DEL_RULE judged by the reference engine,
 * -D clearing every list, -e 2 freezing them; AUDIT_LIST_RULES walks the per-list rule lists
 * in list order, each in insertion order with prepended (-A) rules at its head) and auditctl
 * 3.0.9's side (auditctl-listing.c: print_rule, is_watch, key_match, print_syscall), without
 * -i interpretation.
 *
 * Invariants: a listed rule's text is built from the blob the kernel kept, which for every
 * field auditctl emits is the blob that was sent (audit_krule_to_data returns the same fields,
 * values, strings and mask; class bits it expanded are above the 63 mask words auditctl tests);
 * the printing follows auditctl's branches in its order, including its "(null)" for a list or
 * action name its tables lack (io_uring).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "secpath/audit_tools.h"

struct lrule {
	uint32_t list;			/* AUDIT_FILTER_* without the prepend flag */
	size_t len;
	unsigned char *blob;
};

struct listing {
	struct lrule *v;
	size_t n, cap;
};

/* libaudit 3.0.9's flagtab.h and actiontab.h. */
static const char *flag_name(uint32_t flags)
{
	switch (flags) {
	case 1: return "task";
	case 4: return "exit";
	case 0: return "user";
	case 5: return "exclude";
	case 6: return "filesystem";
	default: return NULL;
	}
}

static const char *action_name(uint32_t action)
{
	return action == 0 ? "never" : action == 1 ? "possible" : action == 2 ? "always" : NULL;
}

/* printf's "%s" of a NULL pointer, as glibc prints it. */
static const char *orn(const char *s)
{
	return s ? s : "(null)";
}

struct out {
	char *buf;
	size_t len, cap;
	int overflow;
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	if (o->len >= o->cap) {
		o->overflow = 1;
		return;
	}
	va_start(ap, fmt);
	int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= o->cap - o->len) {
		o->overflow = 1;
		o->len = o->cap;
	} else {
		o->len += (size_t)n;
	}
}

static int no_syscalls(uint32_t list)
{
	return list == 0 || list == 1 || list == 5 || list == 6;
}

static int mask_all(const struct sp_audit_rule *r)
{
	for (unsigned i = 0; i < SP_AUDIT_MASK_WORDS - 1; i++)
		if (r->mask[i] != UINT32_MAX)
			return 0;
	return 1;
}

/* auditctl's is_watch: only perm, key, dir and path fields, a perm among them, every syscall. */
static int is_watch(const struct sp_audit_rule *r)
{
	int perm = 0;
	for (uint32_t i = 0; i < r->field_count; i++) {
		uint32_t f = r->fields[i].id;
		perm |= f == 106;
		if (f != 106 && f != 210 && f != 107 && f != 105)
			return 0;
	}
	return perm && (no_syscalls(r->list) || mask_all(r));
}

static void print_arch(struct out *o, uint32_t value, const char *op)
{
	const char *m = sp_audit_arch_name(value);
	if (!m)
		put(o, " -F arch%s0x%X", op, value);
	else
		put(o, " -F arch%s%s", op, value & 0x80000000u ? "b64" : "b32");
}

static unsigned print_syscalls(struct out *o, const struct sp_audit_rule *r, const char *machine)
{
	unsigned count = 0;
	if (no_syscalls(r->list))
		return 0;
	if (mask_all(r)) {
		put(o, " -S all");
		return SP_AUDIT_MASK_WORDS - 1;
	}
	for (unsigned i = 0; i < SP_AUDIT_MASK_WORDS * 32; i++) {
		if (!(r->mask[i / 32] & (1u << (i % 32))))
			continue;
		const char *name = machine ? sp_audit_syscall_name(machine, (int)i) : NULL;
		if (!count)
			put(o, " -S ");
		if (name)
			put(o, "%s%s", count ? "," : "", name);
		else
			put(o, "%s%u", count ? "," : "", i);
		count++;
	}
	return count;
}

/* -C: the AUDIT_COMPARE_* pairs of auditctl's print_field_cmp (none prints nothing). */
static void print_compare(struct out *o, uint32_t value, const char *op)
{
	static const char *const pairs[][2] = {
		[1] = { "uid", "obj_uid" }, [2] = { "gid", "obj_gid" }, [3] = { "euid", "obj_uid" },
		[4] = { "egid", "obj_gid" }, [5] = { "auid", "obj_uid" }, [6] = { "suid", "obj_uid" },
		[7] = { "sgid", "obj_gid" }, [8] = { "fsuid", "obj_uid" }, [9] = { "fsgid", "obj_gid" },
		[10] = { "uid", "auid" }, [11] = { "uid", "euid" }, [12] = { "uid", "fsuid" },
		[13] = { "uid", "suid" }, [14] = { "auid", "fsuid" }, [15] = { "auid", "suid" },
		[16] = { "auid", "euid" }, [17] = { "euid", "suid" }, [18] = { "euid", "fsuid" },
		[19] = { "suid", "fsuid" }, [20] = { "gid", "egid" }, [21] = { "gid", "fsgid" },
		[22] = { "gid", "sgid" }, [23] = { "egid", "fsgid" }, [24] = { "egid", "sgid" },
		[25] = { "sgid", "fsgid" },
	};
	if (value < sizeof(pairs) / sizeof(pairs[0]) && pairs[value][0])
		put(o, " -C %s%s%s", pairs[value][0], op, pairs[value][1]);
}

static void print_key(struct out *o, const struct sp_audit_field *f, int watch)
{
	char k[SP_AUDIT_MAX_KEY_LEN + 1];
	size_t n = f->value < SP_AUDIT_MAX_KEY_LEN ? f->value : SP_AUDIT_MAX_KEY_LEN;
	memcpy(k, f->str, n);
	k[n] = 0;
	char *save, *p = strtok_r(k, "\x01", &save);	/* empty pieces are skipped, as strtok does */
	for (; p; p = strtok_r(NULL, "\x01", &save))
		put(o, watch ? " -k %s" : " -F key=%s", p);
}

static void print_perm(struct out *o, uint32_t v, int watch)
{
	char perms[5] = "";
	if (v & 4)
		strcat(perms, "r");
	if (v & 2)
		strcat(perms, "w");
	if (v & 1)
		strcat(perms, "x");
	if (v & 8)
		strcat(perms, "a");
	put(o, watch ? " -p %s" : " -F perm=%s", perms);
}

/* One field as auditctl's print_rule prints it (after the arch, which it printed first). */
static void print_field(struct out *o, const struct sp_audit_field *f, int watch, unsigned count)
{
	const char *name = sp_audit_field_name(f->id), *op = orn(sp_audit_op_text(f->op));
	int32_t sv = (int32_t)f->value;
	if (!name) {
		put(o, " f%u%s%d", f->id, op, sv);
		return;
	}
	switch (f->id) {
	case 12: {
		const char *t = sp_audit_msgtype_name(f->value);
		if (t)
			put(o, " -F %s%s%s", name, op, t);
		else
			put(o, " -F %s%s%d", name, op, sv);
		return;
	}
	case 13: case 14: case 15: case 16: case 17: case 19: case 20: case 21: case 22: case 23:
		put(o, " -F %s%s%.*s", name, op, (int)f->value, f->str);
		return;
	case 105: case 107:
		if (watch)
			put(o, "-w %.*s", (int)f->value, f->str);
		else
			put(o, " -F %s=%.*s", f->id == 105 ? "path" : "dir", (int)f->value, f->str);
		return;
	case 112:
		put(o, " -F exe=%.*s", (int)f->value, f->str);
		return;
	case 210:
		print_key(o, f, watch);
		return;
	case 106:
		print_perm(o, f->value, watch);
		return;
	case 102:
		put(o, " -F %s%s%u", name, op, f->value);
		return;
	case 111:
		print_compare(o, f->value, op);
		return;
	case 200: case 201: case 202: case 203:
		(void)count;	/* auditctl interprets the args only with -i */
		put(o, " -F %s%s0x%X", name, op, f->value);
		return;
	case 103: {
		/* INT32_MIN has no negation; auditctl prints it as a number */
		const char *e = sv < 0 && sv > INT32_MIN ? sp_audit_errno_name(-sv) : NULL;
		if (e)
			put(o, " -F %s%s-%s", name, op, e);
		else
			put(o, " -F %s%s%d", name, op, sv);
		return;
	}
	default:
		put(o, " -F %s%s%d", name, op, sv);	/* fstype too: libaudit's table is empty */
	}
}

/* `elf` is auditctl's _audit_elf: set by a rule's arch field and, as in auditctl, kept for the
 * rules printed after it (it is reset once per netlink reply, and the rules are printed from
 * one); it picks the syscall table, else the host's. */
static int format_rule(const struct sp_audit_rule *r, const char *host, uint32_t *elf, char *buf,
		       size_t len)
{
	struct out o = { .buf = buf, .cap = len };
	int watch = is_watch(r);
	unsigned count = 0;
	buf[0] = 0;
	if (!watch) {
		/* the kernel clears AUDIT_FILTER_PREPEND once it has placed the rule */
		put(&o, "-a %s,%s", orn(action_name(r->action)), orn(flag_name(r->flags & ~0x10u)));
		for (uint32_t i = 0; i < r->field_count; i++) {
			if (r->fields[i].id != 11)
				continue;
			*elf = r->fields[i].value;
			print_arch(&o, r->fields[i].value, orn(sp_audit_op_text(r->fields[i].op)));
		}
		count = print_syscalls(&o, r, *elf ? sp_audit_arch_name(*elf) : host);
	}
	for (uint32_t i = 0; i < r->field_count; i++)
		if (r->fields[i].id != 11)
			print_field(&o, &r->fields[i], watch, count);
	return o.overflow ? -ENOSPC : 0;
}

/* auditctl's key_match: `-k KEY` lists a rule when one of its key fields contains KEY. */
static int key_match(const struct sp_audit_rule *r, const char *key)
{
	if (!key || !*key)
		return 1;
	for (uint32_t i = 0; i < r->field_count; i++) {
		const struct sp_audit_field *f = &r->fields[i];
		if (f->id == 210 && f->str && memmem(f->str, f->value, key, strlen(key)))
			return 1;
	}
	return 0;
}

static int listing_add(struct listing *l, const struct sp_audit_item *it)
{
	uint32_t flags;
	if (it->blob_len < 4)
		return -EINVAL;
	memcpy(&flags, it->blob, 4);
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct lrule *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	unsigned char *b = malloc(it->blob_len);
	if (!b)
		return -ENOMEM;
	memcpy(b, it->blob, it->blob_len);
	struct lrule nr = { .list = flags & ~0x10u, .len = it->blob_len, .blob = b };
	size_t at = l->n;
	if (flags & 0x10)	/* -A: the head of its list, before the list's other rules */
		for (at = 0; at < l->n && l->v[at].list != nr.list; at++)
			;
	memmove(&l->v[at + 1], &l->v[at], (l->n - at) * sizeof(*l->v));
	l->v[at] = nr;
	l->n++;
	return 0;
}

/* AUDIT_DEL_RULE: the first rule of the list that the kernel found equal (same blob). */
static void listing_del(struct listing *l, const struct sp_audit_item *it)
{
	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i].len != it->blob_len || memcmp(l->v[i].blob, it->blob, it->blob_len))
			continue;
		free(l->v[i].blob);
		memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
		l->n--;
		return;
	}
}

static void listing_clear(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].blob);
	l->n = 0;
}

/* Load every item into the kernel model, in file order.  0 or -errno. */
static int listing_load(struct listing *l, const struct sp_audit_ruleset *rs,
			const struct sp_audit_listing_opts *o)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = o ? o->fs : NULL };
	struct sp_audit_ref *ref = NULL;
	int err = sp_audit_ref_new(&eo, &ref), frozen = 0;
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		if (sp_audit_ruleset_item(rs, i, &it))
			continue;
		if (it.kind == SP_AUDIT_ITEM_CTRL) {
			if (!frozen && !strcmp(it.ctrl, "-D")) {
				sp_audit_ref_free(ref);
				ref = NULL;
				listing_clear(l);
				err = sp_audit_ref_new(&eo, &ref);
			} else if (!strcmp(it.ctrl, "-e 2")) {
				frozen = 1;	/* immutable: the kernel refuses every later change */
			}
		} else if (frozen) {
			continue;
		} else if (it.kind == SP_AUDIT_ITEM_ADD) {
			if (!sp_audit_ref_add(ref, it.blob, it.blob_len, it.line))
				err = listing_add(l, &it);
		} else if (!sp_audit_ref_del(ref, it.blob, it.blob_len)) {
			listing_del(l, &it);
		}
	}
	sp_audit_ref_free(ref);
	return err;
}

SP_API int sp_audit_listing(const struct sp_audit_ruleset *rs, const struct sp_audit_listing_opts *o,
			    void (*emit)(void *ud, const char *line), void *ud)
{
	struct listing l = { 0 };
	char text[16384];
	size_t shown = 0;
	uint32_t elf = 0;
	if (!rs || !emit || (o && o->sz < sizeof(*o)))
		return -EINVAL;
	int err = listing_load(&l, rs, o);
	/* AUDIT_LIST_RULES: list by list, each in its order */
	for (uint32_t list = 0; !err && list < 8; list++) {
		for (size_t i = 0; !err && i < l.n; i++) {
			struct sp_audit_rule r;
			if (l.v[i].list != list ||
			    sp_audit_rule_decode(l.v[i].blob, l.v[i].len, 0, &r, NULL, NULL) ||
			    !key_match(&r, o ? o->key : NULL))
				continue;
			err = format_rule(&r, o && o->machine ? o->machine : "x86_64", &elf, text,
					  sizeof(text));
			if (!err) {
				emit(ud, text);
				shown++;
			}
		}
	}
	if (!err && !shown)
		emit(ud, "No rules");
	listing_clear(&l);
	free(l.v);
	return err;
}
