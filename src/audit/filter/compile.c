/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * compile.c - the compiled audit filter's compiler: a rule database (struct audit_ruledb, the
 * kernel-form rules of every list in kernel order) lowered into an immutable matcher
 * (match_int.h).  The db is read-only here: the compiler never sees who owns the rules.
 *
 * The steps (audit_matcher_compile_db): compile_lists (task, user, exclude, io_uring, the inode
 * hash, pending watches, the filesystem list's fstype terms, the exit rules), compile_arch_copies
 * (the exit rules' copies without a statically true arch=), compile_gate, matcher_alloc_hot,
 * compile_dir_guards, compile_candidates, compile_dyn, matcher_layout, compile_busy (the fast
 * path's bitmap by the event's fast index).
 *
 * A candidate list for (slot, nr) holds the exit rules whose mask has nr and whose arch= and
 * perm= predicates are not statically false for that ABI and syscall, and, for events without a
 * visible name, whose predicates do not need one (dir=, inode, obj_*, devmajor...).  In the
 * x86_64 and i386 lists an `arch=` rule is a copy without that (statically true) predicate.
 * Exit rules with `dir=` leave the candidate lists for per-root lists.  The task list is
 * compiled with the kernel's "no audit_context" semantics folded in (arch/perm/names...) and
 * reads the event's task-list view (t_*: the forking task's pid and credentials), the
 * user/exclude lists keep their field order with a STOP predicate for the fields audit_filter()
 * does not know.
 *
 * Invariants: crule indices grow with list order, so every list built from one set is in
 * priority order; a failed step leaves b->err set and everything it built owned by the builder
 * or the matcher (builder_free + sp_audit_matcher_free release it all).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "audit/filter/match_int.h"

#define PERM_UNKNOWN (-2)	/* perm_memo: not computed yet */
/* The hot block's fixed parts: cand_off, then live, dlive and busy. */
#define MATCHER_SZ_CAND (2 * NSLOT * NSYS * sizeof(uint32_t))
#define MATCHER_SZ_LIVE ((2 * NSLOT + NSLOT + EV_NROWS) * (NSYS / 64) * sizeof(uint64_t))

struct builder {
	struct sp_audit_matcher *m;
	const struct audit_ruledb *db;
	struct crule *rules;
	size_t nrules, caprules;
	struct cpred *preds;
	size_t npreds, cappreds;
	uint32_t *pool;
	size_t npool, cappool;
	char *keys;
	size_t nkeys, capkeys;
	struct cident *idents;
	size_t nidents, capidents;
	struct cident *dirs;
	size_t ndirs, capdirs;
	struct lsm_rule *lsm;
	size_t nlsm, caplsm;
	uint32_t (*masks)[ARD_MASK_WORDS];
	size_t nmasks, capmasks;
	const struct audit_krule **krules;	/* crule index -> source rule */
	size_t capk;
	/* dedup of candidate lists: open addressing on list hash */
	uint32_t *dedup;
	size_t capdedup;
	/* the exit list: crules [exit_first, exit_end), then their arch copies */
	uint32_t exit_first, exit_end;
	uint32_t *strip;	/* exit rule - exit_first -> its copy without arch= (x86_64/i386) */
	int32_t *gdir;		/* exit rule - exit_first -> its dir= root, or -1 */
	uint32_t *dguard;	/* exit rule - exit_first -> its dir guard (rule_dguard) when gdir
				 * names a root, else 0 */
	uint32_t *tmp;		/* a list being built: at most one entry per exit rule */
	uint32_t *tmp2;		/* its rules without a guard (glist_index) */
	size_t capglists;
	size_t sz_rules, sz_preds;	/* the hot block's first two parts (matcher_alloc_hot) */
	/* static_perm_bits per (x86_64 / i386, syscall): the perm bits, -1 (argument-dependent)
	 * or PERM_UNKNOWN */
	int8_t perm_memo[2][NSYS];
	int err;
};

/*
 * Room for `need` more elements of `size` bytes in the array *arrp that holds n of *cap
 * (capacity doubles from 64).  Returns 0, or -ENOMEM, also recorded in b->err (the array is
 * then unchanged).
 */
static int grow(struct builder *b, void *arrp, size_t size, size_t n, size_t *cap, size_t need)
{
	void **arr = arrp;
	if (n + need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 64;
	while (nc < n + need)
		nc *= 2;
	void *p = realloc(*arr, nc * size);
	if (!p)
		return b->err = -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

/* Room for one more crule and its source rule. */
static int grow_rules(struct builder *b)
{
	if (grow(b, &b->rules, sizeof(*b->rules), b->nrules, &b->caprules, 1))
		return b->err;
	return grow(b, &b->krules, sizeof(*b->krules), b->nrules, &b->capk, 1);
}

enum mode { M_EXIT, M_HASH, M_TASK, M_UE, M_PENDING };

static int pred_cost(uint8_t kind)
{
	switch (kind) {
	case PK_FALSE: return 0;
	case PK_U32: case PK_LOGINUID_SET: case PK_PERM: case PK_EXIT: case PK_SUCCESS:
	case PK_SADDR: case PK_FCMP_CRED: case PK_MSGTYPE: case PK_EXE: case PK_WATCH:
		return 1;
	case PK_GIDS: return 2;
	case PK_SUBJ_LSM: return 4;
	default: return 3;	/* name walks */
	}
}

/* Append str to the keys, zero-padded to a multiple of KEY_PAD bytes (NUL included): a key
 * shorter than KEY_PAD is copied whole by one fixed-size copy (match.c set_key).  Returns its
 * offset (0 on error, b->err set). */
static uint32_t add_string(struct builder *b, const char *str)
{
	size_t len = strlen(str), n = SP_ALIGN_UP(len + 1, (size_t)KEY_PAD);
	if (grow(b, &b->keys, sizeof(*b->keys), b->nkeys, &b->capkeys, n))
		return 0;
	memcpy(b->keys + b->nkeys, str, len);
	memset(b->keys + b->nkeys + len, 0, n - len);
	b->nkeys += n;
	return (uint32_t)(b->nkeys - n);
}

/* Index of a dir= root among the distinct roots (linear: rule sets hold tens of them). */
static uint32_t add_dir(struct builder *b, uint64_t ino, uint32_t dev)
{
	for (size_t i = 0; i < b->ndirs; i++)
		if (b->dirs[i].ino == ino && b->dirs[i].dev == dev)
			return (uint32_t)i;
	if (grow(b, &b->dirs, sizeof(*b->dirs), b->ndirs, &b->capdirs, 1))
		return 0;
	b->dirs[b->ndirs].ino = ino;
	b->dirs[b->ndirs].dev = dev;
	return (uint32_t)b->ndirs++;
}

/* A predicate operand index: aux is 16 bits wide. */
static uint16_t aux_index(uint32_t i)
{
	SP_ASSERT_INTERNAL(i <= UINT16_MAX);
	return (uint16_t)i;
}

static uint16_t add_ident(struct builder *b, uint64_t ino, uint32_t dev)
{
	if (grow(b, &b->idents, sizeof(*b->idents), b->nidents, &b->capidents, 1))
		return 0;
	b->idents[b->nidents].ino = ino;
	b->idents[b->nidents].dev = dev;
	return aux_index((uint32_t)b->nidents++);
}

static uint16_t add_lsm(struct builder *b, const struct lsm_rule *src)
{
	if (grow(b, &b->lsm, sizeof(*b->lsm), b->nlsm, &b->caplsm, 1))
		return 0;
	struct lsm_rule *l = &b->lsm[b->nlsm];
	*l = *src;
	l->name = src->name ? strdup(src->name) : NULL;
	if (src->name && !l->name)
		b->err = -ENOMEM;
	return aux_index((uint32_t)b->nlsm++);
}

#define EVOFF(f) ((uint16_t)offsetof(struct sp_audit_event, f))

/* audit_filter()'s fields (user and exclude lists): only these exist, the rest end the scan. */
static struct cpred compile_ue_field(struct builder *b, const struct audit_krule *k,
				     const struct audit_kfield *f)
{
	struct cpred p = { .kind = PK_FALSE, .op = (uint8_t)f->op, .val = f->val };
	switch (f->type) {
	case AF_PID: p.kind = PK_U32; p.aux = EVOFF(tid); break;
	case AF_UID: p.kind = PK_U32; p.aux = EVOFF(uid); break;
	case AF_GID: p.kind = PK_U32; p.aux = EVOFF(gid); break;
	case AF_LOGINUID: p.kind = PK_U32; p.aux = EVOFF(loginuid); break;
	case AF_LOGINUID_SET: p.kind = PK_LOGINUID_SET; break;
	case AF_MSGTYPE: p.kind = PK_MSGTYPE; break;
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
		if (f->lsm_rule) {
			p.kind = PK_SUBJ_LSM;
			p.aux = add_lsm(b, f->lsm_rule);
		}
		break;
	case AF_EXE:
		p.kind = PK_EXE;
		p.aux = add_ident(b, k->exe_ino, k->exe_dev);
		break;
	default:
		p.kind = PK_STOP;
		break;
	}
	return p;
}

/*
 * The task's own values: pids, credentials, personality, arch, arguments.  On the task list
 * (task) the credentials and pid are the forking task's (the t_* view) and what needs an audit
 * context (ppid, arch, arguments) stays PK_FALSE.  Returns 1 when f is one of these fields.
 */
static int compile_task_field(struct cpred *p, const struct audit_kfield *f, int task)
{
#define CRED(field) (task ? EVOFF(t_##field) : EVOFF(field))
	switch (f->type) {
	case AF_PID: p->kind = PK_U32; p->aux = task ? EVOFF(t_pid) : EVOFF(pid); break;
	case AF_PPID: if (!task) { p->kind = PK_U32; p->aux = EVOFF(ppid); } break;
	case AF_UID: p->kind = PK_U32; p->aux = CRED(uid); break;
	case AF_EUID: p->kind = PK_U32; p->aux = CRED(euid); break;
	case AF_SUID: p->kind = PK_U32; p->aux = CRED(suid); break;
	case AF_FSUID: p->kind = PK_U32; p->aux = CRED(fsuid); break;
	case AF_GID: case AF_EGID:
		if (f->op == OP_EQ || f->op == OP_NE) {
			p->kind = PK_GIDS;
			p->aux = (uint16_t)((f->type == AF_EGID) | (task ? 2 : 0));
		} else {
			p->kind = PK_U32;
			p->aux = f->type == AF_EGID ? CRED(egid) : CRED(gid);
		}
		break;
	case AF_SGID: p->kind = PK_U32; p->aux = CRED(sgid); break;
	case AF_FSGID: p->kind = PK_U32; p->aux = CRED(fsgid); break;
	case AF_SESSIONID: p->kind = PK_U32; p->aux = CRED(sessionid); break;
	case AF_PERS: p->kind = PK_U32; p->aux = EVOFF(personality); break;
	case AF_ARCH: if (!task) { p->kind = PK_U32; p->aux = EVOFF(c_arch); } break;
	case AF_LOGINUID: p->kind = PK_U32; p->aux = CRED(loginuid); break;
	case AF_LOGINUID_SET: p->kind = PK_LOGINUID_SET; p->aux = (uint16_t)task; break;
	case AF_ARG0: case AF_ARG1: case AF_ARG2: case AF_ARG3:
		if (!task) {
			p->kind = PK_U32;
			p->aux = (uint16_t)(EVOFF(c_argv) + 8 * (f->type - AF_ARG0));	/* low half, LE */
		}
		break;
	default:
		return 0;
	}
#undef CRED
	return 1;
}

/* The collected names' fields (inode, device, owner, type, watch, dir, object context). */
static int compile_name_field(struct builder *b, const struct audit_krule *k, struct cpred *p,
			      const struct audit_kfield *f, enum mode mode)
{
	int task = mode == M_TASK;
	switch (f->type) {
	case AF_DEVMAJOR: if (!task) p->kind = PK_DEVMAJ; break;
	case AF_DEVMINOR: if (!task) p->kind = PK_DEVMIN; break;
	case AF_INODE: if (!task) p->kind = PK_INODE; break;
	case AF_OBJ_UID: if (!task) p->kind = PK_OBJ_UID; break;
	case AF_OBJ_GID: if (!task) p->kind = PK_OBJ_GID; break;
	case AF_WATCH:
		if (mode == M_PENDING) {
			p->kind = PK_WATCH_PATH;
			p->val = add_string(b, k->watch_path);
		} else if (mode == M_HASH) {
			if (k->watch_ino == SP_AUDIT_INO_UNSET) {
				p->kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;	/* see M_PENDING */
			} else {
				p->kind = PK_WATCH;
				p->aux = add_ident(b, k->watch_ino, k->watch_dev);
			}
		}
		break;
	case AF_DIR:
		if (!task) {
			p->kind = PK_DIR;
			p->aux = add_ident(b, k->tree_ino, k->tree_dev);
			p->val = add_dir(b, k->tree_ino, k->tree_dev);
		}
		break;
	case AF_OBJ_USER: case AF_OBJ_ROLE: case AF_OBJ_TYPE: case AF_OBJ_LEV_LOW: case AF_OBJ_LEV_HIGH:
		if (!task && f->lsm_rule) {
			p->kind = PK_OBJ_LSM;
			p->aux = add_lsm(b, f->lsm_rule);
		}
		break;
	case AF_FILETYPE:
		if (task)
			p->kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;
		else
			p->kind = PK_FILETYPE;
		break;
	default:
		return 0;
	}
	return 1;
}

/* Translate one kernel field into a predicate for the given evaluation mode. */
static struct cpred compile_field(struct builder *b, const struct audit_krule *k,
				  const struct audit_kfield *f, enum mode mode)
{
	struct cpred p = { .kind = PK_FALSE, .op = (uint8_t)f->op, .val = f->val };
	int task = mode == M_TASK;

	if (mode == M_UE)
		return compile_ue_field(b, k, f);
	if (compile_task_field(&p, f, task) || compile_name_field(b, k, &p, f, mode))
		return p;
	switch (f->type) {
	case AF_EXE:
		if (task) {
			p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;
		} else {
			p.kind = PK_EXE;
			p.aux = add_ident(b, k->exe_ino, k->exe_dev);
		}
		break;
	case AF_EXIT: if (!task) p.kind = PK_EXIT; break;
	case AF_SUCCESS:
		if (!task) {
			p.kind = PK_SUCCESS;
			p.val = f->val ? RET_SUCCESS : RET_FAILURE;
		}
		break;
	case AF_SADDR_FAM: if (!task) p.kind = PK_SADDR; break;
	case AF_SUBJ_USER: case AF_SUBJ_ROLE: case AF_SUBJ_TYPE: case AF_SUBJ_SEN: case AF_SUBJ_CLR:
		if (f->lsm_rule) {
			p.kind = PK_SUBJ_LSM;
			p.aux = add_lsm(b, f->lsm_rule);
		}
		break;
	case AF_FILTERKEY: p.kind = PK_TRUE; break;
	case AF_PERM:
		if (task)
			p.kind = f->op == OP_NE ? PK_TRUE : PK_FALSE;	/* audit_match_perm(NULL) = 0 */
		else
			p.kind = PK_PERM;
		break;
	case AF_FIELD_COMPARE:
		if (f->val >= 1 && f->val <= ARD_MAX_FIELD_COMPARE) {
			const uint8_t *pr = audit_compare_pairs[f->val];
			int obj = pr[1] == CS_OBJ_UID || pr[1] == CS_OBJ_GID;
			if (obj && task)
				break;	/* no name, no context: 0 */
			p.kind = obj ? PK_FCMP_OBJ : PK_FCMP_CRED;
			p.aux = (uint16_t)(pr[0] | pr[1] << 8 | (task ? FCMP_TASK : 0));
		}
		break;
	}
	return p;
}

static int cmp_pred_cost(const void *a, const void *b)
{
	const struct cpred *x = a, *y = b;
	return pred_cost(x->kind) - pred_cost(y->kind);
}

/* AND is order-free (the predicates have no side effects): cheapest first; the insertion sort
 * keeps equal costs in rule order. */
static void order_preds(struct cpred *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_pred_cost(&v[j - 1], &v[j]) > 0; j--) {
			struct cpred t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
}

/* The fields of k as predicates from b->preds[first] on; -1 when the rule can never match. */
static int compile_preds(struct builder *b, const struct audit_krule *k, enum mode mode, size_t first)
{
	for (uint32_t i = 0; i < k->field_count; i++) {
		struct cpred p = compile_field(b, k, &k->fields[i], mode);
		if (mode != M_UE && p.kind == PK_TRUE)
			continue;
		if (mode != M_UE && p.kind == PK_FALSE)
			return -1;
		b->preds[b->npreds++] = p;
		if (mode == M_UE && p.kind == PK_STOP)
			break;	/* later fields are never read */
	}
	if (mode == M_UE && k->field_count == 0)
		return -1;	/* a rule without fields never matches in audit_filter() */
	if (mode != M_UE)
		order_preds(&b->preds[first], b->npreds - first);
	return 0;
}

/* Compile rule k; returns its crule index, or -1 when it can never match (or on error). */
static int64_t compile_rule(struct builder *b, const struct audit_krule *k, enum mode mode)
{
	size_t first = b->npreds;
	if (grow(b, &b->preds, sizeof(*b->preds), b->npreds, &b->cappreds, k->field_count + 1))
		return -1;
	if (compile_preds(b, k, mode, first)) {
		b->npreds = first;
		return -1;
	}
	if (grow_rules(b))
		return -1;
	struct crule *cr = &b->rules[b->nrules];
	memset(cr, 0, sizeof(*cr));
	cr->prio = k->prio;
	cr->pred = (uint32_t)first;
	SP_ASSERT_INTERNAL(b->npreds - first <= UINT16_MAX);
	cr->npred = (uint16_t)(b->npreds - first);
	cr->action = (uint8_t)k->action;
	cr->id = (int32_t)k->id;
	cr->mask_idx = UINT32_MAX;
	for (uint32_t i = 0; i < cr->npred; i++) {
		const struct cpred *pp = &b->preds[cr->pred + i];
		if (pp->kind == PK_PERM && pp->op == OP_EQ && pp->val && pp->val <= 15)
			cr->permreq = (uint8_t)pp->val;
	}
	if (k->filterkey) {
		cr->key_off = add_string(b, k->filterkey);
		if (b->err)
			return -1;
		cr->has_key = 1;
		cr->key_len = (uint16_t)strlen(k->filterkey);
	}
	if (mode == M_HASH) {
		if (k->inode_f >= 0 && k->fields[k->inode_f].op == OP_EQ) {
			cr->has_hkey = 1;
			cr->hkey = k->fields[k->inode_f].val;
		} else if (k->has_watch && k->watch_ino != SP_AUDIT_INO_UNSET) {
			cr->has_hkey = 1;
			cr->hkey = (uint32_t)k->watch_ino;
		}
	}
	if (mode == M_HASH || mode == M_PENDING || k->listnr == AL_URING) {
		if (grow(b, &b->masks, sizeof(*b->masks), b->nmasks, &b->capmasks, 1))
			return -1;
		memcpy(b->masks[b->nmasks], k->mask, sizeof(k->mask));
		cr->mask_idx = (uint32_t)b->nmasks++;
	}
	b->krules[b->nrules] = k;
	return (int64_t)b->nrules++;
}

/* FNV-1a over a list's count and indices: the dedup table's hash. */
static uint64_t list_hash(const uint32_t *idx, uint32_t n)
{
	uint64_t h = 0xcbf29ce484222325ull ^ n;
	for (uint32_t i = 0; i < n; i++)
		h = (h ^ idx[i]) * 0x100000001b3ull;
	return h;
}

/* The dedup table four times larger, every list re-inserted (keeps it at most half full). */
static void dedup_rehash(struct builder *b)
{
	size_t nc = b->capdedup * 4;
	uint32_t *nd = calloc(nc, sizeof(*nd));
	if (!nd) {
		b->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < b->capdedup; i++) {
		uint32_t o = b->dedup[i];
		if (!o)
			continue;
		size_t t = (size_t)list_hash(&b->pool[o + 1], b->pool[o]) & (nc - 1);
		while (nd[t])
			t = (t + 1) & (nc - 1);
		nd[t] = o;
	}
	free(b->dedup);
	b->dedup = nd;
	b->capdedup = nc;
}

/* Append a candidate list (count + indices) to the pool, deduplicated (libseccomp's _hsh_add);
 * 0 for an empty list. */
static uint32_t add_list(struct builder *b, const uint32_t *idx, uint32_t n)
{
	if (!n)
		return 0;
	uint64_t h = list_hash(idx, n);
	if (b->capdedup == 0) {
		b->capdedup = 1024;
		b->dedup = calloc(b->capdedup, sizeof(*b->dedup));
		if (!b->dedup) {
			b->err = -ENOMEM;
			return 0;
		}
	}
	size_t s = (size_t)h & (b->capdedup - 1);
	for (;; s = (s + 1) & (b->capdedup - 1)) {
		uint32_t off = b->dedup[s];
		if (!off)
			break;
		if (b->pool[off] == n && !memcmp(&b->pool[off + 1], idx, n * sizeof(*idx)))
			return off;
	}
	if (grow(b, &b->pool, sizeof(*b->pool), b->npool, &b->cappool, n + 1))
		return 0;
	uint32_t off = (uint32_t)b->npool;
	b->pool[off] = n;
	memcpy(&b->pool[off + 1], idx, n * sizeof(*idx));
	b->npool += n + 1;
	b->dedup[s] = off;
	if (b->npool > b->capdedup / 2)
		dedup_rehash(b);
	return off;
}

/* The perm bits an event of (arch, nr) has when they do not depend on the arguments, else -1
 * (open, openat, openat2, socketcall: see dyn_off). */
static int perm_bits_of(uint32_t arch, uint32_t nr)
{
	int i386 = arch == SP_AUDIT_ARCH_I386;
	int cls = audit_classify_syscall(arch, nr);
	if (cls == SC_OPEN || cls == SC_OPENAT || cls == SC_OPENAT2 || cls == SC_SOCKETCALL)
		return -1;
	if (cls == SC_EXECVE)
		return PERM_EXEC;
	int w = i386 ? CL_WRITE_32 : CL_WRITE, r = i386 ? CL_READ_32 : CL_READ;
	int c = i386 ? CL_CHATTR_32 : CL_CHATTR;
	return (audit_match_class(w, nr) ? PERM_WRITE : 0) | (audit_match_class(r, nr) ? PERM_READ : 0) |
	       (audit_match_class(c, nr) ? PERM_ATTR : 0);
}

/* perm_bits_of for an ABI slot (i386, else x86_64), memoised in the builder. */
static int static_perm_bits(struct builder *b, int slot, uint32_t nr)
{
	int8_t *memo = &b->perm_memo[slot == 1][nr];
	if (*memo == PERM_UNKNOWN)
		*memo = (int8_t)perm_bits_of(slot == 1 ? SP_AUDIT_ARCH_I386 : SP_AUDIT_ARCH_X86_64, nr);
	return *memo;
}

/* Is predicate p statically false for every event of (arch slot, syscall nr)?  perm >= 0: the
 * event's perm bits are known to be that value (argument-dependent syscalls). */
static int static_false(struct builder *b, const struct cpred *p, int slot, uint32_t nr, int perm)
{
	if (p->kind == PK_PERM && perm >= 0)
		return !((((uint32_t)perm & p->val) != 0) ^ (p->op == OP_NE));
	static const uint32_t slot_arch[2] = { SP_AUDIT_ARCH_X86_64, SP_AUDIT_ARCH_I386 };
	if (p->kind == PK_U32 && p->aux == EVOFF(c_arch) && slot < 2)
		return !audit_comparator(slot_arch[slot], p->op, p->val);
	if (p->kind == PK_PERM) {
		int bits = static_perm_bits(b, slot, nr);
		if (bits < 0)
			return 0;
		return !((((uint32_t)bits & p->val) != 0) ^ (p->op == OP_NE));
	}
	return 0;
}

/* Is p false for every event without a visible name (exit-list mode, name == NULL)? */
static int needs_name(const struct cpred *p)
{
	switch (p->kind) {
	case PK_DEVMAJ: case PK_DEVMIN: case PK_INODE: case PK_OBJ_UID: case PK_OBJ_GID:
	case PK_FCMP_OBJ: case PK_WATCH: case PK_WATCH_PATH: case PK_OBJ_LSM:
		return 1;
	case PK_DIR: case PK_FILETYPE:
		return p->op == OP_EQ;	/* no walked inode / no name of that type */
	default:
		return 0;
	}
}

/* Compile the nk rules of one set (kernel order) in mode; returns the pool list of those that can
 * match (0 when none). */
static uint32_t compile_list(struct builder *b, const struct audit_krule *const *ks, uint32_t nk,
			     enum mode mode)
{
	uint32_t *idx = NULL, n = 0, cap = 0;
	for (uint32_t i = 0; i < nk; i++) {
		const struct audit_krule *k = ks[i];
		if (mode == M_PENDING && (!k->has_watch || k->watch_ino != SP_AUDIT_INO_UNSET))
			continue;
		int64_t r = compile_rule(b, k, mode);
		if (b->err)
			break;
		if (r < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			uint32_t *t = realloc(idx, cap * sizeof(*idx));
			if (!t) {
				b->err = -ENOMEM;
				break;
			}
			idx = t;
		}
		idx[n++] = (uint32_t)r;
		/* user/exclude: a rule whose first predicate stops the scan hides the rest */
		if (mode == M_UE && b->preds[b->rules[r].pred].kind == PK_STOP)
			break;
	}
	uint32_t off = b->err ? 0 : add_list(b, idx, n);
	free(idx);
	return off;
}

static int cmp_key_idx(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : *x > *y;
}

/* The inode hash: per bucket its unkeyed rules, and the keyed ones by (u32) inode (m->hk). */
static int compile_hash(struct builder *b, struct sp_audit_matcher *m, const struct audit_ruledb *db)
{
	uint64_t *keyed = NULL;		/* hkey << 32 | rule index (rule order = priority order) */
	uint32_t *tmp = NULL, nkeyed = 0, capk = 0, ndist = 0;
	for (int h = 0; h < KA_INODE_BUCKETS && !b->err; h++) {
		uint32_t nk, n = 0;
		const struct audit_krule *const *ks = audit_ruledb_bucket(db, h, &nk);
		uint32_t off = compile_list(b, ks, nk, M_HASH);
		if (b->err || !b->pool[off])
			continue;
		m->hash_nonempty |= 1u << h;
		uint32_t cnt = b->pool[off];
		uint32_t *t = realloc(tmp, (cnt + 1) * sizeof(*t));
		if (t)
			tmp = t;
		if (t && nkeyed + cnt > capk) {
			uint64_t *kk = realloc(keyed, 2 * (nkeyed + cnt) * sizeof(*kk));
			if (kk) {
				keyed = kk;
				capk = 2 * (nkeyed + cnt);
			} else {
				t = NULL;
			}
		}
		if (!t) {
			free(tmp);
			free(keyed);
			return b->err = -ENOMEM;
		}
		for (uint32_t k = 1; k <= cnt; k++) {
			uint32_t ri = b->pool[off + k];
			if (b->rules[ri].has_hkey)
				keyed[nkeyed++] = (uint64_t)b->rules[ri].hkey << 32 | ri;
			else
				tmp[n++] = ri;
		}
		m->hash_off[h] = add_list(b, tmp, n);
		if (m->hash_off[h])
			m->hash_unkeyed |= 1u << h;
	}
	/* rule indices grow with list order, so sorting by (key, index) keeps priority order */
	if (nkeyed)
		qsort(keyed, nkeyed, sizeof(*keyed), cmp_key_idx);
	for (uint32_t i = 0; i < nkeyed; i++)
		ndist += !i || keyed[i] >> 32 != keyed[i - 1] >> 32;
	uint32_t cap = 16;
	while (cap < 2 * ndist + 2)
		cap *= 2;
	m->hk = calloc(cap, sizeof(*m->hk));
	if (nkeyed && m->hk) {	/* one key's list can hold all keyed rules */
		uint32_t *t = realloc(tmp, (nkeyed + 1) * sizeof(*t));
		if (t) {
			tmp = t;
		} else {
			free(m->hk);
			m->hk = NULL;
		}
	}
	if (!m->hk) {
		free(tmp);
		free(keyed);
		return b->err = -ENOMEM;
	}
	m->hk_mask = cap - 1;
	for (uint32_t i = 0; i < nkeyed && !b->err;) {
		uint32_t key = (uint32_t)(keyed[i] >> 32), n = 0;
		for (; i < nkeyed && (uint32_t)(keyed[i] >> 32) == key; i++)
			tmp[n++] = (uint32_t)keyed[i];
		uint32_t off = add_list(b, tmp, n), h = (key * 0x9e3779b1u) >> 16 & m->hk_mask;
		while (m->hk[h].off)
			h = (h + 1) & m->hk_mask;
		m->hk[h].key = key;
		m->hk[h].off = off;
		m->hk_bloom[hk_bloom_bit(key) / 64] |= 1ull << (hk_bloom_bit(key) % 64);
	}
	free(tmp);
	free(keyed);
	return b->err;
}
static void builder_free(struct builder *b)
{
	free(b->rules);
	free(b->preds);
	free(b->pool);
	free(b->keys);
	free(b->idents);
	free(b->dirs);
	if (b->lsm)
		for (size_t i = 0; i < b->nlsm; i++)
			free(b->lsm[i].name);
	free(b->lsm);
	free(b->masks);
	free(b->krules);
	free(b->dedup);
	free(b->strip);
	free(b->gdir);
	free(b->dguard);
	free(b->tmp);
	free(b->tmp2);
}

SP_API void sp_audit_matcher_free(struct sp_audit_matcher *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nlsm; i++)
		free(m->lsm[i].name);
	free(m->lsm);
	free(m->keys);
	free(m->idents);
	free(m->dirs);
	free(m->dirhash);
	free(m->dir_bloom);
	free(m->dsig_idx);
	free(m->dsigs);
	free(m->glists);
	free(m->dir_off);
	free(m->hk);
	free(m->masks);
	free(m->fs);
	free(m->pool);
	free(m->hot);
	free(m);
}

/* The filesystem list: the fstype terms of its `never` rules (m->fs). */
static int compile_fs_terms(struct builder *b, const struct audit_krule *const *ks, uint32_t nk)
{
	struct sp_audit_matcher *m = b->m;
	for (uint32_t ri = 0; ri < nk; ri++) {
		const struct audit_krule *k = ks[ri];
		if (k->action != AA_NEVER)
			continue;
		for (uint32_t i = 0; i < k->field_count; i++) {
			if (k->fields[i].type != AF_FSTYPE)
				continue;
			void *t = realloc(m->fs, (m->nfs + 1) * sizeof(*m->fs));
			if (!t)
				return b->err = -ENOMEM;
			m->fs = t;
			m->fs[m->nfs].op = k->fields[i].op;
			m->fs[m->nfs].val = k->fields[i].val;
			m->nfs++;
		}
	}
	return 0;
}

/* A rule of the exclude list cannot match a record of `type` when, before any STOP, one of
 * its predicates is false whatever the event: a msgtype= false for type, or PK_FALSE (filter_ue
 * evaluates them in field order and rejects the rule there at the latest).  1 or 0. */
static int exclude_dead(const struct builder *b, uint32_t ri, uint32_t type)
{
	const struct crule *cr = &b->rules[ri];
	for (uint32_t j = 0; j < cr->npred; j++) {
		const struct cpred *p = &b->preds[cr->pred + j];
		if (p->kind == PK_STOP)
			return 0;
		if (p->kind == PK_FALSE ||
		    (p->kind == PK_MSGTYPE && !audit_comparator(type, p->op, p->val)))
			return 1;
	}
	return 0;
}

/* The exclude list (built) without the rules exclude_dead for `type`, in list order: its pool
 * offset (0 = empty; b->err set on error). */
static uint32_t exclude_view(struct builder *b, uint32_t type)
{
	uint32_t off = b->m->exclude_off, n = 0, cnt = off ? b->pool[off] : 0;
	uint32_t *idx = cnt ? malloc(cnt * sizeof(*idx)) : NULL;
	if (cnt && !idx) {
		b->err = -ENOMEM;
		return 0;
	}
	for (uint32_t k = 1; k <= cnt; k++)
		if (!exclude_dead(b, b->pool[off + k], type))
			idx[n++] = b->pool[off + k];
	uint32_t view = add_list(b, idx, n);
	free(idx);
	return view;
}

/* Every list but the exit list's candidates; the exit rules themselves become crules
 * [exit_first, exit_end). */
static int compile_lists(struct builder *b)
{
	const struct audit_ruledb *db = b->db;
	struct sp_audit_matcher *m = b->m;
	const struct audit_krule *const *ks;
	uint32_t nk;

	m->n_rules = (uint32_t)db->n_rules;
	ks = audit_ruledb_list(db, AL_TASK, &nk);
	m->task_off = compile_list(b, ks, nk, M_TASK);
	ks = audit_ruledb_list(db, AL_USER, &nk);
	m->user_off = compile_list(b, ks, nk, M_UE);
	ks = audit_ruledb_list(db, AL_EXCLUDE, &nk);
	m->exclude_off = compile_list(b, ks, nk, M_UE);
	m->exclude_sys_off = exclude_view(b, KA_MSG_SYSCALL);
	m->exclude_uring_off = exclude_view(b, KA_MSG_URINGOP);
	ks = audit_ruledb_list(db, AL_URING, &nk);
	m->uring_off = compile_list(b, ks, nk, M_EXIT);
	if (compile_hash(b, m, db))
		return b->err;
	ks = audit_ruledb_bucket(db, KA_INODE_BUCKETS - 1, &nk);
	m->pending_off = compile_list(b, ks, nk, M_PENDING);
	ks = audit_ruledb_list(db, AL_FS, &nk);
	if (compile_fs_terms(b, ks, nk))
		return b->err;
	b->exit_first = (uint32_t)b->nrules;
	ks = audit_ruledb_list(db, AL_EXIT, &nk);
	for (uint32_t ri = 0; ri < nk; ri++) {
		compile_rule(b, ks[ri], M_EXIT);
		if (b->err)
			return b->err;
	}
	b->exit_end = (uint32_t)b->nrules;
	return 0;
}

/*
 * The x86_64 / i386 candidate lists hold a copy of each `arch=` rule without that predicate:
 * a list of one ABI only holds the rules whose arch= is true for it (static_false).  strip[]
 * maps each exit rule to the crule those lists take (itself when it has no such arch=).
 */
static int compile_arch_copies(struct builder *b)
{
	b->strip = malloc((b->exit_end - b->exit_first + 1) * sizeof(*b->strip));
	if (!b->strip)
		return b->err = -ENOMEM;
	for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++) {
		uint32_t narch = 0, other = 0, pred = b->rules[ri].pred, np = b->rules[ri].npred;
		b->strip[ri - b->exit_first] = ri;
		for (uint32_t pi = 0; pi < np; pi++) {
			const struct cpred *pp = &b->preds[pred + pi];
			if (pp->kind == PK_U32 && pp->aux == EVOFF(c_arch)) {
				if (pp->op == OP_EQ && (pp->val == SP_AUDIT_ARCH_X86_64 || pp->val == SP_AUDIT_ARCH_I386))
					narch++;
				else
					other++;
			}
		}
		if (!narch || other)
			continue;
		if (grow(b, &b->preds, sizeof(*b->preds), b->npreds, &b->cappreds, np) || grow_rules(b))
			return b->err;
		struct crule c = b->rules[ri];
		c.pred = (uint32_t)b->npreds;
		for (uint32_t pi = 0; pi < np; pi++) {
			struct cpred pp = b->preds[pred + pi];
			if (!(pp.kind == PK_U32 && pp.aux == EVOFF(c_arch)))
				b->preds[b->npreds++] = pp;
		}
		c.npred = (uint16_t)(b->npreds - c.pred);
		b->rules[b->nrules] = c;
		b->krules[b->nrules] = b->krules[ri];
		b->strip[ri - b->exit_first] = (uint32_t)b->nrules++;
	}
	return 0;
}

/* The fast path takes syscall events (kind 0) of tasks other than auditd; with filesystem rules
 * only those without names (nothing to hide). */
static void compile_gate(struct builder *b)
{
	struct sp_audit_matcher *m = b->m;
	m->slow_gate = b->pool[m->task_off] || !m->n_rules ? ~0u
			: 0xffu | EV_GATE_AUDITD | (m->nfs ? EV_GATE_NAMES : 0);
	m->hash_any = m->hash_nonempty | m->pending_off;
}

/* The hot block: rules | preds | cand_off | live, dlive (each part cache-line aligned); the
 * rules and predicates are final from here on, the tables zero. */
static int matcher_alloc_hot(struct builder *b)
{
	struct sp_audit_matcher *m = b->m;
	b->sz_rules = SP_ALIGN_UP(b->nrules * sizeof(struct crule) + 1, SP_CACHELINE);
	b->sz_preds = SP_ALIGN_UP(b->npreds * sizeof(struct cpred) + 1, SP_CACHELINE);
	size_t sz = b->sz_rules + b->sz_preds + MATCHER_SZ_CAND + MATCHER_SZ_LIVE;
	m->hot = aligned_alloc(SP_CACHELINE, sz);
	if (!m->hot)
		return b->err = -ENOMEM;
	memset(m->hot, 0, sz);
	m->cand_off = (void *)((char *)m->hot + b->sz_rules + b->sz_preds);
	m->live = (void *)((char *)m->cand_off + MATCHER_SZ_CAND);
	m->dlive = (void *)((char *)m->live + 2 * NSLOT * (NSYS / 64) * sizeof(uint64_t));
	m->busy = (void *)((char *)m->dlive + NSLOT * (NSYS / 64) * sizeof(uint64_t));
	b->tmp = malloc((b->exit_end - b->exit_first + 1) * sizeof(*b->tmp));
	b->tmp2 = malloc((b->exit_end - b->exit_first + 1) * sizeof(*b->tmp2));
	b->gdir = malloc((b->exit_end - b->exit_first + 1) * sizeof(*b->gdir));
	b->dguard = malloc((b->exit_end - b->exit_first + 1) * sizeof(*b->dguard));
	if (!b->tmp || !b->tmp2 || !b->gdir || !b->dguard)
		return b->err = -ENOMEM;
	return 0;
}

/* A rule's guard (match_int.h): its first exe= or subj_type= predicate with op EQ. */
static uint32_t rule_guard(const struct crule *cr, const struct cpred *preds,
			   const struct cident *idents, const struct lsm_rule *lsm)
{
	for (uint32_t pi = 0; pi < cr->npred; pi++) {
		const struct cpred *p = &preds[cr->pred + pi];
		if (p->op != OP_EQ)
			continue;
		if (p->kind == PK_EXE)
			return audit_guard_exe(idents[p->aux].ino, idents[p->aux].dev);
		if (p->kind == PK_SUBJ_LSM && lsm[p->aux].field == AF_SUBJ_TYPE)
			return audit_guard_type(lsm[p->aux].h_name);
	}
	return 0;
}

/* A dir= rule's guard: its guard, else its first uid= or auid= predicate with op EQ
 * (audit_guard_cred).  The matcher reads it only through the plain signatures and dgsig
 * (dir_maybe). */
static uint32_t rule_dguard(const struct crule *cr, const struct cpred *preds,
			    const struct cident *idents, const struct lsm_rule *lsm)
{
	uint32_t g = rule_guard(cr, preds, idents, lsm);
	for (uint32_t pi = 0; !g && pi < cr->npred; pi++) {
		const struct cpred *p = &preds[cr->pred + pi];
		if (p->kind == PK_U32 && p->op == OP_EQ &&
		    (p->aux == EVOFF(uid) || p->aux == EVOFF(loginuid)))
			g = audit_guard_cred(p->aux, p->val);
	}
	return g;
}

/*
 * dir= guards: an exit rule with `dir=` (only `=` is accepted) matches only events that walked
 * that root; such rules leave the candidate lists for per-root lists (dir_off), each rule with
 * its mask in masks[] (dir_guarded tests it).
 */
static int compile_dir_guards(struct builder *b)
{
	struct sp_audit_matcher *m = b->m;
	for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++) {
		const struct crule *cr = &b->rules[ri];
		b->gdir[ri - b->exit_first] = -1;
		for (uint32_t pi = 0; pi < cr->npred && b->ndirs <= DIRS_MAX; pi++)
			if (b->preds[cr->pred + pi].kind == PK_DIR && b->preds[cr->pred + pi].op == OP_EQ)
				b->gdir[ri - b->exit_first] = (int32_t)b->preds[cr->pred + pi].val;
		uint32_t g = b->gdir[ri - b->exit_first] < 0 ? 0 :
			     rule_dguard(cr, b->preds, b->idents, b->lsm);
		b->dguard[ri - b->exit_first] = g;
		m->dgsig |= audit_guard_sig(g);
	}
	if (!b->ndirs || b->ndirs > DIRS_MAX)
		return 0;
	m->dir_off = calloc(b->ndirs, sizeof(*m->dir_off));
	if (!m->dir_off)
		return b->err = -ENOMEM;
	for (uint32_t root = 0; root < b->ndirs; root++) {
		uint32_t n = 0;
		for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++) {
			if (b->gdir[ri - b->exit_first] != (int32_t)root)
				continue;
			b->tmp[n++] = ri;
			if (b->rules[ri].mask_idx != UINT32_MAX)
				continue;
			if (grow(b, &b->masks, sizeof(*b->masks), b->nmasks, &b->capmasks, 1))
				return b->err;
			memcpy(b->masks[b->nmasks], b->krules[ri]->mask, sizeof(b->krules[ri]->mask));
			b->rules[ri].mask_idx = (uint32_t)b->nmasks++;
		}
		m->dir_off[root] = add_list(b, b->tmp, n);
		if (b->err)
			return b->err;
	}
	return 0;
}

