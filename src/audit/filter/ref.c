/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ref.c - the reference audit filter: the kernel's rule lists and its filter walks,
 * transcribed function by function so that it is obviously the kernel's behaviour.
 *
 *   rule storage      kernel/auditfilter.c   audit_add_rule, audit_del_rule, audit_find_rule
 *                                            (prio_low/prio_high, list_add vs list_add_tail,
 *                                            audit_inode_hash[32] for watch and inode= rules)
 *   task list         kernel/auditsc.c       audit_alloc -> audit_filter_task
 *   exit / io_uring   kernel/auditsc.c       __audit_syscall_exit / __audit_uring_exit ->
 *                                            audit_filter_syscall / audit_filter_uring ->
 *                                            __audit_filter_op -> audit_in_mask, audit_filter_rules;
 *                                            then audit_filter_inodes (per name, hash bucket)
 *   field semantics   kernel/auditsc.c       audit_filter_rules, audit_match_perm,
 *                                            audit_match_filetype, audit_field_compare
 *   user / exclude    kernel/auditfilter.c   audit_filter (unknown field ends the scan: keep)
 *   filesystem        kernel/auditsc.c       __audit_inode (fstype `never` hides the name)
 *
 * The lists are this file's alone: the compiler reads them as a struct audit_ruledb
 * (audit_ruledb_from_ref, borrowed pointers to the entries' rules, in list order).
 * Entries are one allocation each (audit_init_entry: kzalloc of struct audit_entry, ~400 bytes:
 * the kmalloc-512 class) plus a kcalloc'd field array, linked in list order, which is also
 * priority order.  Variants for the bench: entries from an HWCACHE_ALIGN|COLOUR cache, and the
 * mask test unswitched out of the walk.  Not thread-safe for writers; readers may run
 * concurrently with each other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/filter_int.h"
#include "secpath/audit_names.h"
#include "secpath/slab.h"

/* kernel/audit.h: struct audit_entry (the list head, then the rule) */
struct audit_entry {
	struct sp_list list;
	struct audit_krule rule;
};

/* audit_filter_list[] and audit_inode_hash[] with their priorities and counters */
struct sp_audit_ref {
	struct sp_list lists[AL_NR];
	struct sp_list inode_hash[KA_INODE_BUCKETS];
	uint64_t prio_low, prio_high;
	size_t n_rules;			/* audit_n_rules: task, exit, io_uring rules */
	size_t count;
	unsigned flags;
	const struct sp_audit_fsview *fs;
	struct sp_slab_cache *entry_cache;
};

/* audit_init_entry(): kzalloc(sizeof(struct audit_entry)) is a kmalloc-512 object */
_Static_assert(sizeof(struct audit_entry) > 256 && sizeof(struct audit_entry) <= 512,
	       "struct audit_entry must land in kmalloc-512 like the kernel's");

/* The per-event state the kernel keeps in struct audit_context while filtering. */
struct rctx {
	const struct sp_audit_event *ev;
	uint32_t hidden;		/* names not collected (filesystem list) */
	uint64_t prio;
	int state;			/* current_state */
	const char *filterkey;		/* borrowed from the matching rule */
	int32_t rule_id;
	int verdict;
};

/* ---- entries ---- */

static struct audit_entry *entry_alloc(struct sp_audit_ref *r)
{
	if (r->entry_cache)
		return sp_slab_cache_zalloc(r->entry_cache);
	if (r->flags & SP_AUDIT_REF_SLAB_ALIGNED) {
		void *p = aligned_alloc(SP_CACHELINE, SP_ALIGN_UP(sizeof(struct audit_entry), SP_CACHELINE));
		if (p)
			memset(p, 0, sizeof(struct audit_entry));
		return p;
	}
	return audit_kzalloc(sizeof(struct audit_entry));
}

static void entry_free(struct sp_audit_ref *r, struct audit_entry *e)
{
	audit_krule_release(&e->rule);
	if (r->entry_cache)
		sp_slab_cache_free(r->entry_cache, e);
	else if (r->flags & SP_AUDIT_REF_SLAB_ALIGNED)
		free(e);
	else
		audit_kfree(e);
}

SP_API int sp_audit_ref_new(const struct sp_audit_engine_opts *o, struct sp_audit_ref **out)
{
	struct sp_audit_ref *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (int i = 0; i < AL_NR; i++)
		sp_list_init(&r->lists[i]);
	for (int i = 0; i < KA_INODE_BUCKETS; i++)
		sp_list_init(&r->inode_hash[i]);
	r->prio_low = ~0ull / 2;
	r->prio_high = ~0ull / 2 - 1;
	if (o && o->sz >= offsetof(struct sp_audit_engine_opts, ref_flags) + sizeof(unsigned)) {
		r->fs = o->fs;
		r->flags = o->ref_flags;
	} else if (o && o->sz >= offsetof(struct sp_audit_engine_opts, fs) + sizeof(void *)) {
		r->fs = o->fs;
	}
	if ((r->flags & SP_AUDIT_REF_SLAB_ALIGNED) &&
	    sp_slab_cache_create("audit_entry", sizeof(struct audit_entry), 0,
				 SP_SLAB_HWCACHE_ALIGN | SP_SLAB_COLOUR, NULL, &r->entry_cache))
		r->entry_cache = NULL;
	*out = r;
	return 0;
}

SP_API void sp_audit_ref_free(struct sp_audit_ref *r)
{
	struct sp_list *pos, *tmp;
	if (!r)
		return;
	for (int i = 0; i < AL_NR; i++)
		sp_list_for_each_safe(pos, tmp, &r->lists[i])
			entry_free(r, sp_list_entry(pos, struct audit_entry, list));
	for (int i = 0; i < KA_INODE_BUCKETS; i++)
		sp_list_for_each_safe(pos, tmp, &r->inode_hash[i])
			entry_free(r, sp_list_entry(pos, struct audit_entry, list));
	if (r->entry_cache)
		sp_slab_cache_destroy(r->entry_cache);
	free(r);
}

SP_API size_t sp_audit_ref_count(const struct sp_audit_ref *r)
{
	return r->count;
}

/* The list behind rule-db set s: a filter list, then the inode-hash buckets. */
static const struct sp_list *db_set(const struct sp_audit_ref *r, int s)
{
	return s < AUDIT_DB_BUCKET0 ? &r->lists[s] : &r->inode_hash[s - AUDIT_DB_BUCKET0];
}

int audit_ruledb_from_ref(struct audit_ruledb *db, const struct sp_audit_ref *r)
{
	const struct sp_list *pos;
	size_t n = 0;
	memset(db, 0, sizeof(*db));
	for (int s = 0; s < AUDIT_DB_NSETS; s++)
		sp_list_for_each(pos, db_set(r, s))
			n++;
	SP_ASSERT_INTERNAL(n == r->count);
	db->rules = malloc((n + 1) * sizeof(*db->rules));
	if (!db->rules)
		return -ENOMEM;
	n = 0;
	for (int s = 0; s < AUDIT_DB_NSETS; s++) {
		db->off[s] = (uint32_t)n;
		sp_list_for_each(pos, db_set(r, s))
			db->rules[n++] = &sp_list_entry(pos, const struct audit_entry, list)->rule;
	}
	db->off[AUDIT_DB_NSETS] = (uint32_t)n;
	db->n_rules = r->n_rules;
	return 0;
}

void audit_ruledb_release(struct audit_ruledb *db)
{
	free(db->rules);
	db->rules = NULL;
}

/* audit_find_rule(): *listp gets the list the rule belongs on. */
static struct audit_entry *find_rule(struct sp_audit_ref *r, const struct audit_krule *k,
				     struct sp_list **listp)
{
	struct sp_list *pos, *list;
	if (k->inode_f >= 0) {
		list = &r->inode_hash[audit_krule_bucket(k)];
	} else if (k->has_watch) {
		/* the inode is not known before audit_add_watch: walk the whole hash */
		for (int h = 0; h < KA_INODE_BUCKETS; h++)
			sp_list_for_each(pos, &r->inode_hash[h]) {
				struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
				if (!audit_krule_compare(k, &e->rule))
					return e;
			}
		*listp = &r->inode_hash[audit_krule_bucket(k)];	/* audit_add_watch() */
		return NULL;
	} else {
		list = &r->lists[k->listnr];
	}
	*listp = list;
	sp_list_for_each(pos, list) {
		struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (!audit_krule_compare(k, &e->rule))
			return e;
	}
	return NULL;
}

static int counts_as_rule(uint32_t listnr)
{
	return listnr != AL_USER && listnr != AL_EXCLUDE && listnr != AL_FS;
}

/* audit_rule_change(AUDIT_ADD_RULE) -> audit_data_to_entry + audit_add_rule */
SP_API int sp_audit_ref_add(struct sp_audit_ref *r, const void *blob, size_t len, uint32_t id)
{
	struct audit_entry *entry = entry_alloc(r);
	struct sp_list *list = NULL;
	int err;
	if (!entry)
		return -ENOMEM;
	err = audit_krule_from_data(&entry->rule, blob, len, r->fs);
	if (err) {
		entry_free(r, entry);
		return err;
	}
	entry->rule.id = id;
	if (find_rule(r, &entry->rule, &list)) {
		entry_free(r, entry);
		return -EEXIST;
	}
	if (entry->rule.has_watch && entry->rule.watch_parent_missing) {
		entry_free(r, entry);
		return -ENOENT;	/* audit_add_watch() -> audit_get_nd(): no parent directory */
	}
	entry->rule.prio = ~0ull;
	if (entry->rule.listnr == AL_EXIT || entry->rule.listnr == AL_URING)
		entry->rule.prio = (entry->rule.flags & AL_PREPEND) ? ++r->prio_high : --r->prio_low;
	if (entry->rule.flags & AL_PREPEND) {
		sp_list_add(&entry->list, list);
		entry->rule.flags &= ~(uint32_t)AL_PREPEND;
	} else {
		sp_list_add_tail(&entry->list, list);
	}
	if (counts_as_rule(entry->rule.listnr))
		r->n_rules++;
	r->count++;
	return 0;
}

/*
 * audit_watch_handle_event() -> audit_update_watch() and audit_mark_handle_event() ->
 * audit_update_mark(): when a watched or exe= path's name is created, linked or renamed onto,
 * the watch or mark binds to that inode; when it is removed or renamed away, to none
 * (SP_AUDIT_INO_UNSET: a pending watch follows its path again).  A re-bound watch moves to the
 * head of its new inode's hash bucket, as audit_update_watch() list_add_rcu()s the duplicated
 * entry there, and keeps its priority.
 */
SP_API int sp_audit_ref_rebind(struct sp_audit_ref *r, const char *path, uint64_t ino, uint32_t dev)
{
	struct sp_list moved, *pos, *tmp;
	int n = 0;

	if (!r || !path)
		return -EINVAL;
	if (ino == SP_AUDIT_INO_UNSET)
		dev = 0;
	sp_list_init(&moved);
	for (int l = 0; l < AL_NR + KA_INODE_BUCKETS; l++)	/* watches live in the inode hash */
		sp_list_for_each_safe(pos, tmp, l < AL_NR ? &r->lists[l] : &r->inode_hash[l - AL_NR]) {
			struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
			struct audit_krule *k = &e->rule;
			if (k->has_exe && !strcmp(k->exe_path, path)) {
				k->exe_ino = ino;
				k->exe_dev = dev;
				n++;
			}
			if (k->has_watch && !strcmp(k->watch_path, path)) {
				k->watch_ino = ino;
				k->watch_dev = dev;
				sp_list_del(&e->list);
				sp_list_add_tail(&e->list, &moved);
				n++;
			}
		}
	/* to the head of the new bucket, in the order they were added to the watch (the kernel
	 * walks the watch's rules, newest first, and list_add()s each at the head) */
	while (!sp_list_empty(&moved)) {
		struct audit_entry *e = sp_list_entry(moved.prev, struct audit_entry, list);
		sp_list_del(&e->list);
		sp_list_add(&e->list, &r->inode_hash[audit_krule_bucket(&e->rule)]);
	}
	return n;
}

SP_API int sp_audit_event_rebind(const struct sp_audit_event *ev, struct sp_audit_ref *r)
{
	int n = 0;

	if (!ev || !r)
		return -EINVAL;
	if (ev->return_valid != RET_SUCCESS)
		return 0;	/* fsnotify reports what happened */
	for (uint32_t i = 0; i < ev->nnames; i++) {
		const struct audit_name *nm = &ev->names[i];
		int create = nm->nametype == SP_AUDIT_NAME_CREATE && nm->ino != SP_AUDIT_INO_UNSET;
		if ((!create && nm->nametype != SP_AUDIT_NAME_DELETE) || !nm->path)
			continue;
		uint64_t ino = create && nm->ino != SP_AUDIT_INO_NEW ? nm->ino : SP_AUDIT_INO_UNSET;
		int k = sp_audit_ref_rebind(r, nm->path, ino, nm->dev);
		if (k > 0)
			n += k;
	}
	return n;
}

/* audit_rule_change(AUDIT_DEL_RULE) -> audit_del_rule */
SP_API int sp_audit_ref_del(struct sp_audit_ref *r, const void *blob, size_t len)
{
	struct audit_krule k;
	struct sp_list *list = NULL;
	int err = audit_krule_from_data(&k, blob, len, r->fs);
	if (err)
		return err;
	struct audit_entry *e = find_rule(r, &k, &list);
	audit_krule_release(&k);
	if (!e)
		return -ENOENT;
	if (counts_as_rule(e->rule.listnr))
		r->n_rules--;
	r->count--;
	sp_list_del(&e->list);
	entry_free(r, e);
	return 0;
}

/* ---- audit_filter_rules() ---- */

/* audit_match_perm() */
static int match_perm(const struct rctx *ctx, uint32_t mask)
{
	const struct sp_audit_event *ev;
	uint32_t n;
	if (!ctx)
		return 0;
	ev = ctx->ev;
	n = (uint32_t)ev->c_major;
	switch (audit_classify_syscall(ev->c_arch, n)) {
	case SC_NATIVE:
		if ((mask & PERM_WRITE) && audit_match_class(CL_WRITE, n))
			return 1;
		if ((mask & PERM_READ) && audit_match_class(CL_READ, n))
			return 1;
		if ((mask & PERM_ATTR) && audit_match_class(CL_CHATTR, n))
			return 1;
		return 0;
	case SC_COMPAT:
		if ((mask & PERM_WRITE) && audit_match_class(CL_WRITE_32, n))
			return 1;
		if ((mask & PERM_READ) && audit_match_class(CL_READ_32, n))
			return 1;
		if ((mask & PERM_ATTR) && audit_match_class(CL_CHATTR_32, n))
			return 1;
		return 0;
	case SC_OPEN:
		return (mask & ("\004\002\006\006"[ev->c_argv[1] & 3])) != 0;
	case SC_OPENAT:
		return (mask & ("\004\002\006\006"[ev->c_argv[2] & 3])) != 0;
	case SC_SOCKETCALL:
		return (mask & PERM_WRITE) && ev->c_argv[0] == 2 /* SYS_BIND */;
	case SC_EXECVE:
		return (mask & PERM_EXEC) != 0;
	case SC_OPENAT2:
		return (mask & ("\004\002\006\006"[(uint32_t)ev->openat2_flags & 3])) != 0;
	default:
		return 0;
	}
}

/* audit_match_filetype() */
static int match_filetype(const struct rctx *ctx, uint32_t val)
{
	const struct audit_name *n;
	if (!ctx)
		return 0;
	audit_for_each_visible(n, ctx->ev, ctx->hidden)
		if (n->ino != SP_AUDIT_INO_UNSET && (n->mode & 0170000u) == val)
			return 1;
	return 0;
}

/* match_tree_refs(): some inode walked during this syscall is the tree's root. */
static int match_tree(const struct rctx *ctx, const struct audit_krule *rule)
{
	const struct audit_name *n;
	audit_for_each_visible(n, ctx->ev, ctx->hidden)
		for (uint32_t i = 0; i < n->nwalk; i++)
			if (n->walk[i].ino == rule->tree_ino && n->walk[i].dev == rule->tree_dev)
				return 1;
	return 0;
}

/* audit_exe_compare(): only for the current task (not at fork), only with an mm. */
static int exe_compare(const struct sp_audit_event *ev, const struct audit_krule *rule, int task_creation)
{
	if (task_creation || !ev->has_exe)
		return 0;
	return ev->exe_ino == rule->exe_ino && ev->exe_dev == rule->exe_dev;
}

/* audit_compare_uid()/audit_compare_gid(): the given name first, then every collected name. */
static int compare_obj(uint32_t id, int is_gid, const struct audit_name *name, uint32_t op,
		       const struct rctx *ctx)
{
	const struct audit_name *n;
	if (name && audit_id_comparator(id, op, is_gid ? name->gid : name->uid))
		return 1;
	if (ctx)
		audit_for_each_visible(n, ctx->ev, ctx->hidden)
			if (audit_id_comparator(id, op, is_gid ? n->gid : n->uid))
				return 1;
	return 0;
}

/* audit_field_compare() */
static int field_compare(const struct sp_audit_event *ev, const struct audit_kfield *f,
			 const struct rctx *ctx, const struct audit_name *name, int tc)
{
	/* the kernel's WARN "Missing AUDIT_COMPARE define.  Report as a bug": audit_field_valid()
	 * refuses val > AUDIT_MAX_FIELD_COMPARE, and val 0 names no comparison */
	if (SP_NEVER(f->val < 1 || f->val > ARD_MAX_FIELD_COMPARE))
		return 0;
	const uint8_t *p = audit_compare_pairs[f->val];
	uint32_t left = tc ? audit_task_cred(ev, p[0]) : audit_cred(ev, p[0]);
	if (p[1] == CS_OBJ_UID || p[1] == CS_OBJ_GID)
		return compare_obj(left, p[1] == CS_OBJ_GID, name, f->op, ctx);
	return audit_id_comparator(left, f->op, tc ? audit_task_cred(ev, p[1]) : audit_cred(ev, p[1]));
}

/* sp-long-function: kernel/auditsc.c audit_filter_rules(), kept case for case with the kernel */
static int filter_rules(const struct sp_audit_event *ev, const struct audit_krule *rule,
			struct rctx *ctx, const struct audit_name *name, int *state, int task_creation)
{
	const struct audit_name *n;

	if (ctx && rule->prio <= ctx->prio)
		return 0;
	for (uint32_t i = 0; i < rule->field_count; i++) {
		const struct audit_kfield *f = &rule->fields[i];
		int result = 0;

		switch (f->type) {
		case AF_PID:
			/* task_tgid_nr(tsk): at fork the child still shares the parent's signal */
			result = audit_comparator(task_creation ? ev->t_pid : ev->pid, f->op, f->val);
			break;
		case AF_PPID:
			if (ctx)
				result = audit_comparator(ev->ppid, f->op, f->val);
			break;
		case AF_EXE:
			result = exe_compare(ev, rule, task_creation);
			if (f->op == OP_NE)
				result = !result;
			break;
		/* cred = the task's: at fork, the forking task's (the t_* view) */
#define TC(field) (task_creation ? ev->t_##field : ev->field)
		case AF_UID: result = audit_id_comparator(TC(uid), f->op, f->val); break;
		case AF_EUID: result = audit_id_comparator(TC(euid), f->op, f->val); break;
		case AF_SUID: result = audit_id_comparator(TC(suid), f->op, f->val); break;
		case AF_FSUID: result = audit_id_comparator(TC(fsuid), f->op, f->val); break;
		case AF_GID:
		case AF_EGID: {
			int (*search)(const struct sp_audit_event *, uint32_t) =
				task_creation ? audit_task_groups_search : audit_groups_search;
			result = audit_id_comparator(f->type == AF_GID ? TC(gid) : TC(egid), f->op, f->val);
			if (f->op == OP_EQ) {
				if (!result)
					result = search(ev, f->val);
			} else if (f->op == OP_NE) {
				if (result)
					result = !search(ev, f->val);
			}
			break;
		}
		case AF_SGID: result = audit_id_comparator(TC(sgid), f->op, f->val); break;
		case AF_FSGID: result = audit_id_comparator(TC(fsgid), f->op, f->val); break;
		case AF_SESSIONID: result = audit_comparator(TC(sessionid), f->op, f->val); break;
		case AF_PERS: result = audit_comparator(ev->personality, f->op, f->val); break;
		case AF_ARCH:
			if (ctx)
				result = audit_comparator(ev->c_arch, f->op, f->val);
			break;
		case AF_EXIT:
			if (ctx && ev->return_valid != RET_INVALID)
				result = audit_comparator((uint32_t)ev->return_code, f->op, f->val);
			break;
		case AF_SUCCESS:
			if (ctx && ev->return_valid != RET_INVALID)
				result = audit_comparator(ev->return_valid, f->op,
							  f->val ? RET_SUCCESS : RET_FAILURE);
			break;
		case AF_DEVMAJOR:
		case AF_DEVMINOR: {
			int maj = f->type == AF_DEVMAJOR;
#define DEVPART(d) (maj ? (d) >> 20 : (d) & 0xfffffu)
			if (name) {
				if (audit_comparator(DEVPART(name->dev), f->op, f->val) ||
				    audit_comparator(DEVPART(name->rdev), f->op, f->val))
					++result;
			} else if (ctx) {
				audit_for_each_visible(n, ctx->ev, ctx->hidden)
					if (audit_comparator(DEVPART(n->dev), f->op, f->val) ||
					    audit_comparator(DEVPART(n->rdev), f->op, f->val)) {
						++result;
						break;
					}
			}
#undef DEVPART
			break;
		}
		case AF_INODE:
			if (name)
				result = audit_comparator((uint32_t)name->ino, f->op, f->val);
			else if (ctx)
				audit_for_each_visible(n, ctx->ev, ctx->hidden)
					if (audit_comparator((uint32_t)n->ino, f->op, f->val)) {
						++result;
						break;
					}
			break;
		case AF_OBJ_UID:
		case AF_OBJ_GID: {
			int g = f->type == AF_OBJ_GID;
			if (name)
				result = audit_id_comparator(g ? name->gid : name->uid, f->op, f->val);
			else if (ctx)
				audit_for_each_visible(n, ctx->ev, ctx->hidden)
					if (audit_id_comparator(g ? n->gid : n->uid, f->op, f->val)) {
						++result;
						break;
					}
			break;
		}
		case AF_WATCH:
			/* audit_watch_compare(); a pending watch follows its path (the kernel re-arms
			 * it through the parent's fsnotify mark when the file appears) */
			if (name) {
				if (rule->watch_ino == SP_AUDIT_INO_UNSET)
					result = name->path && !strcmp(name->path, rule->watch_path);
				else
					result = rule->watch_ino == name->ino && rule->watch_dev == name->dev;
				if (f->op == OP_NE)
					result = !result;
			}
			break;
		case AF_DIR:
			if (ctx) {
				result = match_tree(ctx, rule);
				if (f->op == OP_NE)
					result = !result;
			}
			break;
		case AF_LOGINUID: result = audit_id_comparator(TC(loginuid), f->op, f->val); break;
		case AF_LOGINUID_SET:
			result = audit_comparator(TC(loginuid) != SP_AUDIT_UNSET, f->op, f->val);
			break;
#undef TC
		case AF_SADDR_FAM:
			if (ctx && ev->saddr_fam >= 0)
				result = audit_comparator((uint32_t)ev->saddr_fam, f->op, f->val);
			break;
		case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
			if (f->lsm_rule)
				result = audit_lsm_match(audit_ev_sctx(ev), f->lsm_rule);
			break;
		case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE: case AF_OBJ_LEV_LOW: case AF_OBJ_LEV_HIGH:
			if (f->lsm_rule) {
				if (name) {
					result = audit_lsm_match(audit_name_octx(name), f->lsm_rule);
				} else if (ctx) {
					audit_for_each_visible(n, ctx->ev, ctx->hidden)
						if (audit_lsm_match(audit_name_octx(n), f->lsm_rule)) {
							++result;
							break;
						}
				}
				/* IPC objects (ctx->type == AUDIT_IPC) are not modelled */
			}
			break;
		case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3:
			if (ctx)
				result = audit_comparator((uint32_t)ev->c_argv[f->type - AF_ARG0], f->op, f->val);
			break;
		case AF_FILTERKEY:
			result = 1;	/* ignore this field for filtering */
			break;
		case AF_PERM:
			result = match_perm(ctx, f->val);
			if (f->op == OP_NE)
				result = !result;
			break;
		case AF_FILETYPE:
			result = match_filetype(ctx, f->val);
			if (f->op == OP_NE)
				result = !result;
			break;
		case AF_FIELD_COMPARE:
			result = field_compare(ev, f, ctx, name, task_creation);
			break;
		}
		if (!result)
			return 0;
	}
	if (ctx) {
		if (rule->filterkey)
			ctx->filterkey = rule->filterkey;
		ctx->prio = rule->prio;
		ctx->rule_id = (int32_t)rule->id;
		ctx->verdict = rule->action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
	}
	*state = rule->action == AA_NEVER ? STATE_DISABLED : STATE_RECORD;
	return 1;
}

/* audit_in_mask() */
static int in_mask(const struct audit_krule *rule, uint64_t val)
{
	if (val > 0xffffffffu)
		return 0;
	if (val / 32 >= ARD_MASK_WORDS)
		return 0;
	return (rule->mask[val / 32] >> (val % 32)) & 1;
}

/* __audit_filter_op() */
static int filter_op(const struct sp_audit_ref *r, struct rctx *ctx, const struct sp_list *list,
		     const struct audit_name *name, uint64_t op)
{
	const struct sp_list *pos;
	int state;

	if (r->flags & SP_AUDIT_REF_UNSWITCHED) {
		/* the loop-invariant mask index hoisted out; an out-of-range op matches nothing */
		if (op > 0xffffffffu || op / 32 >= ARD_MASK_WORDS)
			return 0;
		uint32_t word = (uint32_t)(op / 32), bit = 1u << (op % 32);
		sp_list_for_each(pos, list) {
			const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
			if ((e->rule.mask[word] & bit) &&
			    filter_rules(ctx->ev, &e->rule, ctx, name, &state, 0)) {
				ctx->state = state;
				return 1;
			}
		}
		return 0;
	}
	sp_list_for_each(pos, list) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (in_mask(&e->rule, op) && filter_rules(ctx->ev, &e->rule, ctx, name, &state, 0)) {
			ctx->state = state;
			return 1;
		}
	}
	return 0;
}

