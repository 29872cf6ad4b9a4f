/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_policy.c - `secpath policy info|decide` and the policy area's table: seinfo's
 * statistics (its lines, setools' counts: sp_policy_get_counts) with secpath's own table
 * statistics apart (--tables), and the TE access decision for a type pair; the loading and
 * option helpers the policy commands share (search: cmd_policy_search.c, diff:
 * cmd_policy_diff.c).
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/policy.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int parse_layout(const char *s, enum sp_avtab_layout *l)
{
	for (int i = 0; i < SP_AVTAB_NLAYOUTS; i++)
		if (!strcmp(s, sp_avtab_layout_name((enum sp_avtab_layout)i))) {
			*l = (enum sp_avtab_layout)i;
			return 0;
		}
	return -EINVAL;
}

/* No POLICY argument: the running policy, found where setools finds it (*path then points
 * into buf).  0, or -1 reported. */
static int running_policy(struct sp_cli *cli, const char **path, char *buf, size_t len)
{
	int n = *path ? 0 : sp_policy_find_running(NULL, buf, len);
	if (n < 0 || (size_t)n >= len) {
		fprintf(cli->err, "%s: no POLICY given and no running policy found "
			"(/sys/fs/selinux/policy, /etc/selinux/TYPE/policy/policy.33 to .15): %s\n",
			cli->prog, strerror(n < 0 ? -n : ENAMETOOLONG));
		return -1;
	}
	if (!*path)
		*path = buf;
	return 0;
}

/*
 * The policy commands' memory: one region (sp_region, advised for huge pages) for the load and
 * all the command builds from the policy, so that the tables fault in by the 2 MiB page, not by
 * the 4 KiB one.  Virtual space only: what is not touched costs nothing.
 */
#define CLI_REGION_RESERVE ((size_t)64 << 30)

int cli_policy_load(struct sp_cli *cli, const char *path, enum sp_avtab_layout layout,
		    struct sp_policy **p)
{
	struct sp_diags d;
	sp_diags_init(&d, NULL);
	if (!cli->region && sp_region_new(CLI_REGION_RESERVE, &cli->region))
		cli->region = NULL;	/* no region: libc's memory, as sp_policy_read's default */
	struct sp_policy_opts o = { .sz = sizeof(o), .layout = layout, .diags = &d, .file = path,
				    .alloc = cli->region ? sp_region_allocator(cli->region) : NULL };
	int rc = sp_policy_read_file(path, &o, p);
	if (rc) {
		if (d.n)
			cli_print_diags(cli, &d, NULL, NULL);
		else
			fprintf(cli->err, "%s: cannot read '%s': %s\n", cli->prog, path, strerror(-rc));
	}
	sp_diags_release(&d);
	return rc;
}

int cli_policy_open(struct sp_cli *cli, const char **path, char *running, size_t len,
		    enum sp_avtab_layout layout, struct sp_policy **p)
{
	return running_policy(cli, path, running, len) || cli_policy_load(cli, *path, layout, p)
		       ? -1 : 0;
}

/* ---- info ---- */

static void info_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy info [--json] [--tables] [--layout chained|array|flat]\n"
		   "                          [COMPONENT [NAME]...] [--all] [-x] [POLICY]\n\n"
		   "Without POLICY: the running policy, as policy search finds it (a lone operand\n"
		   "is POLICY; seinfo would read it as a NAME).\n"
		   "Print seinfo's statistics of the policy (setools 4.4: its lines, its counts).\n"
		   "--tables adds secpath's own table statistics (avtab entries by kind, table\n"
		   "sizes), which count other things.  POLICY may be xz-compressed.\n"
		   "COMPONENT [NAME] lists items as seinfo does instead (-x/--expand: their\n"
		   "statements), only the items NAME selects when given (NAME: the argument\n"
		   "after the option when another follows it, POLICY being last):\n"
		   "  -t/--type -a/--attribute -r/--role -u/--user -b/--bool -c/--class --common\n"
		   "  --polcap --permissive --sensitivity --category --initialsid (NAME: the name)\n"
		   "  --fs_use --genfscon (the file system)  --netifcon (the interface)\n"
		   "  --portcon (PORT or LOW-HIGH within the record's ports)  --nodecon (ADDR[/LEN])\n"
		   "  --constrain --validatetrans --default (the class)  --typebounds (the bounded\n"
		   "  type)  --ibpkeycon (PKEY[-PKEY], hex)  --ibendportcon (the device)\n"
		   "  --ioportcon --iomemcon --pirqcon --pcidevicecon --devicetreecon (Xen: none on\n"
		   "  an SELinux policy)  --all (the statistics, then every component)\n");
}

