// SPDX-License-Identifier: GPL-2.0
/* The spool state machine, against a temporary directory whose "input"
 * is a plain file (a stand-in for /sys/kernel/debug/kfuzztest/T/input). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <endian.h>
#include <stdint.h>

#include "spool.h"
#include "util.h"
#include "tmpdir.h"


static bool exists(const char *dir, const char *sub, const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	return access(path, F_OK) == 0;
}

/* The stand-in for the target's input file. */
static const char *input_of(void)
{
	static char input[256];

	snprintf(input, sizeof(input), "%s/input", root);
	return input;
}

static void replay_in_order(void **state)
{
	char dir[256], input[256];
	struct spool_result res;
	struct spool s;
	char *got = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/t", root);
	snprintf(input, sizeof(input), "%s/input", root);
	assert_int_equal(kw_write_once(input, "", 0), -ENOENT);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "b", "second");
	put_renamed(dir, "a", "first");
	fclose(fopen("/dev/null", "r"));
	{	/* temp files (dot names) are not blobs */
		char tmp[300];

		snprintf(tmp, sizeof(tmp), "%s/.partial", dir);
		fclose(fopen(tmp, "w"));
	}
	assert_int_equal(spool_count(&s, SPOOL_QUEUED), 2);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "a");
	assert_int_equal(res.state, SPOOL_DONE);
	assert_int_equal(res.size, 5);
	assert_int_equal(kw_read_file(input, 100, &got, NULL), 0);
	assert_string_equal(got, "first");
	free(got);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "b");
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	assert_true(exists(dir, "done", "a"));
	assert_true(exists(dir, "done", "b"));
	assert_int_equal(spool_count(&s, SPOOL_DONE), 2);
	/* The same name again is kept under a new name, not overwritten. */
	put_renamed(dir, "a", "again");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.final_name, "a.1");
	spool_close(&s);
}

static void rejected_with_errno(void **state)
{
	char dir[256], input[256], *text = NULL, path[512];
	struct spool_result res;
	struct spool s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/r", root);
	snprintf(input, sizeof(input), "%s/missing/input", root);
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "x", "blob");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_int_equal(res.err, -ENOENT);
	assert_true(exists(dir, "rejected", "x"));
	snprintf(path, sizeof(path), "%s/rejected/x.errno", dir);
	assert_int_equal(kw_read_file(path, 100, &text, NULL), 0);
	assert_int_equal(strncmp(text, "2 ", 2), 0);
	free(text);
	assert_int_equal(spool_count(&s, SPOOL_REJECTED), 1);
	spool_close(&s);
}

/* A file another user plants in the spool: a symlink where the daemon
 * writes a result is replaced, its target untouched; a spool whose done/
 * is a symlink is refused. */
static void planted_links_are_not_followed(void **state)
{
	char dir[256], input[256], path[512], victim[256], *text = NULL;
	struct spool_result res;
	struct spool s;
	struct stat st;
	int r;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/planted", root);
	snprintf(input, sizeof(input), "%s/missing/input", root);
	snprintf(victim, sizeof(victim), "%s/victim", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, victim, "precious", 8), 0);
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	snprintf(path, sizeof(path), "%s/rejected/y.errno", dir);
	assert_int_equal(symlink(victim, path), 0);
	put_renamed(dir, "y", "blob");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_int_equal(kw_read_file(victim, 100, &text, NULL), 0);
	assert_string_equal(text, "precious");
	free(text);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	spool_close(&s);

	/* A hard link is replaced too, not written through. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(link(victim, path), 0);
	assert_int_equal(kw_write_file_at(AT_FDCWD, path, "x", 1), 0);
	assert_int_equal(kw_read_file(victim, 100, &text, NULL), 0);
	assert_string_equal(text, "precious");
	free(text);

	snprintf(dir, sizeof(dir), "%s/spool/linked", root);
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/done", dir);
	assert_int_equal(symlink(root, path), 0);
	/* O_NOFOLLOW | O_DIRECTORY on a symlink: ENOTDIR (ELOOP without
	 * O_DIRECTORY); before, the spool opened through it. */
	r = spool_open(&s, dir, input, 1);
	assert_true(r == -ENOTDIR || r == -ELOOP);
}

/* Out of descriptors when opening the input: the daemon's failure, not
 * the blob's.  The blob goes back to the queue (not to rejected/) and is
 * replayed once descriptors are back. */
static void own_failure_keeps_the_blob(void **state)
{
	char dir[256], input[256];
	struct spool_result res;
	struct rlimit rl, low;
	struct spool s;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/emfile", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "z", "blob");
	/* One free descriptor: the blob opens, the input does not. */
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = fd + 1;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	fd = spool_step(&s, &res);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	assert_int_equal(fd, -EMFILE);
	assert_true(exists(dir, ".", "z"));
	assert_false(exists(dir, "rejected", "z"));
	assert_false(exists(dir, "inflight", "z"));
	assert_int_equal(spool_step(&s, &res), 0);
	assert_int_equal(res.state, SPOOL_DONE);
	assert_true(exists(dir, "done", "z"));
	spool_close(&s);
}

static void recovery_sets_inflight_aside(void **state)
{
	char dir[256], input[256];
	struct spool_result res;
	struct spool s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/k", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "crash", "boom");
	put_renamed(dir, "later", "ok");
	/* Claimed, then the daemon "dies" before the write finishes. */
	assert_int_equal(spool_claim(&s, "crash"), 0);
	assert_true(exists(dir, "inflight", "crash"));
	spool_close(&s);

	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover(&s, NULL, NULL, NULL), 0);
	assert_false(exists(dir, "inflight", "crash"));
	assert_true(exists(dir, "interrupted", "crash"));
	/* Not replayed: only "later" runs. */
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "later");
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	assert_int_equal(spool_count(&s, SPOOL_INTERRUPTED), 1);
	assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
	spool_close(&s);
}

static void on_recovered(const struct spool_result *res, void *ud)
{
	struct spool_result *last = ud;

	*last = *res;
}

/* Recovery tells a blob claimed in an earlier boot (the kernel died in its
 * write) from one claimed in this boot (the daemon died). */