/* Every rule's guard (the candidate loop reads the exit rules' and their arch copies'). */
static void compile_guards(struct builder *b)
{
	for (uint32_t ri = 0; ri < b->nrules; ri++) {
		uint32_t g = rule_guard(&b->rules[ri], b->preds, b->idents, b->lsm);
		b->rules[ri].guard = g;
		b->m->gsig |= audit_guard_sig(g);
	}
}

/* Can exit rule ri never match an event of (slot, nr) (perm >= 0: with those perm bits;
 * nonames: without a visible name)?  Inline: it runs per rule for each of 6 x 2048 syscalls. */
static sp_always_inline int exit_rule_dead(struct builder *b, uint32_t ri, int slot, uint32_t nr,
					   int perm, int nonames)
{
	const struct crule *cr = &b->rules[ri];
	if (!(b->krules[ri]->mask[nr / 32] >> (nr % 32) & 1))
		return 1;
	for (uint32_t pi = 0; pi < cr->npred; pi++) {
		const struct cpred *pp = &b->preds[cr->pred + pi];
		if (static_false(b, pp, slot, nr, perm) || (nonames && needs_name(pp)))
			return 1;
	}
	return 0;
}

/* The index in glists of the guarded list at pool offset full (added when new). */
static uint32_t glist_index(struct builder *b, uint32_t full, const uint32_t *ids, uint32_t n)
{
	struct sp_audit_matcher *m = b->m;
	uint32_t np = 0, g;
	for (g = 0; g < m->nglists; g++)	/* few distinct lists: a scan */
		if (m->glists[g].full == full)
			return g;
	if (grow(b, &m->glists, sizeof(*m->glists), m->nglists, &b->capglists, 1))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		if (!b->rules[ids[i]].guard)
			b->tmp2[np++] = ids[i];
	m->glists[g] = (struct glist){ full, add_list(b, b->tmp2, np) };
	m->nglists++;
	return g;
}

