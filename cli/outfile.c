/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * outfile.c - output files that are never an input and never torn (sort -o's rule, git's lock
 * files' discipline).
 *
 * Invariants:
 *  - an output is refused when it is the same file (st_dev and st_ino) as one of the command's
 *    inputs or as another of its outputs, before anything is created or truncated;
 *  - a regular-file output is written to a temporary file in the same directory ("PATH.tmp-XXXXXX",
 *    mode of the file it replaces, else 0666 & ~umask) and renamed over PATH only by
 *    cli_out_commit, after every byte was written and fsync()ed; until then PATH is untouched;
 *  - cli_out_abort, SIGINT/SIGTERM/SIGHUP/SIGPIPE and a failed commit remove the temporary file;
 *    SIGKILL can leave it behind, never a torn PATH;
 *  - an output that exists and is not a regular file (a terminal, /dev/null, a FIFO) is written in
 *    place: renaming over it would replace the device node;
 *  - "-" is cli->out.
 * The pending temporary names live in a fixed table (CLI_OUT_MAX) so the signal handler only reads
 * memory that is never freed while it is registered.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define CLI_OUT_MAX 8

static char pending[CLI_OUT_MAX][PATH_MAX];
static volatile sig_atomic_t npending_used[CLI_OUT_MAX];
static int handlers_set;

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < CLI_OUT_MAX; i++)
		if (npending_used[i])
			unlink(pending[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void set_handlers(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	if (handlers_set)
		return;
	handlers_set = 1;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;	/* keep what the caller chose (nohup) */
		sigaction(sigs[i], &sa, NULL);
	}
}

static int slot_take(const char *tmp)
{
	for (int i = 0; i < CLI_OUT_MAX; i++)
		if (!npending_used[i]) {
			snprintf(pending[i], sizeof(pending[i]), "%s", tmp);
			npending_used[i] = 1;
			return i;
		}
	return -1;
}

static void slot_drop(int i)
{
	if (i >= 0)
		npending_used[i] = 0;
}

void cli_files_init(struct cli_files *fs)
{
	memset(fs, 0, sizeof(*fs));
}

int cli_files_add_input(struct cli_files *fs, const char *path)
{
	struct stat st;
	int r = strcmp(path, "-") ? stat(path, &st) : fstat(0, &st);
	if (r || fs->n >= CLI_FILES_MAX)
		return 0;	/* an input that cannot be stat()ed is reported when it is read */
	fs->v[fs->n].dev = st.st_dev;
	fs->v[fs->n].ino = st.st_ino;
	fs->v[fs->n].path = path;
	fs->v[fs->n].is_output = 0;
	fs->n++;
	return 0;
}

/* The identity an output will have: the file it replaces, or (directory, name) for a new one. */
static int out_identity(const char *path, dev_t *dev, ino_t *ino, int *exists)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		*dev = st.st_dev;
		*ino = st.st_ino;
		*exists = 1;
		return 0;
	}
	if (errno != ENOENT)
		return -errno;
	*exists = 0;
	return 0;
}

