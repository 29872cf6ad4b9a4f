/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_policy_diff.c - `secpath policy diff [SECTION...] POLICY1 POLICY2`: sediff's (setools
 * 4.4) component and TE rule differences of two binary policies (sp_policy_diff_write).  The
 * section options are sediff's (--common, -c/--class, -b/--bool, -r/--role, -t/--type,
 * -a/--attribute, -u/--user, -A/--allow, --auditallow, --dontaudit, -T/--type_trans,
 * --type_change, --type_member, --role_allow, --role_trans, --range_trans, --initialsid,
 * --ibendportcon, --ibpkeycon, --fs_use, --genfscon, --netifcon, --nodecon, --portcon, --polcap,
 * --default, --typebounds, --property, --category, --sensitivity, --level, --constrain,
 * --mlsconstrain, --validatetrans, --mlsvalidatetrans, --allowxperm, --auditallowxperm,
 * --dontauditxperm, --neverallow, --neverallowxperm; -A is --allow --allowxperm); none = every
 * implemented section that has differences.
 * Both policies are read before anything is printed; nothing is written but standard output.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

static void diff_usage(FILE *f)
{
	fprintf(f, "usage: secpath policy diff [--common] [-c|--class] [-b|--bool] [-r|--role]\n"
		   "                          [-t|--type] [-a|--attribute] [-u|--user]\n"
		   "                          [-A|--allow] [--allowxperm] [--neverallow]\n"
		   "                          [--neverallowxperm] [--auditallow]\n"
		   "                          [--auditallowxperm] [--dontaudit]\n"
		   "                          [--dontauditxperm]\n"
		   "                          [-T|--type_trans] [--type_change] [--type_member]\n"
		   "                          [--role_allow] [--role_trans] [--range_trans]\n"
		   "                          [--property] [--initialsid] [--ibendportcon]\n"
		   "                          [--ibpkeycon] [--fs_use] [--genfscon] [--netifcon]\n"
		   "                          [--nodecon] [--portcon] [--polcap] [--default]\n"
		   "                          [--typebounds] [--category] [--sensitivity]\n"
		   "                          [--level] [--constrain] [--mlsconstrain]\n"
		   "                          [--validatetrans] [--mlsvalidatetrans]\n"
		   "                          POLICY1 POLICY2\n\n"
		   "Print the differences from POLICY1 to POLICY2 as sediff (setools 4.4) does,\n"
		   "section by section: the policy properties (MLS, handle_unknown, version),\n"
		   "commons, classes (permissions), booleans (default state),\n"
		   "roles (types), types (attributes, aliases, permissive), type attributes\n"
		   "(types), users (roles, default level, range), categories, sensitivities\n"
		   "(aliases) and levels (categories), then the allow, auditallow,\n"
		   "dontaudit, type_transition, type_change and type_member rules, expanded to\n"
		   "type pairs as setools expands them (and the allowxperm, auditallowxperm and\n"
		   "dontauditxperm rules; neverallow rules a binary policy has none of), the\n"
		   "role allow, role_transition and\n"
		   "range_transition rules, the constraints and validatetrans (MLS or not), the\n"
		   "labeling statements (initial SIDs, ibendportcon,\n"
		   "ibpkeycon, fs_use_*, genfscon, netifcon, nodecon, portcon: their contexts),\n"
		   "the policy capabilities, the default_* rules and the typebounds.  A section\n"
		   "option prints that section even without differences; with none, every\n"
		   "section that has differences is printed; -A is --allow --allowxperm.  The\n"
		   "policies may be xz-compressed.\n");
}

/* sediff's short options, each for the section named after it */
static const char *short_section(const char *a)
{
	static const char *const map[][2] = {
		{ "-c", "class" }, { "-b", "bool" }, { "-r", "role" }, { "-t", "type" },
		{ "-a", "attribute" }, { "-u", "user" }, { "-A", "allow" }, { "-T", "type_trans" },
	};
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(a, map[i][0]))
			return map[i][1];
	return NULL;
}

static int diff_parse(int argc, char **argv, struct sp_cli *cli, uint64_t *which,
		      const char *pos[2])
{
	int npos = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *sec = short_section(a);
		if (!sec && a[0] == '-' && a[1] == '-' && a[2])
			sec = a + 2;
		if (sec) {
			int s = sp_policy_diff_section_lookup(sec);
			if (s < 0) {
				fprintf(cli->err, "%s: policy diff: unknown option '%s'\n",
					cli->prog, a);
				return SP_EXIT_USAGE;
			}
			*which |= 1ull << s;
			if (!strcmp(a, "-A"))	/* sediff's -A: allow and allowxperm */
				*which |= 1ull << sp_policy_diff_section_lookup("allowxperm");
		} else if (npos < 2 && (a[0] != '-' || !a[1])) {
			pos[npos++] = a;
		} else {
			fprintf(cli->err, "%s: policy diff: unexpected argument '%s'\n", cli->prog, a);
			return SP_EXIT_USAGE;
		}
	}
	if (npos != 2) {
		diff_usage(cli->err);
		return SP_EXIT_USAGE;
	}
	return SP_EXIT_OK;
}

int cmd_policy_diff(int argc, char **argv, struct sp_cli *cli)
{
	if (argc > 1 && cli_is_help(argv[1])) {
		diff_usage(cli->out);
		return SP_EXIT_OK;
	}
	uint64_t which = 0;
	const char *pos[2];
	int rc = diff_parse(argc, argv, cli, &which, pos);
	if (rc)
		return rc;
	struct sp_policy *a = NULL, *b = NULL;
	if (cli_policy_load(cli, pos[0], SP_AVTAB_FLAT, &a) ||
	    cli_policy_load(cli, pos[1], SP_AVTAB_FLAT, &b)) {
		sp_policy_free(a);
		return SP_EXIT_REJECTED;
	}
	rc = sp_policy_diff_write(a, b, which, cli->out);
	if (rc)
		fprintf(cli->err, "%s: policy diff: %s\n", cli->prog, strerror(-rc));
	sp_policy_free(a);
	sp_policy_free(b);
	return rc ? SP_EXIT_REJECTED : SP_EXIT_OK;
}