/* A candidate list's pool offset for rules ids[0..n); when one of them has a guard, its
 * glists index with GUARD_FLAG. */
static uint32_t cand_list(struct builder *b, const uint32_t *ids, uint32_t n)
{
	uint32_t off = add_list(b, ids, n);
	SP_ASSERT_INTERNAL(off < GUARD_FLAG);
	for (uint32_t i = 0; i < n; i++)
		if (b->rules[ids[i]].guard)
			return glist_index(b, off, ids, n) | GUARD_FLAG;
	return off;
}

/* The crule an exit rule's candidate lists of slot take: its arch copy on x86_64 / i386. */
static uint32_t exit_cand(const struct builder *b, uint32_t ri, int slot)
{
	return slot < 2 ? b->strip[ri - b->exit_first] : ri;
}

/* The signature (audit_ev_sig_add) of the roots named by the dir= predicates of the exit rules
 * guarded for (slot, nr) with those perm bits (-1: any); plain: of those without a dir guard
 * only (rule_dguard). */
static void guarded_sig(struct builder *b, int slot, uint32_t nr, int perm, int plain,
			uint64_t sig[2])
{
	sig[0] = sig[1] = 0;
	for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++) {
		if (b->gdir[ri - b->exit_first] < 0 || exit_rule_dead(b, ri, slot, nr, perm, 0))
			continue;
		if (plain && b->dguard[ri - b->exit_first])
			continue;
		const struct crule *cr = &b->rules[ri];
		for (uint32_t pi = 0; pi < cr->npred; pi++) {
			const struct cpred *p = &b->preds[cr->pred + pi];
			if (p->kind == PK_DIR)
				audit_ev_sig_add(sig, audit_walk_hash(b->dirs[p->val].ino,
								      b->dirs[p->val].dev));
		}
	}
}

