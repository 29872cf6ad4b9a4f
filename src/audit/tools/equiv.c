/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * equiv.c - differential equivalence of two rule sets through the reference engine.
 *
 * Both sets are replayed into their own sp_audit_ref over one synthetic file system holding
 * every path either names.  Events are generated to hit the rules: for each rule of either set,
 * events that satisfy all of its fields for syscalls of its mask (the rule's own events), then
 * random events built from the constants, syscalls, arches and paths of both sets, half of them
 * aimed at one rule and then perturbed in one variable (the boundaries between rules).  The
 * first event whose decisions differ is the witness.
 *
 * Invariants: generation is deterministic for a seed; the compared decision is what the kernel
 * makes observable (record, exclude, task/exit/user verdicts, context, key, hidden names), not
 * the ids of the deciding rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "audit/tools/tools_int.h"

#define POOL_TYPES 211
#define POOL_MAX 24

struct gen {
	uint64_t rng;
	const struct tool_rule **rules;
	size_t nrules;
	uint32_t pool[POOL_TYPES][POOL_MAX];
	uint8_t npool[POOL_TYPES];
	char **paths;
	size_t npaths;
	const struct sp_audit_fsview *fs;
	uint32_t arches[8];
	size_t narches;
	char lsm[5][3][64];		/* per subj/obj component (user, role, type, low, high): strings */
	uint8_t nlsm[5];
};

static uint64_t rnd(struct gen *g)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545F4914F6CDD1DULL;
}

static uint32_t rnd_below(struct gen *g, uint32_t n)
{
	return n ? (uint32_t)(rnd(g) % n) : 0;
}

static void pool_add(struct gen *g, uint32_t type, uint32_t v)
{
	if (type >= POOL_TYPES)
		return;
	for (int i = 0; i < g->npool[type]; i++)
		if (g->pool[type][i] == v)
			return;
	if (g->npool[type] < POOL_MAX)
		g->pool[type][g->npool[type]++] = v;
}

/* A value for field type: a rule constant or a neighbour of one, or a common value. */
static uint32_t pick(struct gen *g, uint32_t type, uint32_t dflt)
{
	uint32_t r = rnd_below(g, 10);
	if (type < POOL_TYPES && g->npool[type] && r < 6) {
		uint32_t v = g->pool[type][rnd_below(g, g->npool[type])];
		switch (rnd_below(g, 4)) {
		case 0: return v + 1;
		case 1: return v - 1;
		default: return v;
		}
	}
	static const uint32_t common[] = { 0, 1, 1000, 4294967295u, 2, 500 };
	if (r < 8)
		return common[rnd_below(g, SP_ARRAY_SIZE(common))];
	return dflt;
}

static const uint32_t lsm_types[5][2] = {
	{ AF_SUBJ_USER, AF_OBJ_USER }, { AF_SUBJ_ROLE, AF_OBJ_ROLE }, { AF_SUBJ_TYPE, AF_OBJ_TYPE },
	{ AF_SUBJ_SEN, AF_OBJ_LEV_LOW }, { AF_SUBJ_CLR, AF_OBJ_LEV_HIGH },
};

static int lsm_slot(uint32_t type)
{
	for (int i = 0; i < 5; i++)
		if (lsm_types[i][0] == type || lsm_types[i][1] == type)
			return i;
	return -1;
}

static void gen_init(struct gen *g, const struct tool_set *a, const struct tool_set *b, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	g->arches[g->narches++] = SP_AUDIT_ARCH_X86_64;
	g->arches[g->narches++] = SP_AUDIT_ARCH_I386;
	for (int s = 0; s < 2; s++) {
		const struct tool_set *t = s ? b : a;
		for (size_t i = 0; i < t->n; i++) {
			const struct tool_rule *r = &t->v[i];
			for (uint32_t j = 0; j < r->k.field_count; j++) {
				const struct audit_kfield *f = &r->k.fields[j];
				pool_add(g, f->type, f->val);
				if (f->type == AF_ARCH && g->narches < SP_ARRAY_SIZE(g->arches)) {
					int dup = 0;
					for (size_t k = 0; k < g->narches; k++)
						dup |= g->arches[k] == f->val;
					if (!dup)
						g->arches[g->narches++] = f->val;
				}
				int ls = lsm_slot(f->type);
				if (ls >= 0 && f->lsm_str && g->nlsm[ls] < 3 && strlen(f->lsm_str) < 64 &&
				    !strchr(f->lsm_str, ':'))
					snprintf(g->lsm[ls][g->nlsm[ls]++], 64, "%s", f->lsm_str);
			}
		}
	}
}