/* seinfo's statistics, its lines and its definitions (struct sp_policy_counts) */
static void print_seinfo(FILE *out, const char *path, const struct sp_policy_info *in,
			 const struct sp_policy_counts *n, const char *hu)
{
	const struct { const char *k; uint32_t v; } rows[] = {
		{ "Classes:        ", n->classes }, { "Permissions:    ", n->permissions },
		{ "Sensitivities:  ", n->sensitivities }, { "Categories:     ", n->categories },
		{ "Types:          ", n->types }, { "Attributes:     ", n->attributes },
		{ "Users:          ", n->users }, { "Roles:          ", n->roles },
		{ "Booleans:       ", n->booleans }, { "Cond. Expr.:    ", n->conditionals },
		{ "Allow:          ", n->allow }, { "Neverallow:     ", 0 },
		{ "Auditallow:     ", n->auditallow }, { "Dontaudit:      ", n->dontaudit },
		{ "Type_trans:     ", n->type_trans }, { "Type_change:    ", n->type_change },
		{ "Type_member:    ", n->type_member }, { "Range_trans:    ", n->range_trans },
		{ "Role allow:     ", n->role_allow }, { "Role_trans:     ", n->role_trans },
		{ "Constraints:    ", n->constrain }, { "Validatetrans:  ", n->validatetrans },
		{ "MLS Constrain:  ", n->mlsconstrain }, { "MLS Val. Tran:  ", n->mlsvalidatetrans },
		{ "Permissives:    ", n->permissives }, { "Polcap:         ", n->polcaps },
		{ "Defaults:       ", n->defaults }, { "Typebounds:     ", n->typebounds },
		{ "Allowxperm:     ", n->allowxperm }, { "Neverallowxperm:", 0 },
		{ "Auditallowxperm:", n->auditallowxperm }, { "Dontauditxperm: ", n->dontauditxperm },
		{ "Ibendportcon:   ", n->ibendportcon }, { "Ibpkeycon:      ", n->ibpkeycon },
		{ "Initial SIDs:   ", n->initial_sids }, { "Fs_use:         ", n->fs_use },
		{ "Genfscon:       ", n->genfscon }, { "Portcon:        ", n->portcon },
		{ "Netifcon:       ", n->netifcon }, { "Nodecon:        ", n->nodecon },
	};
	fprintf(out, "Statistics for policy file: %s\n", path);
	fprintf(out, "Policy Version:             %u (MLS %s)\n", in->version,
		in->mls ? "enabled" : "disabled");
	fprintf(out, "Target Policy:              selinux\n");	/* XenFlask is refused */
	fprintf(out, "Handle unknown classes:     %s\n", hu);
	for (size_t i = 0; i + 1 < NELEM(rows); i += 2)
		fprintf(out, "  %s %7u    %s %7u\n", rows[i].k, rows[i].v, rows[i + 1].k,
			rows[i + 1].v);
}