/* The index in dsigs of the guarded rules' signature for (slot, nr, perm, plain), added when
 * new (the last index takes the union of those that do not fit). */
static uint8_t dsig_index(struct builder *b, int slot, uint32_t nr, int perm, int plain)
{
	struct sp_audit_matcher *m = b->m;
	uint64_t sig[2];
	uint32_t i = 1;
	guarded_sig(b, slot, nr, perm, plain, sig);
	if (!sig[0] && !sig[1])
		return 0;
	while (i < m->ndsigs && (m->dsigs[i][0] != sig[0] || m->dsigs[i][1] != sig[1]))
		i++;
	if (i == DSIGS_MAX) {
		m->dsigs[--i][0] |= sig[0];
		m->dsigs[i][1] |= sig[1];
	} else if (i == m->ndsigs) {
		m->dsigs[m->ndsigs][0] = sig[0];
		m->dsigs[m->ndsigs++][1] = sig[1];
	}
	return (uint8_t)i;
}

/* The candidate list of every (table, syscall), the live / dlive bits of the fast path, and the
 * roots' signature of each dlive syscall. */
static int compile_candidates(struct builder *b)
{
	struct sp_audit_matcher *m = b->m;
	m->dsig_idx = calloc(2 * NSLOT, sizeof(*m->dsig_idx));
	m->dsigs = calloc(DSIGS_MAX, sizeof(*m->dsigs));
	if (!m->dsig_idx || !m->dsigs)
		return b->err = -ENOMEM;
	m->dsig_plain = m->dsig_idx + NSLOT;
	m->ndsigs = 1;		/* entry 0: the empty signature */
	for (int tab = 0; tab < 2 * NSLOT; tab++) {
		int slot = tab % NSLOT, nonames = tab >= NSLOT;
		for (uint32_t nr = 0; nr < NSYS; nr++) {
			uint32_t n = 0, ng = 0;
			for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++) {
				if (exit_rule_dead(b, ri, slot, nr, -1, nonames))
					continue;
				if (b->gdir[ri - b->exit_first] >= 0)
					ng++;	/* reached through its root (dir_guarded) */
				else
					b->tmp[n++] = exit_cand(b, ri, slot);
			}
			uint32_t off = cand_list(b, b->tmp, n);
			if (b->err)
				return b->err;
			m->cand_off[tab][nr] = off;
			if (n || ng)
				m->live[(tab * NSYS + nr) / 64] |= 1ull << (nr % 64);
			if (ng && !nonames) {	/* only named tables: dir= needs a name */
				m->dlive[slot][nr / 64] |= 1ull << (nr % 64);
				m->dsig_idx[slot][nr] = dsig_index(b, slot, nr, -1, 0);
				m->dsig_plain[slot][nr] = dsig_index(b, slot, nr, -1, 1);
			}
		}
	}
	return 0;
}