static void recovery_knows_the_boot(void **state)
{
	char dir[256], input[256];
	struct spool_result res;
	struct spool s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/b", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover(&s, "boot-a", on_recovered, &res), 0);
	assert_true(exists(dir, ".", ".boot"));
	put_renamed(dir, "one", "1");
	put_renamed(dir, "two", "2");
	assert_int_equal(spool_claim(&s, "one"), 0);
	spool_close(&s);

	/* The daemon restarted in the same boot. */
	memset(&res, 0, sizeof(res));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover(&s, "boot-a", on_recovered, &res), 0);
	assert_string_equal(res.name, "one");
	assert_int_equal(res.state, SPOOL_INTERRUPTED);
	assert_false(res.prev_boot);
	assert_int_equal(spool_claim(&s, "two"), 0);
	spool_close(&s);

	/* The kernel died in the write of "two": the next boot. */
	memset(&res, 0, sizeof(res));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover(&s, "boot-b", on_recovered, &res), 0);
	assert_string_equal(res.name, "two");
	assert_true(res.prev_boot);
	/* The .boot file is no blob. */
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	spool_close(&s);
}

/* Entries that are no blob (a directory, FIFO, symlink) are refused, each
 * with its reason, never skipped without a word; the spool's own tmp/ and
 * state directories are not entries. */
static void unfit_entries_refused(void **state)
{
	static const char *const names[] = { "d", "f", "l" };
	static const char *const whys[] = { "directory", "FIFO", "symbolic link" };
	char dir[256], input[256], path[512], *text = NULL;
	struct spool_result res;
	struct spool s;
	struct stat st;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/u", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	snprintf(path, sizeof(path), "%s/tmp", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	snprintf(path, sizeof(path), "%s/d", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/l", dir);
	assert_int_equal(symlink(input, path), 0);
	put_renamed(dir, "z", "blob");
	for (i = 0; i < 3; i++) {
		assert_int_equal(spool_step(&s, &res), 0);
		assert_string_equal(res.name, names[i]);
		assert_int_equal(res.state, SPOOL_REJECTED);
		assert_int_equal(res.err, -EINVAL);
		assert_non_null(strstr(res.why, whys[i]));
		assert_true(exists(dir, "rejected", names[i]));
		snprintf(path, sizeof(path), "%s/rejected/%s.errno", dir, names[i]);
		assert_int_equal(kw_read_file(path, 200, &text, NULL), 0);
		assert_int_equal(strncmp(text, "22 ", 3), 0);
		assert_non_null(strstr(text, whys[i]));
		free(text);
	}
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "z");
	assert_int_equal(res.state, SPOOL_DONE);
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	/* The FIFO was moved, never opened: this did not block. */
	assert_int_equal(spool_count(&s, SPOOL_REJECTED), 3);
	spool_close(&s);
}

/* A file created in the queue itself is refused at once: its producer may
 * still be writing.  A hard link of a finished file is a blob. */
static void written_in_place_refused(void **state)
{
	char dir[256], input[256], path[512], other[512], *got = NULL;
	struct spool_result res;
	struct spool s;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/w", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	snprintf(path, sizeof(path), "%s/half", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "first-", 6), 6);
	assert_int_equal(spool_created(&s, "half", &res), 1);
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_string_equal(res.why, SPOOL_IN_PLACE);
	assert_int_equal(write(fd, "second", 6), 6);
	close(fd);
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	assert_true(exists(dir, "rejected", "half"));
	assert_int_equal(kw_read_file(input, 100, &got, NULL), 0);
	assert_string_equal(got, "");
	free(got);
	/* Linked in whole; a temporary name; one gone already: not refused. */
	snprintf(other, sizeof(other), "%s/finished", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, other, "whole", 5), 0);
	snprintf(path, sizeof(path), "%s/linked", dir);
	assert_int_equal(link(other, path), 0);
	assert_int_equal(spool_created(&s, "linked", &res), 0);
	assert_int_equal(spool_created(&s, ".partial", &res), 0);
	assert_int_equal(spool_created(&s, "gone", &res), 0);
	assert_int_equal(spool_created(&s, "tmp", &res), 0);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "linked");
	assert_int_equal(res.state, SPOOL_DONE);
	assert_int_equal(kw_read_file(input, 100, &got, NULL), 0);
	assert_string_equal(got, "whole");
	free(got);
	spool_close(&s);
}

/* Whoever may write the spool may queue blobs: a spool writable by others,
 * owned by someone else, or group-writable without producer_group and the
 * sticky bit is refused, saying why. */