/* seinfo's counts as a JSON object, setools' property names */
static void json_seinfo(FILE *out, const struct sp_policy_counts *n)
{
	const struct { const char *k; uint32_t v; } rows[] = {
		{ "class_count", n->classes }, { "permission_count", n->permissions },
		{ "level_count", n->sensitivities }, { "category_count", n->categories },
		{ "type_count", n->types }, { "type_attribute_count", n->attributes },
		{ "user_count", n->users }, { "role_count", n->roles },
		{ "boolean_count", n->booleans }, { "conditional_count", n->conditionals },
		{ "allow_count", n->allow }, { "neverallow_count", 0 },
		{ "auditallow_count", n->auditallow }, { "dontaudit_count", n->dontaudit },
		{ "type_transition_count", n->type_trans }, { "type_change_count", n->type_change },
		{ "type_member_count", n->type_member }, { "range_transition_count", n->range_trans },
		{ "role_allow_count", n->role_allow }, { "role_transition_count", n->role_trans },
		{ "constraint_count", n->constrain }, { "validatetrans_count", n->validatetrans },
		{ "mlsconstraint_count", n->mlsconstrain },
		{ "mlsvalidatetrans_count", n->mlsvalidatetrans },
		{ "permissives_count", n->permissives }, { "polcap_count", n->polcaps },
		{ "default_count", n->defaults }, { "typebounds_count", n->typebounds },
		{ "allowxperm_count", n->allowxperm }, { "neverallowxperm_count", 0 },
		{ "auditallowxperm_count", n->auditallowxperm },
		{ "dontauditxperm_count", n->dontauditxperm },
		{ "ibendportcon_count", n->ibendportcon }, { "ibpkeycon_count", n->ibpkeycon },
		{ "initialsids_count", n->initial_sids }, { "fs_use_count", n->fs_use },
		{ "genfscon_count", n->genfscon }, { "portcon_count", n->portcon },
		{ "netifcon_count", n->netifcon }, { "nodecon_count", n->nodecon },
	};
	fprintf(out, ", \"seinfo\": {\"target_platform\": \"selinux\"");
	for (size_t i = 0; i < NELEM(rows); i++)
		fprintf(out, ", \"%s\": %u", rows[i].k, rows[i].v);
	fputc('}', out);
}

/* The options info, decide and search share: --json and --layout.  1 consumed argv[*i] (and its value),
 * 0 not one of them, -1 a bad value (reported). */
int cli_policy_common_opt(int argc, char **argv, int *i, int *json, enum sp_avtab_layout *layout,
			  struct sp_cli *cli)
{
	if (!strcmp(argv[*i], "--json")) {
		*json = 1;
		return 1;
	}
	if (!strcmp(argv[*i], "--layout") && *i + 1 < argc) {
		if (parse_layout(argv[++*i], layout)) {
			fprintf(cli->err, "%s: unknown layout '%s'\n", cli->prog, argv[*i]);
			return -1;
		}
		return 1;
	}
	return 0;
}

/* seinfo's component options, by enum sp_policy_component, with the titles it prints */
static const struct {
	const char *opt, *alt, *title;
} comp_opts[SP_COMP_N] = {
	[SP_COMP_BOOLS] = { "-b", "--bool", "Booleans" },
	[SP_COMP_CATEGORIES] = { "--category", NULL, "Categories" },
	[SP_COMP_CLASSES] = { "-c", "--class", "Classes" },
	[SP_COMP_COMMONS] = { "--common", NULL, "Commons" },
	[SP_COMP_CONSTRAINTS] = { "--constrain", NULL, "Constraints" },
	[SP_COMP_DEFAULTS] = { "--default", NULL, "Default rules" },
	[SP_COMP_IBENDPORTCON] = { "--ibendportcon", NULL, "Ibendportcon" },
	[SP_COMP_IBPKEYCON] = { "--ibpkeycon", NULL, "Ibpkeycon" },
	[SP_COMP_NODECON] = { "--nodecon", NULL, "Nodecon" },
	[SP_COMP_TYPEBOUNDS] = { "--typebounds", NULL, "Typebounds" },
	[SP_COMP_VALIDATETRANS] = { "--validatetrans", NULL, "Validatetrans" },
	[SP_COMP_FS_USE] = { "--fs_use", NULL, "Fs_use" },
	[SP_COMP_GENFSCON] = { "--genfscon", NULL, "Genfscon" },
	[SP_COMP_INITIALSIDS] = { "--initialsid", NULL, "Initial SIDs" },
	[SP_COMP_NETIFCON] = { "--netifcon", NULL, "Netifcon" },
	[SP_COMP_PORTCON] = { "--portcon", NULL, "Portcon" },
	[SP_COMP_PERMISSIVE] = { "--permissive", NULL, "Permissive Types" },
	[SP_COMP_POLCAPS] = { "--polcap", NULL, "Polcap" },
	[SP_COMP_ROLES] = { "-r", "--role", "Roles" },
	[SP_COMP_SENSITIVITIES] = { "--sensitivity", NULL, "Sensitivities" },
	[SP_COMP_TYPES] = { "-t", "--type", "Types" },
	[SP_COMP_ATTRIBUTES] = { "-a", "--attribute", "Type Attributes" },
	[SP_COMP_USERS] = { "-u", "--user", "Users" },
};