/* Argument-dependent syscalls (open, openat, openat2, socketcall): one list per possible value
 * of the perm bits, and their cand_off entries (when live) point there. */
static int compile_dyn(struct builder *b)
{
	static const uint32_t x64[4] = { 2, 257, 437, UINT32_MAX };
	static const uint32_t x32[4] = { 5, 295, 437, 102 };
	struct sp_audit_matcher *m = b->m;
	for (int slot = 0; slot < NSLOT; slot++)
		memcpy(m->dyn_nr[slot], slot == 1 ? x32 : x64, sizeof(x64));
	for (int tab = 0; tab < 2 * NSLOT; tab++) {
		int slot = tab % NSLOT, nonames = tab >= NSLOT;
		for (int k = 0; k < 4; k++) {
			uint32_t nr = m->dyn_nr[slot][k];
			if (nr == UINT32_MAX)
				continue;
			for (int perm = 0; perm < 16; perm++) {
				uint32_t n = 0;
				for (uint32_t ri = b->exit_first; ri < b->exit_end; ri++)
					if (b->gdir[ri - b->exit_first] < 0 &&	/* see dir_guarded */
					    !exit_rule_dead(b, ri, slot, nr, perm, nonames))
						b->tmp[n++] = exit_cand(b, ri, slot);
				m->dyn_off[tab][k][perm] = cand_list(b, b->tmp, n);
				if (b->err)
					return b->err;
			}
			if (matcher_live(m, tab * NSYS + nr))
				m->cand_off[tab][nr] = DYN_FLAG | (uint32_t)k;
			if (nonames || !(m->dlive[slot][nr / 64] >> (nr % 64) & 1))
				continue;
			for (int perm = 0; perm < 16; perm++) {	/* the roots by perm bits too */
				m->dsig_dyn[slot][k][perm] = dsig_index(b, slot, nr, perm, 0);
				m->dsig_pdyn[slot][k][perm] = dsig_index(b, slot, nr, perm, 1);
			}
			m->dsig_idx[slot][nr] = DSIG_DYN;
		}
	}
	return 0;
}