/* A syscall number of rule r's mask (or any). */
static int32_t pick_nr(struct gen *g, const struct tool_rule *r)
{
	if (r && r->list == AL_EXIT) {
		uint32_t cnt = 0;
		for (int w = 0; w < ARD_MASK_WORDS; w++)
			cnt += (uint32_t)__builtin_popcount(r->k.mask[w]);
		if (cnt) {
			uint32_t k = rnd_below(g, cnt);
			for (int w = 0; w < ARD_MASK_WORDS; w++) {
				uint32_t m = r->k.mask[w];
				uint32_t c = (uint32_t)__builtin_popcount(m);
				if (k >= c) {
					k -= c;
					continue;
				}
				while (k--)
					m &= m - 1;
				return w * 32 + __builtin_ctz(m);
			}
		}
	}
	if (g->nrules && rnd_below(g, 2)) {
		const struct tool_rule *o = g->rules[rnd_below(g, (uint32_t)g->nrules)];
		if (o != r && o->list == AL_EXIT)
			return pick_nr(g, o);
	}
	return (int32_t)rnd_below(g, 470);
}

struct nspec {
	int path;		/* index in g->paths, -1: a bare identity */
	uint64_t ino;
	uint32_t dev, rdev, mode, uid, gid, magic;
	int set_mode, set_owner, set_rdev, set_magic;
	char octx[300];
};

struct evspec {
	uint32_t kind, arch;
	int32_t nr;
	uint64_t a[4];
	int has_ret;
	int64_t ret;
	uint32_t pid, tid, ppid, uid[4], gid[4], auid, ses, pers, msgtype;
	uint32_t groups[2], ngroups;
	int saddr;
	uint64_t o2flags;
	int exe;		/* path index, -1 none, -2 foreign identity */
	char sctx[300];
	struct nspec names[5];
	int nnames;
};

static void ctx_with(char *buf, size_t len, int slot, const char *val)
{
	const char *u = "user_u", *r = "object_r", *t = "file_t", *lo = "s0";
	switch (slot) {
	case 0: u = val; break;
	case 1: r = val; break;
	case 2: t = val; break;
	default: lo = val; break;
	}
	snprintf(buf, len, "%s:%s:%s:%s", u, r, t, lo);
}

static uint32_t satisfy(struct gen *g, uint32_t op, uint32_t v)
{
	switch (op) {
	case OP_NE: return rnd_below(g, 2) ? v + 1 : v - 1;
	case OP_LT: return v ? v - 1 - rnd_below(g, 2) : 0;
	case OP_GT: return v + 1 + rnd_below(g, 2);
	case OP_LE: return v - rnd_below(g, 2);
	case OP_GE: return v + rnd_below(g, 2);
	case OP_BITMASK: return v | (uint32_t)rnd_below(g, 4);
	default: return v;	/* EQ, BITTEST */
	}
}

static struct nspec *new_name(struct evspec *e)
{
	if (e->nnames >= 5)
		return &e->names[4];
	struct nspec *n = &e->names[e->nnames++];
	memset(n, 0, sizeof(*n));
	n->path = -1;
	n->ino = SP_AUDIT_INO_UNSET;
	return n;
}

static int path_index(struct gen *g, const char *p)
{
	for (size_t i = 0; p && i < g->npaths; i++)
		if (!strcmp(g->paths[i], p))
			return (int)i;
	return -1;
}

