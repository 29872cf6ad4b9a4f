/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cmd_slab.c - `secpath slab stats`: the kmalloc caches and, on request, a demo cache's geometry
 * (stride, alignment, slab size, objects per slab, colours, L1D sets reached) with live counts
 * after allocating --objects objects from it.  Table or --json.  See secpath-slab(1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "secpath/slab.h"

static const struct {
	const char *name;
	unsigned flag;
} slab_flag_names[] = {
	{ "hwcache", SP_SLAB_HWCACHE_ALIGN },
	{ "colour", SP_SLAB_COLOUR },
	{ "rcu", SP_SLAB_TYPESAFE_BY_RCU },
	{ "poison", SP_SLAB_POISON },
	{ "red-zone", SP_SLAB_RED_ZONE },
	{ "no-init-on-alloc", SP_SLAB_NO_INIT_ON_ALLOC },
	{ "no-init-on-free", SP_SLAB_NO_INIT_ON_FREE },
	{ "kmalloc", SP_SLAB_KMALLOC },
	{ "verify", SP_SLAB_VERIFY_ON_ALLOC },
};

static void slab_usage(FILE *f)
{
	fprintf(f, "usage: secpath slab stats [--json] [--size N [--align A] [--flags LIST] "
		   "[--objects K]\n"
		   "                          [--name NAME]] [--init-on-alloc] [--init-on-free]\n"
		   "\n"
		   "Show the kmalloc caches and, with --size, the geometry of a demo cache after\n"
		   "allocating K objects from it (default 200).\n"
		   "\n"
		   "  --size N          object size of the demo cache (1..65536)\n"
		   "  --align A         requested alignment (0 or a power of two <= 4096)\n"
		   "  --flags LIST      comma-separated: hwcache, colour, rcu, poison, red-zone,\n"
		   "                    no-init-on-alloc, no-init-on-free, kmalloc, verify\n"
		   "  --objects K       objects to allocate from the demo cache (default 200)\n"
		   "  --name NAME       demo cache name (default \"demo\")\n"
		   "  --init-on-alloc   turn init_on_alloc on (like the boot parameter)\n"
		   "  --init-on-free    turn init_on_free on\n"
		   "  --json            one JSON object instead of the table\n"
		   "\n"
		   "Environment: SECPATH_INIT_ON_ALLOC=1, SECPATH_INIT_ON_FREE=1.\n"
		   "Exit status: 0 ok, 1 the cache could not be created, 2 usage.  See "
		   "secpath-slab(1).\n");
}

static int parse_size(const char *s, size_t max, size_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s || *end || s[0] == '-' || v > max)
		return -EINVAL;
	*out = (size_t)v;
	return 0;
}

static int parse_flags(const char *s, unsigned *out)
{
	unsigned flags = 0;
	while (*s) {
		size_t n = strcspn(s, ",");
		size_t i = 0;
		while (i < (sizeof(slab_flag_names) / sizeof(slab_flag_names[0])) &&
		       (strlen(slab_flag_names[i].name) != n ||
			strncmp(s, slab_flag_names[i].name, n)))
			i++;
		if (i == (sizeof(slab_flag_names) / sizeof(slab_flag_names[0])))
			return -EINVAL;
		flags |= slab_flag_names[i].flag;
		s += n;
		if (*s == ',')
			s++;
	}
	*out = flags;
	return 0;
}

static void flags_str(unsigned flags, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < (sizeof(slab_flag_names) / sizeof(slab_flag_names[0])); i++)
		if (flags & slab_flag_names[i].flag) {
			int w = snprintf(buf + n, len - n, "%s%s", n ? "," : "",
					 slab_flag_names[i].name);
			if (w < 0 || (size_t)w >= len - n)
				break;
			n += (size_t)w;
		}
	if (!n)
		snprintf(buf, len, "-");
}

