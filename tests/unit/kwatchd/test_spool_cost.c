// SPDX-License-Identifier: GPL-2.0
/* What the spool costs the event loop: directory entries read per blob
 * taken (not the whole queue per blob: quadratic in its length), no
 * syncfs() (the whole file system, every process's dirty pages), and a
 * status's counts that do not read every directory at each ask.  The
 * calls are counted by link-time wrappers (-Wl,--wrap). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "spool.h"
#include "util.h"
#include "tmpdir.h"

static unsigned long n_readdir, n_opendir, n_syncfs;

struct dirent *__real_readdir(DIR *d);
DIR *__real_fdopendir(int fd);
int __real_syncfs(int fd);

struct dirent *__wrap_readdir(DIR *d)
{
	n_readdir++;
	return __real_readdir(d);
}

DIR *__wrap_fdopendir(int fd)
{
	n_opendir++;
	return __real_fdopendir(fd);
}

int __wrap_syncfs(int fd)
{
	n_syncfs++;
	return __real_syncfs(fd);
}

static void reset(void)
{
	n_readdir = n_opendir = n_syncfs = 0;
}

static void open_spool(struct spool *s, const char *sub, char *dir, size_t n)
{
	char input[256];

	snprintf(dir, n, "%s/%s", root, sub);
	snprintf(input, sizeof(input), "%s/input", root);
	fclose(fopen(input, "w"));
	assert_int_equal(spool_open(s, dir, input, 1), 0);
	assert_int_equal(spool_recover(s, "boot", NULL, NULL), 0);
}

static void queue_blobs(const char *dir, unsigned int n)
{
	char name[32];
	unsigned int i;

	/* In an order of their own, not the names'. */
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "b%05u", (i * 7919) % n);
		put_renamed(dir, name, "blob");
	}
}

/* One blob at a time: the queue is read once, not once per blob. */
#define ONE_N 300
static void one_at_a_time_reads_the_queue_once(void **state)
{
	struct spool_result res;
	char dir[256], prev[NAME_MAX + 1] = "";
	unsigned int done = 0;
	struct spool s;
	int r;

	(void)state;
	open_spool(&s, "one", dir, sizeof(dir));
	queue_blobs(dir, ONE_N);
	reset();
	while ((r = spool_step(&s, &res)) == 0) {
		assert_int_equal(res.state, SPOOL_DONE);
		/* Smallest names first, as before. */
		assert_true(strcmp(prev, res.name) < 0);
		snprintf(prev, sizeof(prev), "%s", res.name);
		done++;
	}
	assert_int_equal(r, -ENOENT);
	assert_int_equal(done, ONE_N);
	print_message("%u blobs one at a time: %lu scans, %lu entries read\n", ONE_N, n_opendir,
		      n_readdir);
	/* Before: a scan per blob, ONE_N * ONE_N / 2 entries read. */
	assert_true(n_opendir <= 4);
	assert_true(n_readdir <= 4 * (ONE_N + 8));
	spool_close(&s);
}

/* A blob renamed in after the queue was read, with a smaller name than
 * those left, is taken as soon as its event is read (at the next claim),
 * before the rest; one renamed in once the queue is empty is found; one
 * taken back by its producer is not looked for. */
static void arrivals_keep_the_order(void **state)
{
	struct spool_result res;
	char dir[256];
	struct spool s;

	(void)state;
	open_spool(&s, "order", dir, sizeof(dir));
	put_renamed(dir, "b", "1");
	put_renamed(dir, "c", "2");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "b");
	put_renamed(dir, "a", "3");
	put_renamed(dir, "d", "4");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "c");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "a");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "d");
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	put_renamed(dir, "0", "5");
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "0");
	/* Taken back by its producer after the queue was read. */
	put_renamed(dir, "e", "5");
	put_renamed(dir, "f", "6");
	assert_int_equal(spool_count(&s, SPOOL_QUEUED), 2);
	assert_int_equal(spool_step(&s, &res), 0);
	assert_string_equal(res.name, "e");
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/f", dir);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(spool_step(&s, &res), -ENOENT);
	spool_close(&s);
}