static void random_base(struct gen *g, struct evspec *e)
{
	memset(e, 0, sizeof(*e));
	uint32_t k = rnd_below(g, 20);
	e->kind = k == 0 ? SP_AUDIT_EV_USER : k == 1 ? SP_AUDIT_EV_URING : SP_AUDIT_EV_SYSCALL;
	e->arch = g->arches[rnd_below(g, (uint32_t)g->narches)];
	e->nr = pick_nr(g, NULL);
	for (int i = 0; i < 4; i++)
		e->a[i] = pick(g, AF_ARG0 + (uint32_t)i, (uint32_t)rnd(g)) |
			  (rnd_below(g, 8) ? 0 : (uint64_t)rnd(g) << 32);
	e->has_ret = rnd_below(g, 10) != 0;
	e->ret = rnd_below(g, 2) ? 0 : (int64_t)(int32_t)pick(g, AF_EXIT, (uint32_t)-13);
	e->pid = pick(g, AF_PID, 4242);
	e->tid = rnd_below(g, 2) ? e->pid : e->pid + 1;
	e->ppid = pick(g, AF_PPID, 1);
	for (int i = 0; i < 4; i++) {
		e->uid[i] = pick(g, AF_UID + (uint32_t)i, 1000);
		e->gid[i] = pick(g, i < 2 ? AF_GID + (uint32_t)i : AF_SGID + (uint32_t)i - 2, 1000);
	}
	if (rnd_below(g, 3) == 0) {	/* one identity everywhere: field comparisons */
		for (int i = 1; i < 4; i++) {
			e->uid[i] = e->uid[0];
			e->gid[i] = e->gid[0];
		}
	}
	e->ngroups = rnd_below(g, 3);
	for (uint32_t i = 0; i < e->ngroups; i++)
		e->groups[i] = pick(g, AF_GID, 27);
	e->auid = rnd_below(g, 4) ? pick(g, AF_LOGINUID, 1000) : SP_AUDIT_UNSET;
	e->ses = rnd_below(g, 4) ? pick(g, AF_SESSIONID, 3) : SP_AUDIT_UNSET;
	e->pers = rnd_below(g, 8) ? 0 : pick(g, AF_PERS, 8);
	e->msgtype = pick(g, AF_MSGTYPE, 1100 + rnd_below(g, 40));
	e->saddr = rnd_below(g, 3) ? -1 : (int)pick(g, AF_SADDR_FAM, 2) % 64;
	e->o2flags = rnd_below(g, 4);
	e->exe = g->npaths && rnd_below(g, 2) ? (int)rnd_below(g, (uint32_t)g->npaths) : -1;
	if (g->nlsm[2] && rnd_below(g, 4) == 0)
		ctx_with(e->sctx, sizeof(e->sctx), 2, g->lsm[2][rnd_below(g, g->nlsm[2])]);
	int nn = (int)rnd_below(g, 4);
	for (int i = 0; i < nn; i++) {
		struct nspec *n = new_name(e);
		if (g->npaths && rnd_below(g, 5)) {
			n->path = (int)rnd_below(g, (uint32_t)g->npaths);
		} else {
			n->ino = rnd_below(g, 2) ? pick(g, AF_INODE, 77) : SP_AUDIT_INO_UNSET;
			n->dev = SP_AUDIT_MKDEV(pick(g, AF_DEVMAJOR, 8), pick(g, AF_DEVMINOR, 1));
		}
		if (rnd_below(g, 3) == 0) {
			n->set_mode = 1;
			n->mode = (rnd_below(g, 2) ? pick(g, AF_FILETYPE, S_IFREG) : S_IFREG) | 0644;
		}
		if (rnd_below(g, 2)) {
			n->set_owner = 1;
			n->uid = pick(g, AF_OBJ_UID, 0);
			n->gid = pick(g, AF_OBJ_GID, 0);
		}
		if (rnd_below(g, 6) == 0) {
			n->set_magic = 1;
			n->magic = pick(g, AF_FSTYPE, 0xef53);
		}
	}
}

/* A syscall of r's mask for which the perm field f can hold on arch (else keep nr). */
static int32_t pick_perm_nr(struct gen *g, const struct tool_rule *r, const struct audit_kfield *f,
			    uint32_t arch, int32_t nr)
{
	int32_t cand[64];
	uint32_t n = 0, seen = 0;
	for (int32_t x = 0; x < ARD_MASK_WORDS * 32; x++) {
		if (!(r->k.mask[x / 32] >> (x % 32) & 1) || tool_field_truth(f, arch, x, 1) == T_FALSE)
			continue;
		/* reservoir sample of up to 64 candidates */
		if (n < 64)
			cand[n++] = x;
		else if (rnd_below(g, seen + 1) < 64)
			cand[rnd_below(g, 64)] = x;
		seen++;
	}
	return n ? cand[rnd_below(g, n)] : nr;
}