/* seinfo's Xen components: none on an SELinux policy (seinfo lists them on Xen only) */
static const char *const xen_opts[] = { "--ioportcon", "--iomemcon", "--pirqcon",
					"--pcidevicecon", "--devicetreecon" };

struct info_opts {
	int json, tables, expand, all;
	unsigned comps;			/* bit c: component c asked for */
	const char *names[SP_COMP_N];	/* component c's NAME, or NULL */
	enum sp_avtab_layout layout;
	const char *path;
};

/* argv[i] is an operand (not an option, not --layout's value). */
static int is_operand(char **argv, int i)
{
	return (argv[i][0] != '-' || !argv[i][1]) && (i < 2 || strcmp(argv[i - 1], "--layout"));
}

/* 1: argv[*i] is a component option (with its NAME, consumed) or -x, --all or a Xen option
 * (recorded), 0 not one.  The argument after a component option is its NAME when it is an
 * operand and another operand (the policy) follows it, as seinfo's optional argument. */
static int comp_opt(int argc, char **argv, int *i, struct info_opts *o)
{
	const char *a = argv[*i];
	if (!strcmp(a, "-x") || !strcmp(a, "--expand") || !strcmp(a, "--all")) {
		*(strcmp(a, "--all") ? &o->expand : &o->all) = 1;
		return 1;
	}
	for (size_t x = 0; x < NELEM(xen_opts); x++)
		if (!strcmp(a, xen_opts[x]))
			return 1;
	for (unsigned c = 0; c < SP_COMP_N; c++) {
		if (strcmp(a, comp_opts[c].opt) && (!comp_opts[c].alt || strcmp(a, comp_opts[c].alt)))
			continue;
		o->comps |= 1u << c;
		int later = 0;
		for (int j = *i + 2; j < argc && !later; j++)
			later = is_operand(argv, j);
		if (*i + 1 < argc && argv[*i + 1][0] != '-' && later)
			o->names[c] = argv[++*i];
		return 1;
	}
	return 0;
}

/* The options of info; SP_EXIT_OK to run, -1 after --help, else the usage exit code. */
static int info_parse(int argc, char **argv, struct info_opts *o, struct sp_cli *cli)
{
	*o = (struct info_opts){ .layout = SP_AVTAB_FLAT };
	for (int i = 1; i < argc; i++) {
		int c;
		if (cli_is_help(argv[i])) {
			info_usage(cli->out);
			return -1;
		} else if (!strcmp(argv[i], "--tables")) {
			o->tables = 1;
		} else if (comp_opt(argc, argv, &i, o)) {
			continue;
		} else if ((c = cli_policy_common_opt(argc, argv, &i, &o->json, &o->layout, cli))) {
			if (c < 0)
				return SP_EXIT_USAGE;
		} else if ((argv[i][0] == '-' && argv[i][1]) || o->path) {
			if (argv[i][0] == '-')
				fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, argv[i]);
			info_usage(cli->err);
			return SP_EXIT_USAGE;
		} else {
			o->path = argv[i];
		}
	}
	if (o->all)
		o->comps = (1u << SP_COMP_N) - 1;
	if (o->json && o->comps) {
		fprintf(cli->err, "%s: --json prints the statistics only\n", cli->prog);
		info_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return SP_EXIT_OK;
}

struct comp_item {
	char *name, *stmt;
	uint32_t value;
};

struct comp_list {
	struct comp_item *v;
	size_t n, cap;
	int by_value;			/* MLS symbols: setools sorts them by value */
};