/* busy[] bit of fast index (row, nr): the event needs the lists (match_int.h).  1 or 0. */
static int busy_bit(const struct sp_audit_matcher *m, uint32_t row, uint32_t nr)
{
	if (m->slow_gate == ~0u || row == EV_ROW_OTHER)
		return 1;	/* task list or no rules; another kind, or auditd: the slow path */
	if (row == EV_ROW_RANGE)	/* no mask holds nr: only a filesystem rule can hide a name */
		return nr == 1 && m->nfs;
	if (matcher_live(m, row * NSYS + nr))
		return 1;
	return row < NSLOT && (m->hash_any || m->nfs);	/* names: the inode hash, fstype terms */
}

/* The fast path's busy[] bitmap, from live[] and the lists every event of a row consults. */
static void compile_busy(struct sp_audit_matcher *m)
{
	for (uint32_t row = 0; row < EV_NROWS; row++)
		for (uint32_t nr = 0, fast = row * NSYS; nr < NSYS; nr++, fast++)
			m->busy[fast / 64] |= (uint64_t)busy_bit(m, row, nr) << (fast % 64);
}

/* The dir= roots' open-addressing table (at most half full) and bloom bits (64 per root, at
 * least 256 and at most 64 Ki: a walked inode that is no root passes with odds of about 1/64). */