/* The task side of field f (x satisfies its operator): credentials, ids, the syscall's
 * arguments and return.  0 when f is not one of these. */
static int aim_task(struct gen *g, struct evspec *e, const struct tool_rule *r,
		    const struct audit_kfield *f, uint32_t x)
{
	switch (f->type) {
	case AF_PID: e->pid = x; break;
	case AF_UID: case AF_EUID: case AF_SUID: case AF_FSUID: e->uid[f->type - AF_UID] = x; break;
	case AF_GID: case AF_EGID:
		if (rnd_below(g, 3) == 0 && f->op == OP_EQ) {
			e->groups[0] = x;
			e->ngroups = e->ngroups ? e->ngroups : 1;
		} else {
			e->gid[f->type - AF_GID] = x;
		}
		break;
	case AF_SGID: case AF_FSGID: e->gid[f->type - AF_SGID + 2] = x; break;
	case AF_LOGINUID: e->auid = x; break;
	case AF_LOGINUID_SET:
		if (audit_comparator(1, f->op, f->val))
			e->auid = e->auid == SP_AUDIT_UNSET ? 1000 : e->auid;
		else
			e->auid = SP_AUDIT_UNSET;
		break;
	case AF_SESSIONID: e->ses = x; break;
	case AF_PERS: e->pers = x; break;
	case AF_ARCH: break;
	case AF_PPID: e->ppid = x; break;
	case AF_MSGTYPE: e->msgtype = x; e->kind = SP_AUDIT_EV_USER; break;
	case AF_EXIT: e->has_ret = 1; e->ret = (int64_t)(int32_t)x; break;
	case AF_SUCCESS:
		e->has_ret = 1;
		e->ret = audit_comparator(RET_SUCCESS, f->op,
					  f->val ? RET_SUCCESS : RET_FAILURE) ? 0 : -13;
		break;
	case AF_SADDR_FAM: e->saddr = (int)(x % 64); break;
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3:
		e->a[f->type - AF_ARG0] = x | (rnd_below(g, 4) ? 0 : (uint64_t)rnd(g) << 32);
		break;
	case AF_PERM:
		if (f->op == OP_EQ && r->list == AL_EXIT)
			e->nr = pick_perm_nr(g, r, f, e->arch, e->nr);
		/* open-like syscalls: the access mode from the args */
		e->a[1] = e->a[2] = (f->val & PERM_WRITE) ? (rnd_below(g, 2) ? 1 : 2) : 0;
		e->o2flags = e->a[2];
		break;
	default:
		return 0;
	}
	return 1;
}

/* The object side of field f: the event's names (paths, inodes, devices, modes, owners, file
 * systems), the executable, comparisons, LSM labels.  *nm is the name the fields so far
 * described, or NULL. */