static int comp_collect(void *ud, const char *name, uint32_t value, const char *stmt)
{
	struct comp_list *l = ud;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct comp_item *nv = realloc(l->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		l->v = nv;
		l->cap = cap;
	}
	struct comp_item *it = &l->v[l->n];
	it->name = strdup(name);
	it->stmt = strdup(stmt);
	it->value = value;
	if (!it->name || !it->stmt) {
		free(it->name);
		free(it->stmt);
		return -ENOMEM;
	}
	l->n++;
	return 0;
}

static int item_by_name(const void *a, const void *b)
{
	return strcmp(((const struct comp_item *)a)->name, ((const struct comp_item *)b)->name);
}

static int item_by_value(const void *a, const void *b)
{
	uint32_t x = ((const struct comp_item *)a)->value, y = ((const struct comp_item *)b)->value;
	return (x > y) - (x < y);
}

/* One component as seinfo prints it: a blank line, "TITLE: N", then each item sorted. */
static int print_component(struct sp_cli *cli, const struct sp_policy *p, unsigned c,
			   const char *name, int expand)
{
	struct comp_list l = { .by_value = c == SP_COMP_SENSITIVITIES || c == SP_COMP_CATEGORIES };
	int rc = sp_policy_component_find(p, (enum sp_policy_component)c, name, expand,
					  comp_collect, &l);
	if (!rc) {
		if (l.n)
			qsort(l.v, l.n, sizeof(*l.v), l.by_value ? item_by_value : item_by_name);
		fprintf(cli->out, "\n%s: %zu\n", comp_opts[c].title, l.n);
		for (size_t i = 0; i < l.n; i++)
			fprintf(cli->out, "   %s\n", expand ? l.v[i].stmt : l.v[i].name);
	} else {
		fprintf(cli->err, "%s: %s: %s\n", cli->prog, comp_opts[c].title,
			strerror(-rc));
	}
	for (size_t i = 0; i < l.n; i++) {
		free(l.v[i].name);
		free(l.v[i].stmt);
	}
	free(l.v);
	return rc;
}

static int first_item(void *ud, const char *name, uint32_t value, const char *stmt)
{
	(void)ud, (void)name, (void)value, (void)stmt;
	return 1;
}

/* The NAME arguments, checked before anything is printed (as seinfo builds its queries
 * first), in seinfo's order: SP_EXIT_OK, or the first refusal reported with seinfo's message
 * and its exit status (a malformed port range: usage, 2; the rest 1). */
static int check_names(struct sp_cli *cli, const struct sp_policy *p, const struct info_opts *o)
{
	for (unsigned c = 0; c < SP_COMP_N; c++) {
		if (!(o->comps >> c & 1) || !o->names[c])
			continue;
		const char *n = o->names[c];
		int rc = sp_policy_component_find(p, (enum sp_policy_component)c, n, 0, first_item,
						  NULL);
		if (rc >= 0)
			continue;
		if (rc == -ENOENT)
			fprintf(cli->err, "%s: %s is not a valid class\n", cli->prog, n);
		else if (c == SP_COMP_NODECON && rc == -EDOM)
			fprintf(cli->err, "%s: %s has host bits set\n", cli->prog, n);
		else if (c == SP_COMP_NODECON)
			fprintf(cli->err, "%s: '%s' does not appear to be an IPv4 or IPv6 network\n",
				cli->prog, n);
		else
			fprintf(cli->err, "%s: %s: enter a %s number or range, e.g. %s\n", cli->prog, n,
				c == SP_COMP_PORTCON ? "port" : "pkey",
				c == SP_COMP_PORTCON ? "22 or 6000-6020" : "0x22 or 0x6000-0x6020");
		return rc == -EINVAL && c != SP_COMP_NODECON ? SP_EXIT_USAGE : SP_EXIT_REJECTED;
	}
	return SP_EXIT_OK;
}