/* More blobs than the spool holds names of: all taken, in order. */
static void more_than_the_names_held(void **state)
{
	struct spool_batch *b = calloc(1, sizeof(*b));
	char dir[256], pmsg[256], prev[NAME_MAX + 1] = "";
	unsigned int unfit, i, done = 0, n = 5000;
	struct spool s;

	(void)state;
	assert_non_null(b);
	open_spool(&s, "many", dir, sizeof(dir));
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	fclose(fopen(pmsg, "w"));
	assert_int_equal(spool_batch_enable(&s, pmsg), 0);
	queue_blobs(dir, n);
	reset();
	for (;;) {
		bool ours;

		assert_int_equal(spool_batch_claim(&s, b, SPOOL_BATCH_MAX, &unfit), 0);
		assert_int_equal(unfit, 0);
		if (!b->n)
			break;
		for (i = 0; i < b->n; i++)
			assert_int_equal(spool_batch_exec(&s, b, i, &ours), 0);
		assert_int_equal(spool_batch_finish(&s, b), 0);
		for (i = 0; i < b->n; i++) {
			assert_true(strcmp(prev, b->name[i]) < 0);
			snprintf(prev, sizeof(prev), "%s", b->name[i]);
			done++;
		}
	}
	assert_int_equal(done, n);
	print_message("%u blobs in batches: %lu scans, %lu entries read, %lu syncfs\n", n,
		      n_opendir, n_readdir, n_syncfs);
	/* Before: a scan per batch, 20 of them reading 52000 entries. */
	assert_true(n_readdir <= 3 * (n + 8));
	/* The files written and the directories changed are synced, not the
	 * whole file system. */
	assert_int_equal(n_syncfs, 0);
	assert_int_equal(spool_count(&s, SPOOL_DONE), n);
	assert_int_equal(spool_count(&s, SPOOL_QUEUED), 0);
	spool_close(&s);
	free(b);
}

/* A pack: claimed and finished with no syncfs() either. */
static void pack_without_syncfs(void **state)
{
	static const char pack[] = "KWPACK01\x02\0\0\0hi\x03\0\0\0you";
	struct spool_pack *p = calloc(1, sizeof(*p));
	struct spool_result res;
	char dir[256], pmsg[256], name[NAME_MAX + 1], tmp[512], path[512];
	struct spool s;
	bool ours;
	FILE *f;

	(void)state;
	assert_non_null(p);
	open_spool(&s, "pack", dir, sizeof(dir));
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg", root);
	fclose(fopen(pmsg, "w"));
	assert_int_equal(spool_batch_enable(&s, pmsg), 0);
	snprintf(tmp, sizeof(tmp), "%s/.p", dir);
	snprintf(path, sizeof(path), "%s/p.kwpack", dir);
	f = fopen(tmp, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(pack, 1, sizeof(pack) - 1, f), sizeof(pack) - 1);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
	reset();
	assert_int_equal(spool_pack_next(&s, name, sizeof(name)), 0);
	assert_int_equal(spool_pack_claim(&s, p, name, &res), 0);
	assert_int_equal(spool_pack_exec(&s, p, &ours), 0);
	assert_int_equal(spool_pack_exec(&s, p, &ours), 0);
	assert_int_equal(spool_pack_finish(&s, p, &res), 0);
	spool_pack_release(&s, p);
	assert_int_equal(n_syncfs, 0);
	assert_int_equal(spool_pack_next(&s, name, sizeof(name)), -ENOENT);
	spool_close(&s);
	free(p);
}

/* A status asked ten times a second reads each directory far less often,
 * and its counts follow what the spool moves. */
static void status_counts_without_scans(void **state)
{
	static const enum spool_state st[] = {
		SPOOL_QUEUED, SPOOL_DONE, SPOOL_REJECTED, SPOOL_INTERRUPTED,
	};
	struct spool_result res;
	char dir[256];
	unsigned int i, k;
	struct spool s;

	(void)state;
	open_spool(&s, "status", dir, sizeof(dir));
	queue_blobs(dir, 50);
	reset();
	for (i = 0; i < 20; i++) {
		for (k = 0; k < 4; k++)
			spool_count(&s, st[k]);
		if (i < 10) {
			assert_int_equal(spool_step(&s, &res), 0);
			assert_int_equal(spool_count(&s, SPOOL_QUEUED), 50 - 1 - i);
			assert_int_equal(spool_count(&s, SPOOL_DONE), i + 1);
		}
	}
	print_message("20 statuses: %lu scans, %lu entries read\n", n_opendir, n_readdir);
	/* Before: four scans a status, 50 entries read a scan of the queue. */
	assert_true(n_opendir <= 4 + 2);
	/* A producer's rename in shows once its event is read (the loop
	 * reads it at once), within a tenth of a second. */
	put_renamed(dir, "zz", "late");
	assert_int_equal(spool_settle(&s), 0);
	usleep(110000);
	assert_int_equal(spool_count(&s, SPOOL_QUEUED), 41);
	spool_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(one_at_a_time_reads_the_queue_once),
		cmocka_unit_test(arrivals_keep_the_order),
		cmocka_unit_test(more_than_the_names_held),
		cmocka_unit_test(pack_without_syncfs),
		cmocka_unit_test(status_counts_without_scans),
	};

	return cmocka_run_group_tests(tests, tmpdir_setup, tmpdir_teardown);
}