static void aim_names(struct gen *g, struct evspec *e, const struct tool_rule *r,
		      const struct audit_kfield *f, uint32_t x, struct nspec **nm)
{
	struct nspec *n = *nm;
	switch (f->type) {
	case AF_WATCH:
		n = new_name(e);
		n->path = path_index(g, r->k.watch_path);
		break;
	case AF_DIR: {
		char child[ARD_PATH_MAX + 8];
		size_t l = strlen(r->k.tree_path);
		while (l > 1 && r->k.tree_path[l - 1] == '/')
			l--;
		snprintf(child, sizeof(child), "%.*s/f", (int)l, r->k.tree_path);
		n = new_name(e);
		n->path = path_index(g, rnd_below(g, 2) ? child : r->k.tree_path);
		if (n->path < 0)
			n->path = path_index(g, child);
		break;
	}
	case AF_EXE: e->exe = path_index(g, r->k.exe_path); break;
	case AF_INODE: n = new_name(e); n->ino = x; n->dev = SP_AUDIT_MKDEV(8, 1); break;
	case AF_DEVMAJOR: case AF_DEVMINOR:
		n = n ? n : new_name(e);
		if (n->path < 0) {
			n->dev = f->type == AF_DEVMAJOR ? SP_AUDIT_MKDEV(x, n->dev & 0xfffff)
						       : SP_AUDIT_MKDEV(n->dev >> 20, x);
			n->ino = n->ino == SP_AUDIT_INO_UNSET ? 55 : n->ino;
		} else {
			n->set_rdev = 1;
			n->rdev = f->type == AF_DEVMAJOR ? SP_AUDIT_MKDEV(x, 0) : SP_AUDIT_MKDEV(0, x);
		}
		break;
	case AF_FILETYPE:
		n = n ? n : new_name(e);
		if (n->path < 0 && n->ino == SP_AUDIT_INO_UNSET)
			n->ino = 66;
		n->set_mode = 1;
		n->mode = (f->op == OP_EQ ? f->val : S_IFREG) | 0600;
		break;
	case AF_OBJ_UID: case AF_OBJ_GID:
		n = n ? n : new_name(e);
		if (n->path < 0 && n->ino == SP_AUDIT_INO_UNSET)
			n->ino = 67;
		n->set_owner = 1;
		if (f->type == AF_OBJ_UID)
			n->uid = x;
		else
			n->gid = x;
		break;
	case AF_FSTYPE:
		n = n ? n : new_name(e);
		n->set_magic = 1;
		n->magic = f->val;
		break;
	case AF_FIELD_COMPARE:
		for (int i = 1; i < 4; i++) {
			e->uid[i] = e->uid[0];
			e->gid[i] = e->gid[0];
		}
		e->auid = e->uid[0];
		for (int i = 0; i < e->nnames; i++) {
			e->names[i].set_owner = 1;
			e->names[i].uid = e->uid[0];
			e->names[i].gid = e->gid[0];
		}
		break;
	default:
		if (lsm_slot(f->type) >= 0 && f->lsm_str && !strchr(f->lsm_str, ':') &&
		    strlen(f->lsm_str) < 64) {
			int obj = f->type >= AF_OBJ_USER && f->type <= AF_OBJ_LEV_HIGH;
			if (obj) {
				n = n ? n : new_name(e);
				if (n->path < 0 && n->ino == SP_AUDIT_INO_UNSET)
					n->ino = 68;
				ctx_with(n->octx, sizeof(n->octx), lsm_slot(f->type), f->lsm_str);
			} else {
				ctx_with(e->sctx, sizeof(e->sctx), lsm_slot(f->type), f->lsm_str);
			}
		}
		break;
	}
	*nm = n;
}

/* Make e satisfy every field of r (as far as one event can). */
static void aim(struct gen *g, struct evspec *e, const struct tool_rule *r)
{
	struct nspec *nm = NULL;
	if (r->list == AL_USER || r->list == AL_EXCLUDE)
		e->kind = rnd_below(g, 2) ? SP_AUDIT_EV_USER : SP_AUDIT_EV_SYSCALL;
	else
		e->kind = r->list == AL_URING ? SP_AUDIT_EV_URING : SP_AUDIT_EV_SYSCALL;
	if (r->list == AL_EXIT || r->list == AL_URING)
		e->nr = pick_nr(g, r);
	for (uint32_t j = 0; j < r->k.field_count; j++)	/* the arch first: perm depends on it */
		if (r->k.fields[j].type == AF_ARCH)
			e->arch = satisfy(g, r->k.fields[j].op, r->k.fields[j].val);
	for (uint32_t j = 0; j < r->k.field_count; j++) {
		const struct audit_kfield *f = &r->k.fields[j];
		uint32_t x = satisfy(g, f->op, f->val);
		if (!aim_task(g, e, r, f, x))
			aim_names(g, e, r, f, x, &nm);
	}
}