int cli_out_open(struct sp_cli *cli, struct cli_files *fs, struct cli_out *o, const char *path)
{
	struct stat st;
	dev_t dev = 0;
	ino_t ino = 0;
	int exists = 0, err;
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->slot = -1;
	o->path = path;
	if (!strcmp(path, "-")) {
		o->f = cli->out;
		o->fd = fileno(cli->out);
		o->is_std = 1;
		if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode))
			for (size_t i = 0; i < fs->n; i++)
				if (fs->v[i].dev == st.st_dev && fs->v[i].ino == st.st_ino) {
					fprintf(cli->err, "%s: the standard output is the %s '%s'; "
						"not writing it\n", cli->prog,
						fs->v[i].is_output ? "output" : "input", fs->v[i].path);
					return -1;
				}
		return 0;
	}
	err = out_identity(path, &dev, &ino, &exists);
	if (err) {
		fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, path, strerror(-err));
		return -1;
	}
	for (size_t i = 0; exists && i < fs->n; i++) {
		if (fs->v[i].dev == dev && fs->v[i].ino == ino) {
			fprintf(cli->err, "%s: '%s' is the same file as the %s '%s'; not writing it\n",
				cli->prog, path, fs->v[i].is_output ? "output" : "input", fs->v[i].path);
			return -1;
		}
	}
	for (size_t i = 0; !exists && i < fs->n; i++) {
		if (fs->v[i].is_output && fs->v[i].new_name && !strcmp(fs->v[i].path, path)) {
			fprintf(cli->err, "%s: '%s' is given as two outputs\n", cli->prog, path);
			return -1;
		}
	}
	if (exists && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, path, strerror(EISDIR));
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a device, FIFO or socket: in place */
		o->fd = open(path, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0) {
			fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, path,
				strerror(errno));
			return -1;
		}
	} else {
		if (snprintf(o->tmp, sizeof(o->tmp), "%s.tmp-XXXXXX", path) >= (int)sizeof(o->tmp)) {
			fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, path,
				strerror(ENAMETOOLONG));
			return -1;
		}
		set_handlers();
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		if (o->fd < 0) {
			fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, path,
				strerror(errno));
			o->tmp[0] = 0;
			return -1;
		}
		o->slot = slot_take(o->tmp);
		mode_t mode;
		if (exists) {
			mode = st.st_mode & 07777;
		} else {
			mode_t um = umask(0);
			umask(um);
			mode = 0666 & ~um;
		}
		if (fchmod(o->fd, mode))
			(void)0;	/* not fatal: the file keeps mkstemp's 0600 */
	}
	if (fs->n < CLI_FILES_MAX) {
		struct cli_file_id *id = &fs->v[fs->n++];
		id->dev = dev;
		id->ino = ino;
		id->path = path;
		id->is_output = 1;
		id->new_name = !exists;
	}
	return 0;
}

FILE *cli_out_stream(struct sp_cli *cli, struct cli_out *o)
{
	if (!o->f) {
		o->f = fdopen(o->fd, "w");
		if (!o->f)
			fprintf(cli->err, "%s: cannot write '%s': %s\n", cli->prog, o->path,
				strerror(errno));
	}
	return o->f;
}

void cli_out_abort(struct cli_out *o)
{
	if (o->is_std || (!o->f && o->fd < 0))
		return;
	if (o->f)
		fclose(o->f);
	else
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp[0]) {
		unlink(o->tmp);
		o->tmp[0] = 0;
	}
	slot_drop(o->slot);
	o->slot = -1;
}

int cli_out_commit(struct sp_cli *cli, struct cli_out *o)
{
	int err = 0;
	if (o->is_std) {
		if (fflush(o->f) || ferror(o->f))
			err = errno ? errno : EIO;
	} else if (o->f) {
		if (fflush(o->f) || ferror(o->f))
			err = errno ? errno : EIO;
		else if (o->tmp[0] && fsync(o->fd))
			err = errno;
		if (fclose(o->f) && !err)
			err = errno ? errno : EIO;
		o->f = NULL;
		o->fd = -1;
	} else if (o->fd >= 0) {
		if (o->tmp[0] && fsync(o->fd))
			err = errno;
		if (close(o->fd) && !err)
			err = errno;
		o->fd = -1;
	}
	if (!err && o->tmp[0] && rename(o->tmp, o->path))
		err = errno;
	if (err) {
		fprintf(cli->err, "%s: cannot write '%s': %s%s\n", cli->prog, o->path, strerror(err),
			o->tmp[0] ? "; it was left as it was" : "");
		if (o->tmp[0])
			unlink(o->tmp);
	}
	o->tmp[0] = 0;
	slot_drop(o->slot);
	o->slot = -1;
	return err ? -err : 0;
}

void cli_signals_init(void)
{
	/* RLIMIT_FSIZE: a write past the limit then fails with EFBIG (reported, the temporary file
	 * removed) instead of killing the process.  A handler, not SIG_IGN, so a command that
	 * `audit run` executes gets the default disposition back at exec. */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = cli_signal_noop;
	sigaction(SIGXFSZ, &sa, NULL);
}

void cli_signal_noop(int sig)
{
	(void)sig;
}