/* secpath's own statistics (sp_policy_info): text under their own heading, or JSON members */
static void print_tables(FILE *out, const struct sp_policy_info *in, int json)
{
	struct { const char *k; uint64_t v; } rows[] = {
		{ "classes", in->classes }, { "permissions", in->perms },
		{ "commons", in->commons }, { "sensitivities", in->sensitivities },
		{ "categories", in->categories }, { "types", in->types },
		{ "attributes", in->attributes }, { "aliases", in->aliases },
		{ "users", in->users }, { "roles", in->roles },
		{ "booleans", in->bools }, { "cond_expressions", in->cond_nodes },
		{ "te_rules", in->te_rules }, { "cond_rules", in->cond_rules },
		{ "cond_rules_enabled", in->cond_enabled }, { "allow", in->te_allow },
		{ "auditallow", in->te_auditallow }, { "dontaudit", in->te_dontaudit },
		{ "type_transition", in->te_type_trans }, { "type_change", in->te_type_change },
		{ "type_member", in->te_type_member }, { "xperm_rules", in->te_xperms },
		{ "filename_trans_keys", in->filename_keys }, { "filename_trans", in->filename_rules },
		{ "role_transition", in->role_trans }, { "role_allow", in->role_allow },
		{ "range_transition", in->range_trans }, { "constraints", in->constraints },
		{ "validatetrans", in->validatetrans }, { "initial_sids", in->initial_sids },
		{ "ocontexts", in->ocontexts }, { "genfs", in->genfs },
		{ "permissive_types", in->permissive }, { "policy_capabilities", in->polcaps },
		{ "te_avtab_bytes", in->te_bytes }, { "cond_bytes", in->cond_bytes },
		{ "decide_bytes", in->decide_bytes }, { "total_bytes", in->total_bytes },
	};
	if (json) {
		for (size_t i = 0; i < NELEM(rows); i++)
			fprintf(out, ", \"%s\": %llu", rows[i].k, (unsigned long long)rows[i].v);
		return;
	}
	fprintf(out, "\nsecpath tables (te_avtab entries by kind, not seinfo's counts):\n");
	fprintf(out, "avtab layout:               %s\n", sp_avtab_layout_name(in->layout));
	for (size_t i = 0; i < NELEM(rows); i++)
		fprintf(out, "  %-22s %10llu%s", rows[i].k, (unsigned long long)rows[i].v,
			i % 2 ? "\n" : "   ");
	if (NELEM(rows) % 2)
		fputc('\n', out);
}

static int cmd_info(int argc, char **argv, struct sp_cli *cli)
{
	struct info_opts o;
	int rc = info_parse(argc, argv, &o, cli);
	if (rc)
		return rc < 0 ? SP_EXIT_OK : rc;
	struct sp_policy *p;
	char running[PATH_MAX];
	if (cli_policy_open(cli, &o.path, running, sizeof(running), o.layout, &p))
		return SP_EXIT_REJECTED;
	struct sp_policy_info in;
	sp_policy_get_info(p, &in);
	struct sp_policy_counts n = { .sz = sizeof(n) };
	sp_policy_get_counts(p, &n);
	const char *hu = (in.config & 4) ? "allow" : (in.config & 2) ? "reject" : "deny";
	if ((rc = check_names(cli, p, &o))) {
		sp_policy_free(p);
		return rc;
	}
	if (o.json) {
		fprintf(cli->out, "{\"schema\": \"secpath.policy-info/1\", \"file\": ");
		cli_json_str(cli->out, o.path);
		fprintf(cli->out, ", \"version\": %u, \"mls\": %s, \"handle_unknown\": \"%s\", "
				  "\"layout\": \"%s\"",
			in.version, in.mls ? "true" : "false", hu, sp_avtab_layout_name(in.layout));
		print_tables(cli->out, &in, 1);
		json_seinfo(cli->out, &n);
		fprintf(cli->out, "}\n");
	} else if (!o.comps || o.all) {
		print_seinfo(cli->out, o.path, &in, &n, hu);
	}
	if (!o.json && o.tables)
		print_tables(cli->out, &in, 0);
	int bad = 0;
	for (unsigned c = 0; c < SP_COMP_N; c++)
		if (o.comps >> c & 1)
			bad |= print_component(cli, p, c, o.names[c], o.expand) != 0;
	sp_policy_free(p);
	return bad ? SP_EXIT_REJECTED : SP_EXIT_OK;
}

/* ---- decide ---- */