static int compile_dirhash(struct sp_audit_matcher *m)
{
	uint32_t cap = 16, bits = 256;
	while (cap < 2 * m->ndirs + 2)
		cap *= 2;
	while (bits < 64 * m->ndirs && bits < 65536)
		bits *= 2;
	m->dirhash = calloc(cap, sizeof(uint32_t));
	m->dir_bloom = calloc(bits / 64, sizeof(uint64_t));
	if (!m->dirhash || !m->dir_bloom)
		return -ENOMEM;
	m->dirhash_mask = cap - 1;
	m->dir_bloom_mask = bits - 1;
	for (uint32_t i = 0; i < m->ndirs; i++) {
		uint32_t wh = audit_walk_hash(m->dirs[i].ino, m->dirs[i].dev), b = dir_bloom_bit(m, wh);
		m->dir_bloom[b / 64] |= 1ull << (b % 64);
		m->dir_sig |= audit_walk_bit(wh);
		uint32_t h = wh & m->dirhash_mask;
		while (m->dirhash[h])
			h = (h + 1) & m->dirhash_mask;
		m->dirhash[h] = i + 1;
	}
	return 0;
}

/* Move the builder's tables into the matcher: rules and predicates into the hot block, the rest
 * by pointer (the pool too: grown with realloc, read-only from now on). */
static int matcher_layout(struct builder *b)
{
	struct sp_audit_matcher *m = b->m;
	m->rules = (struct crule *)m->hot;
	if (b->nrules)
		memcpy(m->rules, b->rules, b->nrules * sizeof(struct crule));
	m->preds = (struct cpred *)((char *)m->hot + b->sz_rules);
	if (b->npreds)
		memcpy(m->preds, b->preds, b->npreds * sizeof(struct cpred));
	m->pool = b->pool;
	b->pool = NULL;
	m->keys = b->keys;
	b->keys = NULL;
	m->idents = b->idents;
	b->idents = NULL;
	m->dirs = b->dirs;
	m->ndirs = (uint32_t)b->ndirs;
	b->dirs = NULL;
	if (compile_dirhash(m))
		return b->err = -ENOMEM;
	m->lsm = b->lsm;
	m->nlsm = b->nlsm;
	b->lsm = NULL;
	m->masks = b->masks;
	b->masks = NULL;
	m->nrules = b->nrules;
	m->npreds = b->npreds;
	m->npool = b->npool;
	m->nkeys = b->nkeys;
	m->nidents = b->nidents;
	m->nmasks = b->nmasks;
	m->hot_bytes = b->sz_rules + b->sz_preds + MATCHER_SZ_CAND + MATCHER_SZ_LIVE +
		       b->npool * sizeof(uint32_t);
	m->total_bytes = m->hot_bytes + b->nkeys + b->nidents * sizeof(struct cident) +
			 b->nlsm * sizeof(struct lsm_rule) + b->nmasks * sizeof(*m->masks) +
			 (m->hk_mask + 1) * sizeof(*m->hk) + (m->dir_off ? m->ndirs * sizeof(uint32_t) : 0) +
			 (m->dirhash_mask + 1) * sizeof(uint32_t) + (m->dir_bloom_mask + 1) / 8 +
			 m->nglists * sizeof(*m->glists);
	return 0;
}

int audit_matcher_compile_db(const struct audit_ruledb *db, struct sp_audit_matcher **out)
{
	struct builder b;
	struct sp_audit_matcher *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	memset(&b, 0, sizeof(b));
	memset(b.perm_memo, PERM_UNKNOWN, sizeof(b.perm_memo));
	b.m = m;
	b.db = db;
	if (!grow(&b, &b.pool, sizeof(*b.pool), b.npool, &b.cappool, 1))
		b.pool[b.npool++] = 0;	/* offset 0: the empty list */
	if (b.err || compile_lists(&b) || compile_arch_copies(&b))
		goto fail;
	compile_guards(&b);
	compile_gate(&b);
	if (matcher_alloc_hot(&b) || compile_dir_guards(&b) || compile_candidates(&b) ||
	    compile_dyn(&b) || matcher_layout(&b))
		goto fail;
	compile_busy(m);
	builder_free(&b);
	SP_ASSERT_EXPENSIVE(audit_matcher_is_valid(m));
	*out = m;
	return 0;
fail:;
	int err = b.err ? b.err : -ENOMEM;
	builder_free(&b);
	m->lsm = NULL;
	m->nlsm = 0;
	sp_audit_matcher_free(m);
	return err;
}

SP_API int sp_audit_matcher_compile(const struct sp_audit_ref *r, struct sp_audit_matcher **out)
{
	struct audit_ruledb db;
	int err = audit_ruledb_from_ref(&db, r);
	if (!err)
		err = audit_matcher_compile_db(&db, out);
	audit_ruledb_release(&db);
	return err;
}

SP_API void sp_audit_matcher_size(const struct sp_audit_matcher *m, size_t *hot, size_t *total)
{
	if (hot)
		*hot = m->hot_bytes;
	if (total)
		*total = m->total_bytes;
}

/* ---- the validity walker (SP_ASSERT_EXPENSIVE after every compile) ---- */

/*
 * The list at pool offset off: 0 is the empty list, any other offset a non-empty list inside the
 * pool whose rules exist and are, when ordered, in strictly descending priority (the exit,
 * io_uring and inode-hash lists: first match = highest priority), else in kernel (index) order.
 */
static int list_is_valid(const struct sp_audit_matcher *m, uint32_t off, int ordered)
{
	if (!off)
		return 1;
	if (off >= m->npool || !m->pool[off] || m->pool[off] > m->npool - off - 1)
		return 0;
	const uint32_t *l = &m->pool[off];
	for (uint32_t k = 1; k <= l[0]; k++) {
		if (l[k] >= m->nrules)
			return 0;
		if (k > 1 && (ordered ? m->rules[l[k - 1]].prio <= m->rules[l[k]].prio : l[k - 1] >= l[k]))
			return 0;
	}
	return 1;
}

static int pred_is_valid(const struct sp_audit_matcher *m, const struct cpred *p)
{
	switch (p->kind) {
	case PK_U32: return p->aux + sizeof(uint32_t) <= sizeof(struct sp_audit_event);
	case PK_PERM: return p->val <= 15;
	case PK_EXE: case PK_WATCH: return p->aux < m->nidents;
	case PK_DIR: return p->aux < m->nidents && p->val < m->ndirs;
	case PK_SUBJ_LSM: case PK_OBJ_LSM: return p->aux < m->nlsm;
	case PK_WATCH_PATH: return p->val < m->nkeys;
	case PK_FCMP_CRED: case PK_FCMP_OBJ:
		return (p->aux & 0xff) <= CS_OBJ_GID && ((p->aux >> 8) & 0x7f) <= CS_OBJ_GID;
	default: return p->kind <= PK_WATCH_PATH;
	}
}

/* Rule cr's key: inside the keys, NUL-terminated and zero up to its KEY_PAD boundary. */
static int key_is_valid(const struct sp_audit_matcher *m, const struct crule *cr)
{
	size_t end = SP_ALIGN_UP((size_t)cr->key_off + cr->key_len + 1, (size_t)KEY_PAD);
	if (cr->key_off % KEY_PAD || end > m->nkeys)
		return 0;
	for (size_t i = (size_t)cr->key_off + cr->key_len; i < end; i++)
		if (m->keys[i])
			return 0;
	return 1;
}