/* Pending watches (file missing at load, unresolved: bucket 31) whose path is this name's: the
 * kernel would have re-hashed them to the head of the new inode's bucket on creation. */
static int filter_pending(const struct sp_audit_ref *r, struct rctx *ctx, const struct audit_name *n,
			  uint64_t major)
{
	const struct sp_list *pos;
	int state;
	sp_list_for_each(pos, &r->inode_hash[KA_INODE_BUCKETS - 1]) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (!e->rule.has_watch || e->rule.watch_ino != SP_AUDIT_INO_UNSET ||
		    strcmp(e->rule.watch_path, n->path))
			continue;
		if (in_mask(&e->rule, major) && filter_rules(ctx->ev, &e->rule, ctx, n, &state, 0)) {
			ctx->state = state;
			return 1;
		}
	}
	return 0;
}

/* audit_filter_inodes(): per collected name, the hash bucket of its inode; first name that matched */
static void filter_inodes(const struct sp_audit_ref *r, struct rctx *ctx, uint64_t major)
{
	const struct audit_name *n;
	audit_for_each_visible(n, ctx->ev, ctx->hidden) {
		const struct sp_list *list = &r->inode_hash[(uint32_t)n->ino & (KA_INODE_BUCKETS - 1)];
		if (n->path && filter_pending(r, ctx, n, major))
			break;
		if (filter_op(r, ctx, list, n, major))
			break;
	}
}