static void decide_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy decide [--json] [--layout L] [--bool NAME=0|1]...\n"
		   "                             POLICY SOURCE_TYPE TARGET_TYPE CLASS [PERM...]\n\n"
		   "Compute the TE access decision (the kernel's avtab fold over both tables, with\n"
		   "attribute expansion and enabled conditional rules; constraints/MLS not applied).\n"
		   "Exit status: 0 granted (every PERM allowed, or no PERM given), 3 a PERM is\n"
		   "denied, 1 the policy, a type, a class or a boolean is rejected, 2 usage.\n");
}

static void print_mask(FILE *f, struct sp_policy *p, uint32_t c, uint32_t m, int json)
{
	int first = 1;
	if (json)
		fputc('[', f);
	for (unsigned b = 0; b < 32; b++) {
		if (!(m >> b & 1))
			continue;
		const char *n = sp_policy_perm_name(p, c, b);
		if (!n)
			continue;
		if (json) {
			fprintf(f, first ? "" : ", ");
			cli_json_str(f, n);
		} else {
			fprintf(f, " %s", n);
		}
		first = 0;
	}
	if (json)
		fputc(']', f);
}

struct decide_args {
	int json;
	enum sp_avtab_layout layout;
	const char *pos[64];	/* POLICY SOURCE TARGET CLASS [PERM...] */
	const char *bools[64];
	int npos, nbools;
};

/* 0: decide; 1: --help printed; -1: a usage error (said). */
static int decide_parse(int argc, char **argv, struct sp_cli *cli, struct decide_args *a)
{
	for (int i = 1; i < argc; i++) {
		int c;
		if (cli_is_help(argv[i])) {
			decide_usage(cli->out);
			return 1;
		} else if ((c = cli_policy_common_opt(argc, argv, &i, &a->json, &a->layout, cli))) {
			if (c < 0)
				return -1;
		} else if (!strcmp(argv[i], "--bool") && i + 1 < argc) {
			if (a->nbools == 64) {
				fprintf(cli->err, "%s: more than 64 --bool options\n", cli->prog);
				return -1;
			}
			a->bools[a->nbools++] = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(cli->err, "%s: unknown option '%s'\n", cli->prog, argv[i]);
			decide_usage(cli->err);
			return -1;
		} else if (a->npos < 64) {
			a->pos[a->npos++] = argv[i];
		} else {
			fprintf(cli->err, "%s: more than 60 permissions\n", cli->prog);
			return -1;
		}
	}
	if (a->npos < 4) {
		fprintf(cli->err, "%s: policy decide: %d of POLICY SOURCE_TYPE TARGET_TYPE CLASS "
			"given\n", cli->prog, a->npos);
		decide_usage(cli->err);
		return -1;
	}
	return 0;
}

/* --bool NAME=0|1 settings applied to p: 0, or the exit status (said why). */
static int decide_bools(struct sp_cli *cli, struct sp_policy *p, const struct decide_args *a)
{
	for (int i = 0; i < a->nbools; i++) {
		char name[256];
		const char *eq = strchr(a->bools[i], '=');
		size_t l = eq ? (size_t)(eq - a->bools[i]) : 0;
		uint32_t b = 0;
		if (eq && l < sizeof(name)) {
			memcpy(name, a->bools[i], l);
			name[l] = 0;
			b = sp_policy_bool_lookup(p, name);
		}
		if (!eq || (strcmp(eq + 1, "0") && strcmp(eq + 1, "1"))) {
			fprintf(cli->err, "%s policy decide: bad boolean setting '%s' (NAME=0 or "
				"NAME=1)\n", cli->prog, a->bools[i]);
			return SP_EXIT_USAGE;
		}
		if (!b) {
			fprintf(cli->err, "%s policy decide: no boolean '%s' in the policy\n",
				cli->prog, name);
			return SP_EXIT_REJECTED;
		}
		if (sp_policy_bool_set(p, b, eq[1] == '1'))
			return SP_EXIT_REJECTED;
	}
	return 0;
}