static void perturb(struct gen *g, struct evspec *e)
{
	switch (rnd_below(g, 9)) {
	case 0: e->arch = g->arches[rnd_below(g, (uint32_t)g->narches)]; break;
	case 1: e->nr = pick_nr(g, g->nrules ? g->rules[rnd_below(g, (uint32_t)g->nrules)] : NULL); break;
	case 2: e->has_ret = !e->has_ret; break;
	case 3: e->ret = (int64_t)(int32_t)pick(g, AF_EXIT, 0); break;
	case 4: e->auid = pick(g, AF_LOGINUID, SP_AUDIT_UNSET); break;
	case 5: e->uid[rnd_below(g, 4)] = pick(g, AF_UID, 0); break;
	case 6: e->a[rnd_below(g, 4)] = pick(g, AF_ARG0 + rnd_below(g, 4), 0); break;
	case 7: if (e->nnames) e->nnames--; break;
	default: e->kind = rnd_below(g, 3); break;
	}
}

static int build(struct gen *g, const struct evspec *e, struct sp_audit_event *ev)
{
	int err = 0;
	sp_audit_event_reset(ev);
	sp_audit_event_set_kind(ev, (enum sp_audit_event_kind)e->kind);
	sp_audit_event_set_syscall(ev, e->arch, e->nr);
	sp_audit_event_set_args(ev, e->a[0], e->a[1], e->a[2], e->a[3]);
	if (e->has_ret)
		sp_audit_event_set_return(ev, e->ret);
	else
		sp_audit_event_clear_return(ev);
	sp_audit_event_set_pids(ev, e->pid, e->tid, e->ppid);
	sp_audit_event_set_uids(ev, e->uid[0], e->uid[1], e->uid[2], e->uid[3]);
	sp_audit_event_set_gids(ev, e->gid[0], e->gid[1], e->gid[2], e->gid[3]);
	err = sp_audit_event_set_groups(ev, e->groups, e->ngroups);
	sp_audit_event_set_loginuid(ev, e->auid);
	sp_audit_event_set_sessionid(ev, e->ses);
	sp_audit_event_set_personality(ev, e->pers);
	sp_audit_event_set_saddr_fam(ev, e->saddr);
	sp_audit_event_set_msgtype(ev, e->msgtype);
	sp_audit_event_set_openat2_flags(ev, e->o2flags);
	if (e->exe >= 0) {
		uint64_t ino;
		uint32_t dev;
		if (!sp_audit_fsview_lookup(g->fs, g->paths[e->exe], &ino, &dev, NULL))
			sp_audit_event_set_exe(ev, ino, dev);
	}
	if (!err && e->sctx[0])
		err = sp_audit_event_set_subj_ctx(ev, e->sctx);
	for (int i = 0; i < e->nnames && !err; i++) {
		const struct nspec *n = &e->names[i];
		int k;
		if (n->path >= 0) {
			k = sp_audit_event_add_path(ev, g->fs, g->paths[n->path]);
		} else {
			k = sp_audit_event_add_name(ev, n->ino, n->dev);
			if (k >= 0 && n->ino != SP_AUDIT_INO_UNSET)
				sp_audit_event_name_add_walked(ev, k, n->ino, n->dev);
		}
		if (k < 0) {
			err = k == -ENOSPC ? 0 : k;
			continue;
		}
		if (n->set_mode)
			sp_audit_event_name_set_mode(ev, k, n->mode);
		if (n->set_owner)
			sp_audit_event_name_set_owner(ev, k, n->uid, n->gid);
		if (n->set_rdev)
			sp_audit_event_name_set_rdev(ev, k, n->rdev);
		if (n->set_magic)
			sp_audit_event_name_set_fs_magic(ev, k, n->magic);
		if (n->octx[0])
			err = sp_audit_event_name_set_obj_ctx(ev, k, n->octx);
	}
	return err == -EINVAL ? 0 : err;
}

static int same(const struct sp_audit_decision *a, const struct sp_audit_decision *b, int relaxed)
{
	if (a->record != b->record || a->task != b->task || a->user != b->user ||
	    a->context != b->context || a->fs_hidden != b->fs_hidden)
		return 0;
	if (a->record && a->excluded != b->excluded)
		return 0;
	if (!relaxed && a->exit != b->exit)
		return 0;
	if (a->has_key != b->has_key && (a->record || !relaxed))
		return 0;
	if (a->has_key && b->has_key && (a->key_len != b->key_len || memcmp(a->key, b->key, a->key_len)))
		return 0;
	return 1;
}