static void spool_ownership_checked(void **state)
{
	char dir[256], input[256], why[160], path[512];
	struct spool s;
	struct stat st;

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(dir, sizeof(dir), "%s/spool/o", root);
	snprintf(input, sizeof(input), "%s/input", root);
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(spool_open_group(&s, dir, input, 1, (gid_t)-1, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "writable by others"));
	assert_int_equal(chmod(dir, 0770), 0);
	assert_int_equal(spool_open_group(&s, dir, input, 1, (gid_t)-1, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "no producer_group"));
	assert_int_equal(chown(dir, 0, 65534), 0);
	assert_int_equal(spool_open_group(&s, dir, input, 1, 100, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not by producer_group"));
	assert_int_equal(spool_open_group(&s, dir, input, 1, 65534, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "sticky"));
	assert_int_equal(chmod(dir, 03770), 0);
	assert_int_equal(spool_open_group(&s, dir, input, 1, 65534, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/tmp", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 03770);
	assert_int_equal(st.st_gid, 65534);
	snprintf(path, sizeof(path), "%s/done", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0077, 0);
	spool_close(&s);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	assert_int_equal(spool_open_group(&s, dir, input, 1, 65534, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "owned by uid 65534"));
	/* A spool that is a symlink to a good directory is not followed. */
	assert_int_equal(chown(dir, 0, 0), 0);
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(path, sizeof(path), "%s/spool/link", root);
	assert_int_equal(symlink(dir, path), 0);
	assert_int_equal(spool_open(&s, path, input, 1), -ENOTDIR);
}

/* A result whose record cannot be written (here a directory squats on
 * NAME.errno; on a full disk, ENOSPC) says how far it got, and is
 * completed later: the blob is never left in inflight/. */
static void finish_completed_later(void **state)
{
	char dir[256], input[256], path[512], *text = NULL;
	struct spool_result res;
	struct spool s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/f", root);
	snprintf(input, sizeof(input), "%s/missing/input", root);
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "x", "blob");
	snprintf(path, sizeof(path), "%s/rejected/x.errno", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(spool_claim(&s, "x"), 0);
	assert_true(spool_finish(&s, "x", -ENOENT, &res) < 0);
	assert_true(res.moved);
	assert_true(exists(dir, "rejected", "x"));
	assert_false(exists(dir, "inflight", "x"));
	assert_true(spool_finish_again(&s, &res) < 0);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(spool_finish_again(&s, &res), 0);
	assert_int_equal(kw_read_file(path, 100, &text, NULL), 0);
	assert_int_equal(strncmp(text, "2 ", 2), 0);
	free(text);
	spool_close(&s);
}

/* done/ and rejected/ keep the newest entries; a rejected blob goes with
 * its .errno. */
static void prune_keeps_the_newest(void **state)
{
	char dir[256], input[256], name[8];
	struct spool_result res;
	unsigned int removed;
	struct spool s;
	int i;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/p", root);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "%c", 'a' + i);
		put_renamed(dir, name, "blob");
		assert_int_equal(spool_step(&s, &res), 0);
	}
	assert_int_equal(spool_prune(&s, SPOOL_DONE, 4, &removed, NULL), 0);
	assert_int_equal(removed, 6);
	assert_int_equal(spool_count(&s, SPOOL_DONE), 4);
	assert_false(exists(dir, "done", "f"));
	assert_true(exists(dir, "done", "g"));
	assert_true(exists(dir, "done", "j"));
	assert_int_equal(spool_prune(&s, SPOOL_DONE, 4, &removed, NULL), 0);
	assert_int_equal(removed, 0);
	spool_close(&s);

	snprintf(input, sizeof(input), "%s/missing/input", root);
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	put_renamed(dir, "r1", "x");
	put_renamed(dir, "r2", "x");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_int_equal(spool_prune(&s, SPOOL_REJECTED, 1, &removed, NULL), 0);
	assert_int_equal(removed, 1);
	assert_false(exists(dir, "rejected", "r1"));
	assert_false(exists(dir, "rejected", "r1.errno"));
	assert_true(exists(dir, "rejected", "r2.errno"));
	spool_close(&s);
}

/* A batch: one scan claims the smallest names (an entry that is no blob
 * counted, left to the one-at-a-time refusal), each is written in turn,
 * and all move on; the pmsg stand-in gets a start and a verdict line per
 * blob, and nothing of the batch is left in inflight/. */
static void batch_replays_in_order(void **state)
{
	char dir[256], input[256], pmsg[256], sub[300], *got = NULL;
	struct spool_batch *b = calloc(1, sizeof(*b));
	unsigned int unfit, i;
	struct spool s;
	bool ours;

	(void)state;
	assert_non_null(b);
	snprintf(dir, sizeof(dir), "%s/spool/batch", root);
	snprintf(input, sizeof(input), "%s/input", root);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	fclose(fopen(input, "w"));
	fclose(fopen(pmsg, "w"));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover(&s, "boot-a", NULL, NULL), 0);
	assert_int_equal(spool_batch_enable(&s, pmsg), 0);
	put_renamed(dir, "c", "3");
	put_renamed(dir, "a", "1");
	put_renamed(dir, "b", "2");
	snprintf(sub, sizeof(sub), "%s/0dir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	assert_int_equal(spool_batch_claim(&s, b, 2, &unfit), 0);
	assert_int_equal(b->n, 2);
	assert_int_equal(unfit, 1);
	assert_string_equal(b->name[0], "a");
	assert_string_equal(b->name[1], "b");
	assert_true(exists(dir, "inflight", "a") && exists(dir, "inflight", "b"));
	for (i = 0; i < b->n; i++)
		assert_int_equal(spool_batch_exec(&s, b, i, &ours), 0);
	assert_int_equal(kw_read_file(input, 100, &got, NULL), 0);
	assert_string_equal(got, "2");
	free(got);
	assert_int_equal(spool_batch_finish(&s, b), 0);
	assert_int_equal(b->res[0].state, SPOOL_DONE);
	assert_string_equal(b->res[1].final_name, "b");
	assert_int_equal(b->res[1].size, 1);
	assert_true(exists(dir, "done", "a") && exists(dir, "done", "b"));
	assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
	assert_int_equal(kw_read_file(pmsg, 4096, &got, NULL), 0);
	assert_non_null(strstr(got, " 0 start\n"));
	assert_non_null(strstr(got, " 1 = 0\n"));
	free(got);
	/* The rest: c, and the directory still queued for its refusal. */
	assert_int_equal(spool_batch_claim(&s, b, SPOOL_BATCH_MAX, &unfit), 0);
	assert_int_equal(b->n, 1);
	assert_string_equal(b->name[0], "c");
	assert_int_equal(spool_batch_exec(&s, b, 0, &ours), 0);
	assert_int_equal(spool_batch_finish(&s, b), 0);
	/* Its own result, not the last batch's first. */
	assert_string_equal(b->res[0].name, "c");
	assert_true(exists(dir, "done", "c"));
	assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
	assert_int_equal(spool_batch_claim(&s, b, SPOOL_BATCH_MAX, &unfit), 0);
	assert_int_equal(b->n, 0);
	assert_int_equal(unfit, 1);
	spool_close(&s);
	free(b);
}

/* A daemon that claims five blobs, writes a (done) and b (its input
 * missing: rejected), and is killed in c's write (a FIFO nobody reads:
 * the open blocks, as a hanging target's would). */
static void batch_killed_in_write(const char *dir, const char *pmsg)
{
	char input[256], fifo[256], missing[256], text[512];
	const char *names[] = { "a", "b", "c", "d", "e" };
	unsigned int i;
	pid_t pid;
	int status;

	snprintf(input, sizeof(input), "%s/input", root);
	snprintf(fifo, sizeof(fifo), "%s/fifo", root);
	snprintf(missing, sizeof(missing), "%s/missing/input", root);
	fclose(fopen(input, "w"));
	fclose(fopen(pmsg, "w"));
	if (access(fifo, F_OK) != 0)
		assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct spool_batch *b = calloc(1, sizeof(*b));
		unsigned int unfit;
		struct spool s;
		bool ours;

		if (!b || spool_open(&s, dir, input, 1) < 0 ||
		    spool_recover(&s, "boot-a", NULL, NULL) < 0 ||
		    spool_batch_enable(&s, pmsg) < 0)
			_exit(1);
		for (i = 0; i < 5; i++)
			put_renamed(dir, names[i], names[i]);
		if (spool_batch_claim(&s, b, SPOOL_BATCH_MAX, &unfit) < 0 || b->n != 5)
			_exit(2);
		if (spool_batch_exec(&s, b, 0, &ours) != 0)
			_exit(3);
		snprintf(s.input, sizeof(s.input), "%s", missing);
		if (spool_batch_exec(&s, b, 1, &ours) != -ENOENT || ours)
			_exit(4);
		snprintf(s.input, sizeof(s.input), "%s", fifo);
		spool_batch_exec(&s, b, 2, &ours);
		_exit(5);
	}
	/* Killed once c's start is recorded and it sits in the open. */
	for (i = 0; i < 500; i++) {
		int fd = open(pmsg, O_RDONLY);
		ssize_t n = fd >= 0 ? read(fd, text, sizeof(text) - 1) : -1;

		if (fd >= 0)
			close(fd);
		text[n > 0 ? n : 0] = '\0';
		if (strstr(text, " 2 start\n"))
			break;
		assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
		usleep(10000);
	}
	assert_non_null(strstr(text, " 1 = -2\n"));
	usleep(100000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

struct recovered {
	unsigned int n;
	struct spool_result res[8];
};

static void on_recovered_all(const struct spool_result *res, void *ud)
{
	struct recovered *r = ud;

	if (r->n < 8)
		r->res[r->n++] = *res;
}

/* Daemon killed (the same boot: .progress from the page cache) and kernel
 * crashed (the next boot: the pmsg lines): what ran moves on with its
 * verdict, the blob in flight is set aside, the rest is queued again. */
static void batch_recovered_after_kill_and_crash(void **state)
{
	const char *boot[] = { "boot-a", "boot-b" };
	char dir[256], pmsg[256], input[256], *text = NULL;
	struct recovered rec;
	struct spool s;
	unsigned int k;

	(void)state;
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	snprintf(input, sizeof(input), "%s/input", root);
	for (k = 0; k < 2; k++) {
		snprintf(dir, sizeof(dir), "%s/spool/kill%u", root, k);
		batch_killed_in_write(dir, pmsg);
		if (k == 1)
			assert_int_equal(kw_read_file(pmsg, 1 << 16, &text, NULL), 0);
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(spool_open(&s, dir, input, 1), 0);
		assert_int_equal(spool_recover_pmsg(&s, boot[k], text, on_recovered_all, &rec), 0);
		free(text);
		text = NULL;
		assert_int_equal(rec.n, 3);
		assert_string_equal(rec.res[0].name, "a");
		assert_int_equal(rec.res[0].state, SPOOL_DONE);
		assert_string_equal(rec.res[1].name, "b");
		assert_int_equal(rec.res[1].state, SPOOL_REJECTED);
		assert_int_equal(rec.res[1].err, -ENOENT);
		assert_true(exists(dir, "rejected", "b.errno"));
		assert_string_equal(rec.res[2].name, "c");
		assert_int_equal(rec.res[2].state, SPOOL_INTERRUPTED);
		assert_int_equal(rec.res[2].prev_boot, k == 1);
		assert_true(exists(dir, ".", "d") && exists(dir, ".", "e"));
		assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
		/* Recovered once: a second start finds nothing to do. */
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(spool_recover_pmsg(&s, boot[k], NULL, on_recovered_all, &rec), 0);
		assert_int_equal(rec.n, 0);
		spool_close(&s);
	}
	/* The next boot without the pmsg lines: nothing tells what ran, so
	 * the whole batch is set aside, none of it replayed. */
	snprintf(dir, sizeof(dir), "%s/spool/nopmsg", root);
	batch_killed_in_write(dir, pmsg);
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(spool_open(&s, dir, input, 1), 0);
	assert_int_equal(spool_recover_pmsg(&s, "boot-b", "unrelated\n", on_recovered_all, &rec),
			 0);
	assert_int_equal(rec.n, 5);
	for (k = 0; k < 5; k++)
		assert_int_equal(rec.res[k].state, SPOOL_INTERRUPTED);
	assert_int_equal(spool_count(&s, SPOOL_QUEUED), 0);
	spool_close(&s);
}

/* A pack's bytes: the header, then each blob's le32 length and bytes. */
static size_t pack_bytes(char *buf, const char *const *blobs, unsigned int n)
{
	size_t len = sizeof(SPOOL_PACK_MAGIC) - 1;
	unsigned int i;

	memcpy(buf, SPOOL_PACK_MAGIC, len);
	for (i = 0; i < n; i++) {
		uint32_t sz = htole32(strlen(blobs[i]));

		memcpy(buf + len, &sz, sizeof(sz));
		memcpy(buf + len + sizeof(sz), blobs[i], strlen(blobs[i]));
		len += sizeof(sz) + strlen(blobs[i]);
	}
	return len;
}

/* Write a pack under a dot name, then rename it into the queue. */
static void put_pack(const char *dir, const char *name, const char *const *blobs, unsigned int n)
{
	char buf[4096], tmp[512], path[512];
	size_t len = pack_bytes(buf, blobs, n);

	snprintf(tmp, sizeof(tmp), "%s/.%s", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(kw_replace_file(tmp, buf, len), 0);
	assert_int_equal(rename(tmp, path), 0);
}

static void pack_parse_faults(void **state)
{
	static const char *const two[] = { "ab", "c" };
	uint32_t *off = calloc(SPOOL_PACK_BLOBS + 1, sizeof(*off));
	uint32_t *size = calloc(SPOOL_PACK_BLOBS + 1, sizeof(*size));
	char *buf = calloc(1, 8 + 5 * (SPOOL_PACK_BLOBS + 1)), why[96];
	uint32_t big = htole32(KW_BLOB_MAX + 1), zero = 0;
	unsigned int n = 0, i;
	size_t len;

	(void)state;
	assert_true(off && size && buf);
	assert_true(spool_pack_name("x.kwpack"));
	assert_false(spool_pack_name(".kwpack"));
	assert_false(spool_pack_name("x.kwpack.results"));
	len = pack_bytes(buf, two, 2);
	assert_int_equal(spool_pack_parse(buf, len, off, size, &n, why, sizeof(why)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(size[0], 2);
	assert_memory_equal(buf + off[0], "ab", 2);
	assert_int_equal(size[1], 1);
	assert_memory_equal(buf + off[1], "c", 1);
	/* Each fault is said with the blob and the offset it is at. */
	assert_int_equal(spool_pack_parse("KWPACK02", 8, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no KWPACK01 header"));
	assert_int_equal(spool_pack_parse(buf, 8, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "a pack of no blobs");
	assert_int_equal(spool_pack_parse(buf, len - 3, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "blob 1 at offset 14: its length is cut short");
	assert_int_equal(spool_pack_parse(buf, len - 1, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "blob 1 at offset 14: 1 bytes, 0 left in the pack");
	memcpy(buf + 14, &zero, 4);
	assert_int_equal(spool_pack_parse(buf, len, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "blob 1 at offset 14: length 0, not 1 to"));
	memcpy(buf + 14, &big, 4);
	assert_int_equal(spool_pack_parse(buf, len, off, size, &n, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "length 1048577"));
	/* At most SPOOL_PACK_BLOBS blobs. */
	len = 8;
	for (i = 0; i <= SPOOL_PACK_BLOBS; i++) {
		uint32_t one = htole32(1);

		memcpy(buf + len, &one, 4);
		buf[len + 4] = 'x';
		len += 5;
	}
	assert_int_equal(spool_pack_parse(buf, len, off, size, &n, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "more than 4096 blobs"));
	assert_int_equal(spool_pack_parse(buf, len - 5, off, size, &n, why, sizeof(why)), 0);
	assert_int_equal(n, SPOOL_PACK_BLOBS);
	free(off);
	free(size);
	free(buf);
}

static void pack_open(struct spool *s, const char *dir, const char *pmsg)
{
	char input[256];

	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(s, dir, input, 1), 0);
	assert_int_equal(spool_recover(s, "boot-a", NULL, NULL), 0);
	if (pmsg) {
		fclose(fopen(pmsg, "w"));
		assert_int_equal(spool_batch_enable(s, pmsg), 0);
	}
}

/* A pack runs its blobs in order, with one claim and one move; loose
 * blobs are not taken for packs nor packs for blobs. */
static void pack_replays_in_order(void **state)
{
	static const char *const blobs[] = { "x", "yy", "zzz" };
	struct spool_pack *p = calloc(1, sizeof(*p));
	char dir[256], pmsg[256], name[NAME_MAX + 1], path[512], *got = NULL;
	struct spool_result res, b;
	const char *unfit;
	unsigned int unfit_n;
	struct spool_batch *batch = calloc(1, sizeof(*batch));
	struct spool s;
	bool ours;

	(void)state;
	assert_true(p && batch);
	snprintf(dir, sizeof(dir), "%s/spool/pack", root);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	pack_open(&s, dir, pmsg);
	put_pack(dir, "p.kwpack", blobs, 3);
	put_renamed(dir, "a", "loose");
	assert_int_equal(spool_next(&s, name, sizeof(name), &unfit), 0);
	assert_string_equal(name, "a");
	assert_int_equal(spool_batch_claim(&s, batch, SPOOL_BATCH_MAX, &unfit_n), 0);
	assert_int_equal(batch->n, 1);
	assert_string_equal(batch->name[0], "a");
	assert_int_equal(spool_batch_finish(&s, batch), 0);	/* unrun: queued again */
	assert_int_equal(spool_pack_next(&s, name, sizeof(name)), 0);
	assert_string_equal(name, "p.kwpack");
	assert_int_equal(spool_pack_claim(&s, p, name, &res), 0);
	assert_int_equal(p->n, 3);
	assert_true(exists(dir, "inflight", "p.kwpack"));
	assert_int_equal(spool_pack_next(&s, name, sizeof(name)), -ENOENT);
	while (p->next < p->n)
		assert_int_equal(spool_pack_exec(&s, p, &ours), 0);
	assert_int_equal(kw_read_file(input_of(), 100, &got, NULL), 0);
	assert_string_equal(got, "zzz");
	free(got);
	assert_int_equal(spool_pack_finish(&s, p, &res), 0);
	assert_string_equal(res.final_name, "p.kwpack");
	assert_true(exists(dir, "done", "p.kwpack"));
	assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
	assert_true(spool_pack_blob(p, 1, &b));
	assert_string_equal(b.name, "p.kwpack#1");
	assert_true(b.packed);
	assert_int_equal(b.index, 1);
	assert_int_equal(b.size, 2);
	assert_int_equal(b.state, SPOOL_DONE);
	spool_pack_release(&s, p);
	snprintf(path, sizeof(path), "%s/done/p.kwpack.results", dir);
	assert_int_equal(kw_read_file(path, 4096, &got, NULL), 0);
	assert_string_equal(got, "0 1 0\n1 2 0\n2 3 0\n");
	free(got);
	assert_int_equal(kw_read_file(pmsg, 4096, &got, NULL), 0);
	assert_non_null(strstr(got, " 0 start\n"));
	assert_non_null(strstr(got, " 1 = 0\n"));
	assert_non_null(strstr(got, " 2 = 0\n"));
	free(got);
	/* Nothing to go on with, and the loose blob still queued. */
	assert_int_equal(spool_pack_resume(&s, p), 0);
	assert_true(exists(dir, ".", "a"));
	spool_close(&s);
	free(batch);
	free(p);
}

/* A pack that is not well formed is rejected whole, unrun, with why. */
static void pack_malformed_rejected(void **state)
{
	struct spool_pack *p = calloc(1, sizeof(*p));
	char dir[256], path[512], *got = NULL;
	struct spool_result res;
	struct spool s;

	(void)state;
	assert_non_null(p);
	snprintf(dir, sizeof(dir), "%s/spool/bad", root);
	pack_open(&s, dir, NULL);
	put_renamed(dir, "bad.kwpack", "KWPACK01\x05");
	assert_int_equal(spool_pack_claim(&s, p, "bad.kwpack", &res), 1);
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_int_equal(res.err, -EINVAL);
	assert_string_equal(res.why, "blob 0 at offset 8: its length is cut short");
	assert_true(exists(dir, "rejected", "bad.kwpack"));
	snprintf(path, sizeof(path), "%s/rejected/bad.kwpack.errno", dir);
	assert_int_equal(kw_read_file(path, 4096, &got, NULL), 0);
	assert_string_equal(got, "22 Invalid argument: blob 0 at offset 8: its length is cut short\n");
	free(got);
	assert_int_equal(kw_read_file(input_of(), 100, &got, NULL), 0);
	assert_string_equal(got, "");
	free(got);
	spool_close(&s);
	free(p);
}

/* A daemon that claims a pack of five, runs blob 0 (done) and 1 (its
 * input missing: -ENOENT), and is killed in blob 2's write (a FIFO nobody
 * reads).  @pmsg NULL: a spool without pmsg, whose starts are synced. */
static void pack_killed_in_write(const char *dir, const char *pmsg)
{
	static const char *const blobs[] = { "a", "b", "c", "d", "e" };
	char fifo[256], missing[256], progress[512];
	unsigned int i;
	pid_t pid;
	int status;

	snprintf(fifo, sizeof(fifo), "%s/fifo", root);
	snprintf(missing, sizeof(missing), "%s/missing/input", root);
	if (access(fifo, F_OK) != 0)
		assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct spool_pack *p = calloc(1, sizeof(*p));
		struct spool_result res;
		struct spool s;
		bool ours;

		pack_open(&s, dir, pmsg);
		put_pack(dir, "p.kwpack", blobs, 5);
		if (!p || spool_pack_claim(&s, p, "p.kwpack", &res) != 0 || p->n != 5)
			_exit(2);
		if (spool_pack_exec(&s, p, &ours) != 0)
			_exit(3);
		snprintf(s.input, sizeof(s.input), "%s", missing);
		if (spool_pack_exec(&s, p, &ours) != -ENOENT || ours)
			_exit(4);
		snprintf(s.input, sizeof(s.input), "%s", fifo);
		spool_pack_exec(&s, p, &ours);
		_exit(5);
	}
	/* Killed once blob 2's start is recorded and it sits in the open. */
	snprintf(progress, sizeof(progress), "%s/inflight/.pack", dir);
	for (i = 0; i < 500; i++) {
		struct { int32_t state, result; } e[3] = { { 0, 0 } };
		int fd = open(progress, O_RDONLY);
		ssize_t n = fd >= 0 ? pread(fd, e, sizeof(e), 8 + 8 + 4 + 4 + NAME_MAX + 1) : -1;

		if (fd >= 0)
			close(fd);
		if (n == sizeof(e) && e[2].state == 1)
			break;
		assert_int_equal(waitpid(pid, &status, WNOHANG), 0);
		usleep(10000);
	}
	usleep(100000);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

/* Daemon killed (the same boot), kernel crashed (the next boot: pmsg),
 * kernel crashed without pmsg (the synced starts): the blob in flight is
 * set aside as its own file, the pack goes on after it, and the verdicts
 * of all five are in its results. */
static void pack_recovered_after_kill_and_crash(void **state)
{
	const char *boot[] = { "boot-a", "boot-b", "boot-b" };
	struct spool_pack *p = calloc(1, sizeof(*p));
	char dir[256], pmsg[256], path[512], *text = NULL, *got = NULL;
	struct recovered rec;
	struct spool_result res, b;
	struct spool s;
	unsigned int k;
	bool ours;

	(void)state;
	assert_non_null(p);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	for (k = 0; k < 3; k++) {
		snprintf(dir, sizeof(dir), "%s/spool/kill%u", root, k);
		pack_killed_in_write(dir, k < 2 ? pmsg : NULL);
		if (k == 1)
			assert_int_equal(kw_read_file(pmsg, 1 << 16, &text, NULL), 0);
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
		assert_int_equal(spool_recover_pmsg(&s, boot[k], text, on_recovered_all, &rec), 0);
		free(text);
		text = NULL;
		assert_int_equal(rec.n, 1);
		assert_string_equal(rec.res[0].name, "p.kwpack#2");
		assert_int_equal(rec.res[0].state, SPOOL_INTERRUPTED);
		assert_true(rec.res[0].packed);
		assert_int_equal(rec.res[0].index, 2);
		assert_int_equal(rec.res[0].prev_boot, k > 0);
		snprintf(path, sizeof(path), "%s/interrupted/p.kwpack#2", dir);
		assert_int_equal(kw_read_file(path, 100, &got, NULL), 0);
		assert_string_equal(got, "c");
		free(got);
		assert_true(exists(dir, "inflight", "p.kwpack"));
		/* Recovered once: a second start sets nothing more aside. */
		memset(&rec, 0, sizeof(rec));
		assert_int_equal(spool_recover_pmsg(&s, boot[k], NULL, on_recovered_all, &rec), 0);
		assert_int_equal(rec.n, 0);
		/* It goes on after the blob set aside. */
		assert_int_equal(spool_pack_resume(&s, p), 1);
		assert_int_equal(p->next, 3);
		while (p->next < p->n)
			assert_int_equal(spool_pack_exec(&s, p, &ours), 0);
		assert_int_equal(kw_read_file(input_of(), 100, &got, NULL), 0);
		assert_string_equal(got, "e");
		free(got);
		assert_int_equal(spool_pack_finish(&s, p, &res), 0);
		assert_false(spool_pack_blob(p, 2, &b));
		assert_true(spool_pack_blob(p, 1, &b));
		assert_int_equal(b.state, SPOOL_REJECTED);
		assert_int_equal(b.err, -ENOENT);
		spool_pack_release(&s, p);
		snprintf(path, sizeof(path), "%s/done/p.kwpack.results", dir);
		assert_int_equal(kw_read_file(path, 4096, &got, NULL), 0);
		assert_string_equal(got, "0 1 0\n1 1 -2\n2 1 interrupted\n3 1 0\n4 1 0\n");
		free(got);
		assert_int_equal(spool_count(&s, SPOOL_INFLIGHT), 0);
		spool_close(&s);
	}
	/* The next boot with pmsg lost: nothing tells what ran, so the pack
	 * is set aside whole, none of it replayed. */
	snprintf(dir, sizeof(dir), "%s/spool/nopmsg", root);
	pack_killed_in_write(dir, pmsg);
	memset(&rec, 0, sizeof(rec));
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	assert_int_equal(spool_recover_pmsg(&s, "boot-b", "unrelated\n", on_recovered_all, &rec),
			 0);
	assert_int_equal(rec.n, 1);
	assert_string_equal(rec.res[0].name, "p.kwpack");
	assert_false(rec.res[0].packed);
	assert_true(exists(dir, "interrupted", "p.kwpack"));
	assert_int_equal(spool_pack_resume(&s, p), 0);
	spool_close(&s);
	free(p);
}

/* done/ keeps the newest packs, each with its results. */
static void pack_pruned_with_results(void **state)
{
	static const char *const one[] = { "1" };
	struct spool_pack *p = calloc(1, sizeof(*p));
	char dir[256], name[32];
	struct spool_result res;
	unsigned int i, removed, left;
	struct spool s;
	bool ours;

	(void)state;
	assert_non_null(p);
	snprintf(dir, sizeof(dir), "%s/spool/prune", root);
	pack_open(&s, dir, NULL);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "p%u.kwpack", i);
		put_pack(dir, name, one, 1);
		assert_int_equal(spool_pack_claim(&s, p, name, &res), 0);
		assert_int_equal(spool_pack_exec(&s, p, &ours), 0);
		assert_int_equal(spool_pack_finish(&s, p, &res), 0);
		spool_pack_release(&s, p);
		usleep(20000);	/* ctimes apart */
	}
	assert_int_equal(spool_prune(&s, SPOOL_DONE, 1, &removed, &left), 0);
	assert_int_equal(removed, 2);
	assert_int_equal(left, 1);
	assert_false(exists(dir, "done", "p0.kwpack.results"));
	assert_true(exists(dir, "done", "p2.kwpack") && exists(dir, "done", "p2.kwpack.results"));
	spool_close(&s);
	free(p);
}

/* Run fn(arg) in a child: true if it exits 0 within @sec seconds; a
 * child still running then (blocked in an open) is killed: false. */
static bool in_child(int (*fn)(void *), void *arg, unsigned int sec)
{
	unsigned int i;
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	for (i = 0; i < sec * 100; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		assert_true(w >= 0);
		if (w == pid)
			return WIFEXITED(status) && WEXITSTATUS(status) == 0;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	print_message("child still running after %u s: killed\n", sec);
	return false;
}

static int exec_swapped(void *arg)
{
	struct spool *s = arg;
	size_t size = 0;
	bool ours = true;
	int r;

	r = spool_exec(s, "x", &size, &ours);
	if (r != -EINVAL || ours) {
		fprintf(stderr, "spool_exec: %d (%s), ours %d\n", r, strerror(-r), ours);
		return 1;
	}
	return 0;
}

/* An entry swapped for a FIFO between the check of its type and its claim
 * (a producer renames one over the blob) is refused unread: the open does
 * not block, and it goes to rejected/ saying what it is. */
static void exec_refuses_swapped_fifo(void **state)
{
	char dir[256], path[512], *text = NULL;
	struct spool_result res;
	struct spool s;
	int r;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/swap", root);
	fclose(fopen(input_of(), "w"));
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	put_renamed(dir, "x", "blob");
	assert_int_equal(spool_claim(&s, "x"), 0);
	snprintf(path, sizeof(path), "%s/inflight/x", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_true(in_child(exec_swapped, &s, 3));
	/* The same in this process, then to rejected/ with why. */
	assert_int_equal(exec_swapped(&s), 0);
	assert_int_equal(spool_finish(&s, "x", -EINVAL, &res), 0);
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_non_null(strstr(res.why, "FIFO"));
	snprintf(path, sizeof(path), "%s/rejected/x.errno", dir);
	assert_int_equal(kw_read_file(path, 200, &text, NULL), 0);
	assert_non_null(strstr(text, "FIFO"));
	free(text);
	/* A symlink there is refused the same way, not followed. */
	put_renamed(dir, "y", "blob");
	assert_int_equal(spool_claim(&s, "y"), 0);
	snprintf(path, sizeof(path), "%s/inflight/y", dir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(input_of(), path), 0);
	{
		size_t size;
		bool ours = true;

		r = spool_exec(&s, "y", &size, &ours);
		assert_int_equal(r, -EINVAL);
		assert_false(ours);
	}
	assert_int_equal(spool_finish(&s, "y", r, &res), 0);
	assert_non_null(strstr(res.why, "symbolic link"));
	spool_close(&s);
}

/* What recovery finds in inflight/ that is no blob (a FIFO, a symlink) is
 * moved out too, to rejected/ with why: a later blob of the same name is
 * claimed, not refused EEXIST for good.  A blob put back in the queue
 * where one of its name has arrived meanwhile goes under a free name. */
static void recovery_clears_odd_inflight(void **state)
{
	char dir[256], path[512], *text = NULL;
	struct recovered rec = { 0 };
	struct spool_result res;
	struct spool s;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/odd", root);
	fclose(fopen(input_of(), "w"));
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	snprintf(path, sizeof(path), "%s/inflight/f", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/inflight/l", dir);
	assert_int_equal(symlink(input_of(), path), 0);
	assert_int_equal(spool_recover(&s, "boot-a", on_recovered_all, &rec), 0);
	assert_false(exists(dir, "inflight", "f"));
	assert_false(exists(dir, "inflight", "l"));
	assert_true(exists(dir, "rejected", "f"));
	assert_int_equal(rec.n, 2);
	assert_int_equal(rec.res[0].state, SPOOL_REJECTED);
	snprintf(path, sizeof(path), "%s/rejected/f.errno", dir);
	assert_int_equal(kw_read_file(path, 200, &text, NULL), 0);
	assert_non_null(strstr(text, "FIFO"));
	free(text);
	put_renamed(dir, "f", "blob");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "f");
	assert_int_equal(res.state, SPOOL_DONE);

	put_renamed(dir, "u", "one");
	assert_int_equal(spool_claim(&s, "u"), 0);
	put_renamed(dir, "u", "two");
	assert_int_equal(spool_unclaim(&s, "u"), 0);
	assert_false(exists(dir, "inflight", "u"));
	assert_true(exists(dir, ".", "u") && exists(dir, ".", "u.1"));
	spool_close(&s);
}

static int recover_b(void *arg)
{
	struct spool *s = arg;
	struct spool_result res = { 0 };
	int r;

	r = spool_recover(s, "boot-b", on_recovered, &res);
	if (r < 0) {
		fprintf(stderr, "spool_recover: %s\n", strerror(-r));
		return 1;
	}
	return res.prev_boot ? 2 : 0;
}

/* <dir>/.boot is in the producers' directory: a FIFO there does not hang
 * the start-up, a symlink is not followed (no boot recorded, then), and
 * either is replaced by the daemon's own file. */
static void boot_stamp_not_followed(void **state)
{
	char dir[256], path[512], other[512], *text = NULL;
	struct spool s;
	struct stat st;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/spool/stamp", root);
	fclose(fopen(input_of(), "w"));
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	snprintf(path, sizeof(path), "%s/.boot", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_true(in_child(recover_b, &s, 3));
	assert_int_equal(recover_b(&s), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(kw_read_file(path, 100, &text, NULL), 0);
	assert_string_equal(text, "boot-b");
	free(text);

	/* A symlink to a file naming another boot. */
	snprintf(other, sizeof(other), "%s/elsewhere", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, other, "boot-a", 6), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(other, path), 0);
	put_renamed(dir, "one", "1");
	assert_int_equal(spool_claim(&s, "one"), 0);
	assert_int_equal(recover_b(&s), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(kw_read_file(other, 100, &text, NULL), 0);
	assert_string_equal(text, "boot-a");
	free(text);
	spool_close(&s);
}

/* A pmsg record cut short (here RLIMIT_FSIZE; a full pmsg zone) is -EIO,
 * not whatever errno an earlier call left. */
static void short_record_is_eio(void **state)
{
	char dir[256], pmsg[256];
	struct spool_batch *b = calloc(1, sizeof(*b));
	struct rlimit rl, low;
	unsigned int unfit;
	struct spool s;
	bool ours;
	int r;

	(void)state;
	assert_non_null(b);
	snprintf(dir, sizeof(dir), "%s/spool/short", root);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	fclose(fopen(input_of(), "w"));
	fclose(fopen(pmsg, "w"));
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	assert_int_equal(spool_recover(&s, "boot-a", NULL, NULL), 0);
	assert_int_equal(spool_batch_enable(&s, pmsg), 0);
	put_renamed(dir, "a", "1");
	assert_int_equal(spool_batch_claim(&s, b, 1, &unfit), 0);
	assert_int_equal(b->n, 1);
	/* Room for the entry in inflight/.progress (bytes 24 to 32), not for
	 * the whole pmsg line (39 bytes at offset 0). */
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &rl), 0);
	low = rl;
	low.rlim_cur = 35;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &low), 0);
	errno = EXDEV;
	r = spool_batch_exec(&s, b, 0, &ours);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(r, -EIO);
	assert_true(ours);
	assert_int_equal(spool_batch_finish(&s, b), 0);
	assert_true(exists(dir, ".", "a"));
	spool_close(&s);
	free(b);
}

/* A file made in the queue and written there, left open. */
static int in_place(const char *dir, const char *name, const char *text)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

/* Written in place is never replayed, whatever order the spool sees
 * things in: a scan that finds such a file before its IN_CREATE has been
 * read (the loop busy, or the events lost to an inotify overflow) does
 * not run it, one at a time nor in a batch. */
static void in_place_refused_before_its_event(void **state)
{
	char dir[256], pmsg[256], path[512], *got = NULL;
	struct spool_batch *b = calloc(1, sizeof(*b));
	unsigned int unfit, i, max = 16384;
	struct spool_result res;
	struct spool s;
	bool ours;
	FILE *f;
	int fd;

	(void)state;
	assert_non_null(b);
	snprintf(dir, sizeof(dir), "%s/spool/order", root);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	fclose(fopen(input_of(), "w"));
	fclose(fopen(pmsg, "w"));
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	put_renamed(dir, "old", "whole");	/* there before the spool opens: whole */
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	assert_int_equal(spool_recover(&s, "boot-a", NULL, NULL), 0);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "old");
	assert_int_equal(res.state, SPOOL_DONE);

	fd = in_place(dir, "a-half", "first-");
	put_renamed(dir, "b", "blob");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "a-half");
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_string_equal(res.why, SPOOL_IN_PLACE);
	close(fd);
	assert_int_equal(kw_read_file(input_of(), 100, &got, NULL), 0);
	assert_string_equal(got, "whole");
	free(got);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "b");
	assert_int_equal(res.state, SPOOL_DONE);

	/* A batch's scan. */
	assert_int_equal(spool_batch_enable(&s, pmsg), 0);
	fd = in_place(dir, "c-half", "first-");
	put_renamed(dir, "d", "blob");
	assert_int_equal(spool_batch_claim(&s, b, SPOOL_BATCH_MAX, &unfit), 0);
	assert_int_equal(b->n, 1);
	assert_string_equal(b->name[0], "d");
	assert_true(exists(dir, "rejected", "c-half"));
	close(fd);
	assert_int_equal(spool_batch_exec(&s, b, 0, &ours), 0);
	assert_int_equal(spool_batch_finish(&s, b), 0);
	spool_close(&s);

	/* Its IN_CREATE lost in an overflow: written since the last events
	 * read, it is not known whole, and is refused too. */
	assert_int_equal(spool_open(&s, dir, input_of(), 1), 0);
	f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
	if (f) {
		assert_int_equal(fscanf(f, "%u", &max), 1);
		fclose(f);
	}
	for (i = 0; i <= max; i++) {
		snprintf(path, sizeof(path), "%s/.n%u", dir, i);
		fclose(fopen(path, "w"));
	}
	fd = in_place(dir, "e-half", "first-");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "e-half");
	assert_int_equal(res.state, SPOOL_REJECTED);
	assert_non_null(strstr(res.why, "overflowed"));
	close(fd);
	assert_int_equal(kw_read_file(input_of(), 100, &got, NULL), 0);
	assert_string_equal(got, "blob");
	free(got);
	spool_close(&s);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(replay_in_order, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(unfit_entries_refused, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(spool_ownership_checked, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(finish_completed_later, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(prune_keeps_the_newest, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(written_in_place_refused, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(rejected_with_errno, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(planted_links_are_not_followed, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(own_failure_keeps_the_blob, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(recovery_sets_inflight_aside, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(recovery_knows_the_boot, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(batch_replays_in_order, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(batch_recovered_after_kill_and_crash, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(pack_parse_faults, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(pack_replays_in_order, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(pack_malformed_rejected, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(pack_recovered_after_kill_and_crash, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(pack_pruned_with_results, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(exec_refuses_swapped_fifo, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(recovery_clears_odd_inflight, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(boot_stamp_not_followed, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(short_record_is_eio, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(in_place_refused_before_its_event, tmpdir_setup,
						tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