/* audit_filter_task() */
static int filter_task(const struct sp_audit_ref *r, const struct sp_audit_event *ev,
		       const char **key, struct sp_audit_decision *d)
{
	const struct sp_list *pos;
	int state;
	sp_list_for_each(pos, &r->lists[AL_TASK]) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		if (filter_rules(ev, &e->rule, NULL, NULL, &state, 1)) {
			if (state == STATE_RECORD)
				*key = e->rule.filterkey;
			d->task = state == STATE_RECORD ? SP_AUDIT_ALWAYS : SP_AUDIT_NEVER;
			d->task_rule = (int32_t)e->rule.id;
			return state;
		}
	}
	return STATE_BUILD;
}

/* audit_filter(): 1 keep, 0 drop.  *rule_id/verdict name the matching rule. */
static int filter_user_exclude(const struct sp_audit_ref *r, const struct sp_audit_event *ev,
			       uint32_t msgtype, uint32_t listtype, int32_t *rule_id, uint8_t *verdict)
{
	const struct sp_list *pos;
	int ret = 1;
	sp_list_for_each(pos, &r->lists[listtype]) {
		const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
		int result = 0;
		for (uint32_t i = 0; i < e->rule.field_count; i++) {
			const struct audit_kfield *f = &e->rule.fields[i];
			switch (f->type) {
			case AF_PID: result = audit_comparator(ev->tid, f->op, f->val); break;
			case AF_UID: result = audit_id_comparator(ev->uid, f->op, f->val); break;
			case AF_GID: result = audit_id_comparator(ev->gid, f->op, f->val); break;
			case AF_LOGINUID: result = audit_id_comparator(ev->loginuid, f->op, f->val); break;
			case AF_LOGINUID_SET:
				result = audit_comparator(ev->loginuid != SP_AUDIT_UNSET, f->op, f->val);
				break;
			case AF_MSGTYPE: result = audit_comparator(msgtype, f->op, f->val); break;
			case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN:
			case AF_SUBJ_CLR:
				result = 0;
				if (f->lsm_rule)
					result = audit_lsm_match(audit_ev_sctx(ev), f->lsm_rule);
				break;
			case AF_EXE:
				result = exe_compare(ev, &e->rule, 0);
				if (f->op == OP_NE)
					result = !result;
				break;
			default:
				return ret;	/* goto unlock_and_return */
			}
			if (!result)
				break;
		}
		if (result > 0) {
			if (e->rule.action == AA_NEVER || listtype == AL_EXCLUDE)
				ret = 0;
			*rule_id = (int32_t)e->rule.id;
			*verdict = e->rule.action == AA_NEVER ? SP_AUDIT_NEVER : SP_AUDIT_ALWAYS;
			break;
		}
	}
	return ret;
}