static int cmd_decide(int argc, char **argv, struct sp_cli *cli)
{
	struct decide_args a = { .layout = SP_AVTAB_FLAT };
	int r = decide_parse(argc, argv, cli, &a);
	if (r)
		return r < 0 ? SP_EXIT_USAGE : SP_EXIT_OK;
	const char **pos = a.pos;
	struct sp_policy *p;
	if (cli_policy_load(cli, pos[0], a.layout, &p))
		return SP_EXIT_REJECTED;
	int rc = decide_bools(cli, p, &a);
	if (rc)
		goto out;
	rc = SP_EXIT_REJECTED;
	uint32_t s = sp_policy_type_lookup(p, pos[1]), t = sp_policy_type_lookup(p, pos[2]);
	uint32_t c = sp_policy_class_lookup(p, pos[3]);
	if (!s || !t || !c) {
		fprintf(cli->err, "%s: no %s '%s' in the policy\n", cli->prog,
			!s ? "type" : !t ? "type" : "class", !s ? pos[1] : !t ? pos[2] : pos[3]);
		goto out;
	}
	uint32_t want = 0;
	for (int i = 4; i < a.npos; i++) {
		unsigned b = sp_policy_perm_lookup(p, c, pos[i]);
		if (!b) {
			fprintf(cli->err, "%s: class '%s' has no permission '%s'\n", cli->prog, pos[3],
				pos[i]);
			goto out;
		}
		want |= 1u << (b - 1);
	}
	struct sp_av_decision avd;
	if (sp_policy_compute_av(p, s, t, c, &avd))
		goto out;
	FILE *f = cli->out;
	if (a.json) {
		fprintf(f, "{\"schema\": \"secpath.policy-decide/1\", \"source\": ");
		cli_json_str(f, pos[1]);
		fprintf(f, ", \"target\": ");
		cli_json_str(f, pos[2]);
		fprintf(f, ", \"class\": ");
		cli_json_str(f, pos[3]);
		fprintf(f, ", \"allowed\": ");
		print_mask(f, p, c, avd.allowed, 1);
		fprintf(f, ", \"auditallow\": ");
		print_mask(f, p, c, avd.auditallow, 1);
		fprintf(f, ", \"dontaudit\": ");
		print_mask(f, p, c, ~avd.auditdeny, 1);
		fprintf(f, ", \"permissive\": %s", (avd.flags & SP_AVD_FLAGS_PERMISSIVE) ? "true" : "false");
		if (want)
			fprintf(f, ", \"granted\": %s", (avd.allowed & want) == want ? "true" : "false");
		fprintf(f, "}\n");
	} else {
		fprintf(f, "allowed:");
		print_mask(f, p, c, avd.allowed, 0);
		fprintf(f, "\nauditallow:");
		print_mask(f, p, c, avd.auditallow, 0);
		fprintf(f, "\ndontaudit:");
		print_mask(f, p, c, ~avd.auditdeny, 0);
		fprintf(f, "\npermissive: %s\n", (avd.flags & SP_AVD_FLAGS_PERMISSIVE) ? "yes" : "no");
		for (int i = 4; i < a.npos; i++) {
			unsigned b = sp_policy_perm_lookup(p, c, pos[i]) - 1;
			fprintf(f, "%s: %s\n", pos[i], (avd.allowed >> b & 1) ? "granted" : "denied");
		}
	}
	rc = (avd.allowed & want) == want ? SP_EXIT_OK : SP_EXIT_NO;
out:
	sp_policy_free(p);
	return rc;
}

static const struct cli_cmd policy_cmds[] = {
	{ "info", cmd_info, "version, MLS and counts of a kernel binary policy" },
	{ "search", cmd_policy_search, "list te rules like sesearch" },
	{ "decide", cmd_decide, "TE access decision for SOURCE TARGET CLASS" },
	{ "diff", cmd_policy_diff, "differences of two policies like sediff" },
};

const struct cli_area cli_area_policy = {
	.name = "policy",
	.summary = "SELinux kernel binary policies, MLS or not: summary, rule search, access\n"
		   "decisions and differences, as seinfo, sesearch and sediff answer them.",
	.cmds = policy_cmds,
	.ncmds = sizeof(policy_cmds) / sizeof(policy_cmds[0]),
};