static void print_header(FILE *f)
{
	fprintf(f, "%-16s %7s %6s %5s %7s %5s %4s %4s %6s %7s %7s %9s %4s %-4s %s\n", "cache",
		"objsize", "stride", "align", "slab", "objs", "col", "coff", "fptr", "slabs",
		"active", "bytes", "sets", "init", "flags");
}

static void print_row(FILE *f, const struct sp_slab_stats *s)
{
	char fl[160];
	flags_str(s->flags, fl, sizeof(fl));
	fprintf(f, "%-16s %7zu %6zu %5zu %7zu %5zu %4zu %4zu %6zu %7zu %7zu %9zu %4zu %c%c   %s\n",
		s->name, s->object_size, s->stride, s->align, s->slab_size, s->objs_per_slab,
		s->colours, s->colour_off, s->freeptr_offset, s->nr_slabs, s->nr_active, s->bytes,
		s->l1d_sets, s->init_on_alloc ? 'A' : '-', s->init_on_free ? 'F' : '-', fl);
}

static void print_json(FILE *f, const struct sp_slab_stats *s)
{
	char fl[160];
	flags_str(s->flags, fl, sizeof(fl));
	fprintf(f, "{\"name\":");
	cli_json_str(f, s->name);
	fprintf(f,
		",\"object_size\":%zu,\"stride\":%zu,\"align\":%zu,\"slab_size\":%zu,"
		"\"objs_per_slab\":%zu,\"colours\":%zu,\"colour_off\":%zu,\"freeptr_offset\":%zu,"
		"\"left_over\":%zu,\"l1d_sets\":%zu,\"nr_slabs\":%zu,\"nr_objects\":%zu,"
		"\"nr_active\":%zu,\"bytes\":%zu,\"allocs\":%llu,\"frees\":%llu,"
		"\"init_on_alloc\":%d,\"init_on_free\":%d,\"flags\":",
		s->object_size, s->stride, s->align, s->slab_size, s->objs_per_slab, s->colours,
		s->colour_off, s->freeptr_offset, s->left_over, s->l1d_sets, s->nr_slabs,
		s->nr_objects, s->nr_active, s->bytes, (unsigned long long)s->allocs,
		(unsigned long long)s->frees, s->init_on_alloc, s->init_on_free);
	cli_json_str(f, fl);
	fprintf(f, "}");
}

/* The kmalloc caches and then the demo cache c (NULL: none), as a table or one JSON object. */
static void print_caches(FILE *f, int json, const struct sp_slab_cache *c)
{
	struct sp_slab_stats st;
	if (json) {
		fprintf(f, "{\"schema\":\"secpath.slab-stats/1\",\"init_on_alloc\":%d,\"init_on_free\":%d,\"caches\":[",
			sp_slab_init_on_alloc(), sp_slab_init_on_free());
		int first = 1;
		for (unsigned k = 0; sp_kmalloc_cache(k); k++) {
			sp_slab_cache_stats(sp_kmalloc_cache(k), &st);
			fprintf(f, "%s", first ? "" : ",");
			print_json(f, &st);
			first = 0;
		}
		if (c) {
			sp_slab_cache_stats(c, &st);
			fprintf(f, "%s", first ? "" : ",");
			print_json(f, &st);
		}
		fprintf(f, "]}\n");
	} else {
		fprintf(f, "init_on_alloc=%d init_on_free=%d\n", sp_slab_init_on_alloc(),
			sp_slab_init_on_free());
		print_header(f);
		for (unsigned k = 0; sp_kmalloc_cache(k); k++) {
			sp_slab_cache_stats(sp_kmalloc_cache(k), &st);
			print_row(f, &st);
		}
		if (c) {
			sp_slab_cache_stats(c, &st);
			print_row(f, &st);
			fprintf(f,
				"\n%s: %zu objects of %zu B at stride %zu (%zu B waste each), %zu "
				"per %zu B slab, "
				"%zu colour%s of %zu B; first lines reach %zu of 64 L1D sets\n",
				st.name, st.nr_active, st.object_size, st.stride,
				st.stride - st.object_size, st.objs_per_slab, st.slab_size,
				st.colours, st.colours == 1 ? "" : "s", st.colour_off, st.l1d_sets);
		}
	}
}