static void describe(const struct gen *g, const struct evspec *e, const struct sp_audit_decision *da,
		     const struct sp_audit_decision *db, char *buf, size_t len)
{
	char x[300], y[300];
	const char *an = sp_audit_arch_name(e->arch);
	const char *sn = sp_audit_syscall_name(e->arch == SP_AUDIT_ARCH_I386 ? "i386" : "x86_64", e->nr);
	int n = snprintf(buf, len,
			 "event kind=%u arch=%s syscall=%d(%s) a0=%llx a1=%llx a2=%llx a3=%llx %s%lld "
			 "pid=%u ppid=%u uid=%u,%u,%u,%u gid=%u,%u,%u,%u auid=%u ses=%u saddr_fam=%d exe=%s",
			 e->kind, an ? an : "?", e->nr, sn ? sn : "?", (unsigned long long)e->a[0],
			 (unsigned long long)e->a[1], (unsigned long long)e->a[2], (unsigned long long)e->a[3],
			 e->has_ret ? "exit=" : "no-return:", (long long)e->ret, e->pid, e->ppid, e->uid[0],
			 e->uid[1], e->uid[2], e->uid[3], e->gid[0], e->gid[1], e->gid[2], e->gid[3], e->auid,
			 e->ses, e->saddr, e->exe >= 0 ? g->paths[e->exe] : "-");
	for (int i = 0; i < e->nnames && n > 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, " name%d=%s", i,
			      e->names[i].path >= 0 ? g->paths[e->names[i].path] : "(ino)");
	sp_audit_decision_format(da, x, sizeof(x));
	sp_audit_decision_format(db, y, sizeof(y));
	if (n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "\n  original:  %s\n  optimized: %s", x, y);
}

struct check {
	struct gen *g;
	const struct sp_audit_ref *ra, *rb;
	struct sp_audit_event *ev;
	int relaxed;
	size_t n;
	char *witness;
	size_t wlen;
};

/* Decide e with both engines: 1 same, 0 different (witness written), -errno. */
static int check(struct check *x, const struct evspec *e)
{
	struct sp_audit_decision da, db;
	int err = build(x->g, e, x->ev);
	if (err)
		return err;
	sp_audit_ref_filter(x->ra, x->ev, &da);
	sp_audit_ref_filter(x->rb, x->ev, &db);
	x->n++;
	if (same(&da, &db, x->relaxed))
		return 1;
	if (x->witness && x->wlen)
		describe(x->g, e, &da, &db, x->witness, x->wlen);
	return 0;
}

static int load_ref(const struct sp_audit_ruleset *rs, const struct sp_audit_fsview *fs,
		    struct sp_audit_ref **out)
{
	struct sp_audit_engine_opts eo = { .sz = sizeof(eo), .fs = fs };
	int err = sp_audit_ref_new(&eo, out);
	for (size_t i = 0; !err && i < sp_audit_ruleset_count(rs); i++) {
		struct sp_audit_item it;
		sp_audit_ruleset_item(rs, i, &it);
		if (it.kind == SP_AUDIT_ITEM_CTRL && !strcmp(it.ctrl, "-D")) {
			sp_audit_ref_free(*out);
			*out = NULL;
			err = sp_audit_ref_new(&eo, out);
		} else if (it.kind == SP_AUDIT_ITEM_ADD) {
			if (sp_audit_ref_add(*out, it.blob, it.blob_len, (uint32_t)i) == -ENOMEM)
				err = -ENOMEM;
		} else if (it.kind == SP_AUDIT_ITEM_DEL) {
			sp_audit_ref_del(*out, it.blob, it.blob_len);
		}
	}
	if (err) {
		sp_audit_ref_free(*out);
		*out = NULL;
	}
	return err;
}