/* Every rule's predicates, mask and key inside their tables. */
static int rules_are_valid(const struct sp_audit_matcher *m)
{
	for (size_t i = 0; i < m->nrules; i++) {
		const struct crule *cr = &m->rules[i];
		if (cr->pred > m->npreds || cr->npred > m->npreds - cr->pred || cr->permreq > 15 ||
		    (cr->mask_idx != UINT32_MAX && cr->mask_idx >= m->nmasks) ||
		    (cr->action != AA_NEVER && cr->action != AA_ALWAYS))
			return 0;
		if (cr->has_key && !key_is_valid(m, cr))
			return 0;
		for (uint32_t j = 0; j < cr->npred; j++)
			if (!pred_is_valid(m, &m->preds[cr->pred + j]))
				return 0;
		if (cr->guard != rule_guard(cr, m->preds, m->idents, m->lsm))
			return 0;
	}
	return 1;
}

/* A candidate list's entry: a valid ordered list, flagged exactly when a rule has a guard. */
static int cand_is_valid(const struct sp_audit_matcher *m, uint32_t off)
{
	uint32_t at = off & GUARD_FLAG ? off & ~GUARD_FLAG : off, plain = 0, np = 0;
	if (off & GUARD_FLAG) {
		if (at >= m->nglists)
			return 0;
		plain = m->glists[at].plain;
		at = m->glists[at].full;
		if (!list_is_valid(m, plain, 1))
			return 0;
	}
	if (!list_is_valid(m, at, 1))
		return 0;
	int guarded = 0;
	for (uint32_t k = 1; at && k <= m->pool[at]; k++) {
		uint32_t ri = m->pool[at + k], g = m->rules[ri].guard;
		guarded |= g != 0;
		if (g && !(m->gsig & audit_guard_sig(g)))
			return 0;
		/* the plain list: the rules without a guard, in the list's order */
		if (!g && (off & GUARD_FLAG) && (np >= m->pool[plain] || m->pool[plain + ++np] != ri))
			return 0;
	}
	if ((off & GUARD_FLAG) && plain && np != m->pool[plain])
		return 0;
	return guarded == !!(off & GUARD_FLAG);
}

/* The candidate tables and the fast path's bitmaps: a syscall with candidates or dir-guarded
 * rules is live (the fast path never skips it), a dynamic entry names its own syscall, busy[]
 * is busy_bit's. */
static int tables_are_valid(const struct sp_audit_matcher *m)
{
	for (int tab = 0; tab < 2 * NSLOT; tab++) {
		int slot = tab % NSLOT;
		for (int k = 0; k < 4; k++)
			for (int perm = 0; perm < 16 && m->dyn_nr[slot][k] != UINT32_MAX; perm++)
				if (!cand_is_valid(m, m->dyn_off[tab][k][perm]))
					return 0;
		for (uint32_t nr = 0; nr < NSYS; nr++) {
			uint32_t off = m->cand_off[tab][nr];
			int live = matcher_live(m, tab * NSYS + nr);
			int dlive = tab < NSLOT && (m->dlive[tab][nr / 64] >> (nr % 64) & 1);
			if (live != (off || dlive))
				return 0;
			/* a guarded syscall's roots' signature (exactly then: the matcher tests
			 * dlive through it), in dsigs or per perm bits */
			uint32_t di = tab < NSLOT ? m->dsig_idx[tab][nr] : 0;
			uint32_t pi = tab < NSLOT ? m->dsig_plain[tab][nr] : 0;
			if (!di != !dlive || (di != DSIG_DYN && di >= m->ndsigs) ||
			    (di == DSIG_DYN && !(off & DYN_FLAG)) || (!di && pi) || pi >= m->ndsigs)
				return 0;
			for (int perm = 0; di == DSIG_DYN && perm < 16; perm++)
				if (m->dsig_dyn[tab][off & 3][perm] >= m->ndsigs ||
				    m->dsig_pdyn[tab][off & 3][perm] >= m->ndsigs)
					return 0;
			if (off & DYN_FLAG) {
				if ((off & ~DYN_FLAG) >= 4 || m->dyn_nr[slot][off & 3] != nr)
					return 0;
			} else if (!cand_is_valid(m, off)) {
				return 0;
			}
		}
	}
	for (uint32_t row = 0; row < EV_NROWS; row++)
		for (uint32_t nr = 0; nr < NSYS; nr++)
			if (matcher_busy(m, row * NSYS + nr) != busy_bit(m, row, nr))
				return 0;
	return 1;
}

/* The dir= roots: each once in dirhash, in the bloom, with its guarded rules' list. */
static int dirs_are_valid(const struct sp_audit_matcher *m)
{
	uint32_t used = 0;
	if ((m->dirhash_mask & (m->dirhash_mask + 1)) || m->dirhash_mask < 2 * m->ndirs)
		return 0;
	for (uint32_t h = 0; h <= m->dirhash_mask; h++)
		used += m->dirhash[h] != 0;
	if (used != m->ndirs)
		return 0;
	if (!m->dir_bloom || m->dir_bloom_mask < 255 || (m->dir_bloom_mask & (m->dir_bloom_mask + 1)))
		return 0;
	for (uint32_t i = 0; i < m->ndirs; i++) {
		uint32_t wh = audit_walk_hash(m->dirs[i].ino, m->dirs[i].dev), b = dir_bloom_bit(m, wh);
		uint32_t h = wh & m->dirhash_mask;
		while (m->dirhash[h] && m->dirhash[h] != i + 1)
			h = (h + 1) & m->dirhash_mask;
		if (!m->dirhash[h] || !(m->dir_bloom[b / 64] >> (b % 64) & 1) ||
		    !(m->dir_sig & audit_walk_bit(wh)))
			return 0;
	}
	if (!m->ndirs || m->ndirs > DIRS_MAX)
		return !m->dir_off;
	if (!m->dir_off)
		return 0;
	for (uint32_t i = 0; i < m->ndirs; i++) {
		const uint32_t *l = &m->pool[m->dir_off[i]];
		if (!list_is_valid(m, m->dir_off[i], 1))
			return 0;
		for (uint32_t k = 1; k <= l[0]; k++) {	/* every dir guard in dgsig */
			uint32_t g = rule_dguard(&m->rules[l[k]], m->preds, m->idents, m->lsm);
			if (g && !(m->dgsig & audit_guard_sig(g)))
				return 0;
		}
	}
	return 1;
}

/* The inode hash: unkeyed rules per bucket, keyed ones under their own (u32) inode in a bucket
 * marked non-empty (hash_pass probes hk only there); hk at most half full. */
static int hash_is_valid(const struct sp_audit_matcher *m)
{
	uint32_t used = 0;
	for (int b = 0; b < KA_INODE_BUCKETS; b++) {
		uint32_t off = m->hash_off[b];
		if (!list_is_valid(m, off, 1) || (off && !(m->hash_nonempty >> b & 1)) ||
		    !off != !(m->hash_unkeyed >> b & 1))
			return 0;
		for (uint32_t k = 1; off && k <= m->pool[off]; k++)
			if (m->rules[m->pool[off + k]].has_hkey)
				return 0;
	}
	if (!m->hk || (m->hk_mask & (m->hk_mask + 1)))
		return 0;
	for (uint32_t h = 0; h <= m->hk_mask; h++) {
		uint32_t off = m->hk[h].off, key = m->hk[h].key;
		if (!off)
			continue;
		used++;
		if (!list_is_valid(m, off, 1) || !(m->hash_nonempty >> (key & (KA_INODE_BUCKETS - 1)) & 1) ||
		    !(m->hk_bloom[hk_bloom_bit(key) / 64] >> (hk_bloom_bit(key) % 64) & 1))
			return 0;
		for (uint32_t k = 1; k <= m->pool[off]; k++) {
			const struct crule *cr = &m->rules[m->pool[off + k]];
			if (!cr->has_hkey || cr->hkey != key)
				return 0;
		}
	}
	return 2 * used <= m->hk_mask + 1;
}

int audit_matcher_is_valid(const struct sp_audit_matcher *m)
{
	uint32_t slow = m->npool && (m->pool[m->task_off] || !m->n_rules)
				? ~0u : 0xffu | EV_GATE_AUDITD | (m->nfs ? EV_GATE_NAMES : 0);
	if (!m->hot || !m->npool || m->pool[0] || (m->nfs && !m->fs))
		return 0;
	if (m->slow_gate != slow || m->hash_any != (m->hash_nonempty | m->pending_off))
		return 0;
	if (!list_is_valid(m, m->task_off, 0) || !list_is_valid(m, m->user_off, 0) ||
	    !list_is_valid(m, m->exclude_off, 0) || !list_is_valid(m, m->uring_off, 1) ||
	    !list_is_valid(m, m->exclude_sys_off, 0) || !list_is_valid(m, m->exclude_uring_off, 0) ||
	    !list_is_valid(m, m->pending_off, 1))
		return 0;
	return rules_are_valid(m) && tables_are_valid(m) && dirs_are_valid(m) && hash_is_valid(m);
}