static int slab_stats(int argc, char **argv, struct sp_cli *cli)
{
	int json = 0, demo = 0;
	size_t size = 0, align = 0, nobj = 200;
	unsigned flags = 0;
	const char *name = "demo";
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (cli_is_help(a)) {
			slab_usage(cli->out);
			return SP_EXIT_OK;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if (!strcmp(a, "--init-on-alloc")) {
			sp_slab_set_init_on_alloc(1);
		} else if (!strcmp(a, "--init-on-free")) {
			sp_slab_set_init_on_free(1);
		} else if (!strcmp(a, "--size") && v) {
			if (parse_size(v, 65536, &size) || !size)
				goto bad_value;
			demo = 1;
			i++;
		} else if (!strcmp(a, "--align") && v) {
			if (parse_size(v, 4096, &align) || (align & (align - 1))) {
				fprintf(cli->err, "%s slab stats: bad value '%s' for --align (0 or a "
					"power of two up to 4096)\n", cli->prog, v);
				return SP_EXIT_USAGE;
			}
			i++;
		} else if (!strcmp(a, "--objects") && v) {
			if (parse_size(v, 1000000, &nobj))
				goto bad_value;
			i++;
		} else if (!strcmp(a, "--flags") && v) {
			if (parse_flags(v, &flags))
				goto bad_value;
			i++;
		} else if (!strcmp(a, "--name") && v) {
			name = v;
			i++;
		} else {
			fprintf(cli->err, "%s slab stats: unknown or incomplete option '%s'\n",
				cli->prog, a);
			slab_usage(cli->err);
			return SP_EXIT_USAGE;
		}
		continue;
bad_value:
		fprintf(cli->err, "%s slab stats: bad value '%s' for %s\n", cli->prog, v, a);
		return SP_EXIT_USAGE;
	}
	if (!demo && (align || flags || strcmp(name, "demo"))) {
		fprintf(cli->err, "%s slab stats: --align, --flags and --name need --size\n",
			cli->prog);
		return SP_EXIT_USAGE;
	}

	struct sp_slab_cache *c = NULL;
	void **objs = NULL;
	if (demo) {
		int err = sp_slab_cache_create(name, size, align, flags, NULL, &c);
		if (err) {
			fprintf(cli->err, "%s slab stats: cannot create cache '%s': %s\n",
				cli->prog, name, strerror(-err));
			return SP_EXIT_REJECTED;
		}
		objs = calloc(nobj ? nobj : 1, sizeof(*objs));
		if (!objs) {
			sp_slab_cache_destroy(c);
			fprintf(cli->err, "%s slab stats: out of memory\n", cli->prog);
			return SP_EXIT_REJECTED;
		}
		for (size_t k = 0; k < nobj; k++)
			if (!(objs[k] = sp_slab_cache_alloc(c))) {
				nobj = k;
				break;
			}
	}

	print_caches(cli->out, json, c);
	if (c) {
		for (size_t k = 0; k < nobj; k++)
			sp_slab_cache_free(c, objs[k]);
		free(objs);
		sp_slab_cache_destroy(c);
	}
	return SP_EXIT_OK;
}

static const struct cli_cmd slab_cmds[] = {
	{ "stats", slab_stats, "the kmalloc caches, and the geometry of a demo cache" },
};

const struct cli_area cli_area_slab = {
	.name = "slab",
	.summary = "Kernel-style object caches: the kernel's alignment rule, slabs that reach every\n"
		   "L1D set, colouring, init_on_alloc/init_on_free with a per-cache opt-out.",
	.cmds = slab_cmds,
	.ncmds = sizeof(slab_cmds) / sizeof(slab_cmds[0]),
};