/* __audit_inode(): a filesystem `never` rule with a matching fstype field hides the name. */
static uint32_t filter_fs(const struct sp_audit_ref *r, const struct sp_audit_event *ev)
{
	uint32_t hidden = 0;
	const struct sp_list *pos;
	for (uint32_t i = 0; i < ev->nnames; i++) {
		sp_list_for_each(pos, &r->lists[AL_FS]) {
			const struct audit_entry *e = sp_list_entry(pos, struct audit_entry, list);
			int hit = 0;
			for (uint32_t j = 0; j < e->rule.field_count && !hit; j++) {
				const struct audit_kfield *f = &e->rule.fields[j];
				hit = f->type == AF_FSTYPE &&
				      audit_comparator(ev->names[i].fs_magic, f->op, f->val) &&
				      e->rule.action == AA_NEVER;
			}
			if (hit) {
				hidden |= 1u << i;
				break;
			}
		}
	}
	return hidden;
}

SP_API int sp_audit_ref_filter(const struct sp_audit_ref *r, const struct sp_audit_event *ev,
			       struct sp_audit_decision *d)
{
	struct rctx ctx = { .ev = ev };
	const char *task_key = NULL;
	int state;

	SP_ASSERT_INTERNAL(audit_event_is_synced(ev));
	audit_decision_init(d);
	if (ev->kind == SP_AUDIT_EV_USER) {
		/* audit_receive_msg(): user list, then audit_log_start() applies the exclude list */
		d->context = SP_AUDIT_CTX_USER;
		d->record = (uint8_t)filter_user_exclude(r, ev, ev->msgtype, AL_USER, &d->user_rule, &d->user);
		if (d->record) {
			uint8_t v = 0;
			d->excluded = !filter_user_exclude(r, ev, ev->msgtype, AL_EXCLUDE, &d->exclude_rule, &v);
		}
		return 0;
	}
	/* audit_alloc() at fork */
	state = filter_task(r, ev, &task_key, d);
	if (state == STATE_DISABLED) {
		d->context = SP_AUDIT_CTX_NONE;
		return 0;
	}
	/* __audit_syscall_entry(): context->dummy = !audit_n_rules */
	if (!r->n_rules) {
		d->context = SP_AUDIT_CTX_DUMMY;
		return 0;
	}
	ctx.state = state;
	ctx.prio = state == STATE_RECORD ? ~0ull : 0;
	ctx.filterkey = task_key;
	ctx.rule_id = -1;
	ctx.hidden = filter_fs(r, ev);
	d->fs_hidden = ctx.hidden;
	if (ev->is_auditd) {
		d->context = SP_AUDIT_CTX_AUDITD;	/* auditd_test_task(): filters return early */
	} else if (ev->kind == SP_AUDIT_EV_URING) {
		filter_op(r, &ctx, &r->lists[AL_URING], NULL, ev->op);	/* audit_filter_uring */
		filter_inodes(r, &ctx, (uint64_t)(int64_t)ev->c_major);
	} else {
		filter_op(r, &ctx, &r->lists[AL_EXIT], NULL, (uint64_t)(int64_t)ev->c_major);
		filter_inodes(r, &ctx, (uint64_t)(int64_t)ev->c_major);
	}
	d->exit = (uint8_t)ctx.verdict;
	d->exit_rule = ctx.rule_id;
	if (ctx.filterkey)
		audit_decision_set_key(d, ctx.filterkey, strlen(ctx.filterkey));
	d->record = ctx.state == STATE_RECORD;
	if (d->record) {
		uint8_t v = 0;
		uint32_t type = ev->kind == SP_AUDIT_EV_URING ? KA_MSG_URINGOP : KA_MSG_SYSCALL;
		d->excluded = !filter_user_exclude(r, ev, type, AL_EXCLUDE, &d->exclude_rule, &v);
	}
	return 0;
}