int tool_equiv(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
	       const struct sp_audit_tools_opts *o, int relaxed, size_t *tested, char *witness,
	       size_t wlen)
{
	struct sp_audit_fsview *fs = NULL;
	struct sp_audit_ref *ra = NULL, *rb = NULL;
	struct sp_audit_event *ev = NULL;
	struct tool_set sa, sb;
	struct gen *g = NULL;
	struct evspec e;
	char **paths = NULL;
	size_t npaths = 0, n = 0, budget = o && o->diff_events ? o->diff_events : 20000;
	const char *machine = o ? o->machine : NULL;
	int err, result = 1;

	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	err = tool_fs_build(a, b, &fs, &paths, &npaths);
	if (!err)
		err = tool_set_load(&sa, a, fs, machine);
	if (!err)
		err = tool_set_load(&sb, b, fs, machine);
	if (!err)
		err = load_ref(a, fs, &ra);
	if (!err)
		err = load_ref(b, fs, &rb);
	if (!err)
		err = sp_audit_event_new(&ev);
	if (!err && !(g = malloc(sizeof(*g))))
		err = -ENOMEM;
	if (err)
		goto out;
	gen_init(g, &sa, &sb, o ? o->seed : 0);
	g->fs = fs;
	g->paths = paths;
	g->npaths = npaths;
	g->nrules = sa.n + sb.n;
	g->rules = malloc((g->nrules + 1) * sizeof(*g->rules));
	if (!g->rules) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sa.n; i++)
		g->rules[i] = &sa.v[i];
	for (size_t i = 0; i < sb.n; i++)
		g->rules[sa.n + i] = &sb.v[i];

	struct check x = { g, ra, rb, ev, relaxed, 0, witness, wlen };
	/* 1. every syscall of every exit rule's mask (below 512, on its arch or both x86 ABIs),
	 *    with the rule's other fields satisfied: merges and moves only shift syscalls */
	size_t sweep = 0;
	for (size_t i = 0; i < g->nrules && result == 1 && sweep < 100000; i++) {
		const struct tool_rule *r = g->rules[i];
		uint32_t pop = 0;
		if (r->list != AL_EXIT)
			continue;
		for (int w = 0; w < ARD_MASK_WORDS; w++)
			pop += (uint32_t)__builtin_popcount(r->k.mask[w]);
		if (pop > 128)	/* -S all, watches: covered by the random events */
			continue;
		int seen = 0;	/* a rule of b already swept as a rule of a */
		for (size_t j = 0; i >= sa.n && j < sa.n && !seen; j++)
			seen = tool_same_body(&sa.v[j], r) && !memcmp(sa.v[j].k.mask, r->k.mask, sizeof(r->k.mask));
		if (seen)
			continue;
		for (int32_t nr = 0; nr < 512 && result == 1; nr++) {
			if (!(r->k.mask[nr / 32] >> (nr % 32) & 1))
				continue;
			for (int ab = 0; ab < 2 && result == 1; ab++) {
				random_base(g, &e);
				e.arch = ab ? SP_AUDIT_ARCH_I386 : SP_AUDIT_ARCH_X86_64;
				aim(g, &e, r);
				e.nr = nr;
				result = check(&x, &e);
				sweep++;
			}
		}
	}
	/* 2. each rule's own events (all lists), 3. random ones, half aimed and perturbed */
	size_t own = g->nrules * 6;
	for (size_t i = 0; i < own + budget && result == 1; i++) {
		random_base(g, &e);
		if (i < own) {
			aim(g, &e, g->rules[i / 6]);
		} else if (g->nrules && rnd_below(g, 2)) {
			aim(g, &e, g->rules[rnd_below(g, (uint32_t)g->nrules)]);
			if (rnd_below(g, 2))
				perturb(g, &e);
		}
		result = check(&x, &e);
	}
	if (result < 0)
		err = result;
	n = x.n;
out:
	if (tested)
		*tested = n;
	if (g)
		free(g->rules);
	free(g);
	sp_audit_event_free(ev);
	sp_audit_ref_free(ra);
	sp_audit_ref_free(rb);
	tool_set_release(&sa);
	tool_set_release(&sb);
	sp_audit_fsview_free(fs);
	tool_paths_free(paths, npaths);
	return err ? err : result;
}

SP_API int sp_audit_equiv_check(const struct sp_audit_ruleset *a, const struct sp_audit_ruleset *b,
				const struct sp_audit_tools_opts *o, size_t *events_tested,
				char *witness, size_t witness_len)
{
	if (!a || !b)
		return -EINVAL;
	if (witness && witness_len)
		witness[0] = 0;
	return tool_equiv(a, b, o, o && (o->flags & SP_AUDIT_TOOLS_HOT_NEVER), events_tested,
			  witness, witness_len);
}
