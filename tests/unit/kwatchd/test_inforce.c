// SPDX-License-Identifier: GPL-2.0
/* The set in force saved across restarts: a copy of each drop-in in force
 * (the version in force, not a newer one on disk) under <state>/in-force,
 * read back by the configuration's loader; a save writes only the copies
 * that changed, a copy that does not parse is never used, a symlink or a
 * FIFO is never followed.  kw_write_file_at() and fdopendir() are wrapped
 * (-Wl,--wrap): the copies written and the directories listed are counted,
 * and a write may be made to fail. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "apply.h"
#include "config.h"
#include "kwatchd-inforce.h"
#include "kwatchd.h"
#include "util.h"
#include "tmpdir.h"

#define WATCH "[watch]\nfunction = silent_corruption_victim\nip_offset = 0x7f\nlocal = 0:8\n"
#define WATCH_OLD "[watch]\nfunction = canary_test_write\nip_offset = 18\n"
#define WATCH_BAD "[watch]\nfunction = silent_corruption_victim\nlocal = 0:3\n"
#define WPROBE "[wprobe]\nsymbol = jiffies\naccess = w\nlength = 8\nmax_rate = 100\n"
#define FUZZ "[fuzz]\ntarget = test_underflow\nrate = 10\nrepeat = 2\n"
#define CONFDIR "/etc/kwatchd"

/* --- the wrappers ---------------------------------------------------------------- */

static int n_writes;		/* copies written */
static int writes_left = -1;	/* then fail_err; -1: never */
static int fail_err;
static int n_lists;		/* directories listed */

int __real_kw_write_file_at(int dirfd, const char *name, const void *buf, size_t len);
int __wrap_kw_write_file_at(int dirfd, const char *name, const void *buf, size_t len)
{
	if (writes_left == 0)
		return fail_err;
	if (writes_left > 0)
		writes_left--;
	n_writes++;
	return __real_kw_write_file_at(dirfd, name, buf, len);
}

DIR *__real_fdopendir(int fd);
DIR *__wrap_fdopendir(int fd)
{
	n_lists++;
	return __real_fdopendir(fd);
}

static void counts_reset(void)
{
	n_writes = 0;
	n_lists = 0;
	writes_left = -1;
}

/* --- helpers ------------------------------------------------------------------------ */

/* Parsed in place, as kw_config_load() does: the structs compare to the byte. */
static void parse_into(struct kw_file *f, enum kw_kind k, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), CONFDIR "/%s/%s", kw_kind_dir[k], name);
	assert_int_equal(kw_file_parse(k, path, text, strlen(text), f), 0);
}

static struct kw_file mk(enum kw_kind k, const char *name, const char *text)
{
	struct kw_file f;

	parse_into(&f, k, name, text);
	return f;
}

/* A file in force, its text kept as the daemon keeps it. */
static void in_force(struct kw_file *f, struct kw_texts *t, enum kw_kind k, const char *name,
		     const char *text)
{
	parse_into(f, k, name, text);
	assert_int_equal(kw_texts_add(t, f, text, strlen(text)), 0);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.3000s/%.255s", dir, name);
	assert_int_equal(kw_mkdir_p(dir, 0755), 0);
	assert_int_equal(kw_replace_file(path, text, strlen(text)), 0);
}

static const char *state_dir(void)
{
	static char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/state", root);
	assert_int_equal(kw_mkdir_p(dir, 0755), 0);
	return dir;
}

/* <state>/in-force/KIND.d[/name] */
static const char *copy_path(enum kw_kind k, const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/state/" KW_INFORCE_DIR "/%s%s%s", root, kw_kind_dir[k],
		 name ? "/" : "", name ? name : "");
	return path;
}

static void assert_copy(enum kw_kind k, const char *name, const char *want)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	assert_int_equal(kw_read_regular(copy_path(k, name), KW_CONF_MAX, &buf, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(buf, want, len);
}

static void assert_no_copy(enum kw_kind k, const char *name)
{
	struct stat st;

	assert_int_equal(lstat(copy_path(k, name), &st), -1);
	assert_int_equal(errno, ENOENT);
}

static struct stat stat_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st;
}

static void assert_text(const struct kw_texts *t, const struct kw_file *f, const char *want)
{
	const struct kw_text *x = kw_texts_find(t, f);

	assert_non_null(x);
	assert_int_equal(x->len, strlen(want));
	assert_memory_equal(x->text, want, x->len);
}

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* What a restart reads: a fresh record and texts. */
static size_t load(struct kw_inforce *s, struct kw_texts *t, struct kw_file **got)
{
	size_t n = 99;

	memset(t, 0, sizeof(*t));
	*got = (struct kw_file *)1;
	assert_int_equal(kw_inforce_load(s, state_dir(), CONFDIR, got, &n, t), 0);
	return n;
}

/* --- round trips --------------------------------------------------------------------- */

static void round_trip(void **state)
{
	const char *texts[] = { WATCH, WPROBE, FUZZ };
	struct kw_inforce s = KW_INFORCE_INIT, s2 = KW_INFORCE_INIT;
	struct kw_texts t = { 0 }, t2;
	struct kw_file set[3], *got;
	size_t n, i;

	(void)state;
	counts_reset();
	in_force(&set[0], &t, KW_WATCH, "w.conf", WATCH);
	in_force(&set[1], &t, KW_WPROBE, "p.conf", WPROBE);
	in_force(&set[2], &t, KW_FUZZ, "my fuzz.conf", FUZZ);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 3, &t, 0, false), 0);
	assert_int_equal(n_writes, 3);
	/* Laid out as the configuration directory is, each copy the text. */
	assert_copy(KW_WATCH, "w.conf", WATCH);
	assert_copy(KW_WPROBE, "p.conf", WPROBE);
	assert_copy(KW_FUZZ, "my fuzz.conf", FUZZ);
	assert_no_copy(KW_WATCH, ".in-force.tmp");

	n = load(&s2, &t2, &got);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		/* What kw_file_parse() gives for the drop-in itself, path
		 * included, to the byte. */
		assert_memory_equal(&got[i], &set[i], sizeof(set[i]));
		assert_text(&t2, &got[i], texts[i]);
	}
	assert_string_equal(got[0].path, CONFDIR "/watch.d/w.conf");
	assert_string_equal(got[0].watch.function, "silent_corruption_victim");
	assert_int_equal(got[1].wprobe.max_rate, 100);
	assert_string_equal(got[2].fuzz.target, "test_underflow");
	assert_int_equal(t2.n, 3);
	free(got);

	/* The record read back is what is on disk: saving the same set
	 * writes nothing and lists nothing. */
	counts_reset();
	assert_int_equal(kw_inforce_save(&s2, state_dir(), set, 3, &t, 0, false), 0);
	assert_int_equal(n_writes, 0);
	assert_int_equal(n_lists, 0);

	/* Nothing in force: no copy left, and none read. */
	assert_int_equal(kw_inforce_save(&s2, state_dir(), NULL, 0, &t, 0, false), 0);
	for (i = 0; i < 3; i++)
		assert_no_copy(set[i].kind, set[i].name);
	kw_inforce_free(&s2);
	kw_texts_free(&t2);
	n = load(&s2, &t2, &got);
	assert_int_equal(n, 0);
	free(got);
	kw_inforce_free(&s);
	kw_inforce_free(&s2);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* --- saves are incremental ------------------------------------------------------------ */

static void only_changes_written(void **state)
{
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_file a[4], b[4], *got;
	struct kw_texts t = { 0 }, t2;
	struct stat w, z, w2, z2;
	size_t n;

	(void)state;
	counts_reset();
	in_force(&a[0], &t, KW_WATCH, "a.conf", WATCH);
	in_force(&a[1], &t, KW_WATCH, "b.conf", WATCH_OLD);
	in_force(&a[2], &t, KW_WPROBE, "p.conf", WPROBE);
	in_force(&a[3], &t, KW_FUZZ, "z.conf", FUZZ);
	assert_int_equal(kw_inforce_save(&s, state_dir(), a, 4, &t, 0, false), 0);
	assert_int_equal(n_writes, 4);
	/* The three kind directories were new: listed once each. */
	assert_int_equal(n_lists, 3);
	w = stat_of(copy_path(KW_WATCH, "a.conf"));
	z = stat_of(copy_path(KW_FUZZ, "z.conf"));
	/* A rewrite would show in the times even within a clock tick. */
	usleep(20000);

	/* b.conf changed, p.conf removed, q.conf added, a.conf and z.conf
	 * as they were. */
	b[0] = a[0];
	in_force(&b[1], &t, KW_WATCH, "b.conf", WATCH);
	in_force(&b[2], &t, KW_WPROBE, "q.conf", WPROBE);
	b[3] = a[3];
	counts_reset();
	assert_int_equal(kw_inforce_save(&s, state_dir(), b, 4, &t, 0, false), 0);
	assert_int_equal(n_writes, 2);
	assert_int_equal(n_lists, 0);
	assert_copy(KW_WATCH, "b.conf", WATCH);
	assert_copy(KW_WPROBE, "q.conf", WPROBE);
	assert_no_copy(KW_WPROBE, "p.conf");
	w2 = stat_of(copy_path(KW_WATCH, "a.conf"));
	z2 = stat_of(copy_path(KW_FUZZ, "z.conf"));
	assert_int_equal(w2.st_ino, w.st_ino);
	assert_int_equal(z2.st_ino, z.st_ino);
	assert_memory_equal(&w2.st_mtim, &w.st_mtim, sizeof(w.st_mtim));
	assert_memory_equal(&w2.st_ctim, &w.st_ctim, sizeof(w.st_ctim));
	assert_memory_equal(&z2.st_ctim, &z.st_ctim, sizeof(z.st_ctim));

	/* The same set again: nothing written, no directory touched. */
	w = stat_of(copy_path(KW_WATCH, NULL));
	counts_reset();
	assert_int_equal(kw_inforce_save(&s, state_dir(), b, 4, &t, 0, false), 0);
	assert_int_equal(n_writes, 0);
	assert_int_equal(n_lists, 0);
	w2 = stat_of(copy_path(KW_WATCH, NULL));
	assert_memory_equal(&w2.st_mtim, &w.st_mtim, sizeof(w.st_mtim));

	/* What a restart reads is the second set. */
	kw_inforce_free(&s);
	n = load(&s, &t2, &got);
	assert_int_equal(n, 4);
	assert_memory_equal(&got[0], &b[0], sizeof(b[0]));
	assert_memory_equal(&got[1], &b[1], sizeof(b[1]));
	assert_memory_equal(&got[2], &b[2], sizeof(b[2]));
	assert_memory_equal(&got[3], &b[3], sizeof(b[3]));
	free(got);
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* A directory made anew (the state directory emptied) is not the one the
 * record is of: listed again, and every copy written again, even if its
 * inode number is the old one's. */
static void new_directory_listed_again(void **state)
{
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_texts t = { 0 };
	struct kw_file set[2];
	char cmd[PATH_MAX + 16];

	(void)state;
	counts_reset();
	in_force(&set[0], &t, KW_WATCH, "a.conf", WATCH);
	in_force(&set[1], &t, KW_FUZZ, "z.conf", FUZZ);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 2, &t, 0, false), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/state/*", root);
	assert_int_equal(system(cmd), 0);
	/* A stray copy in a watch.d made anew: removed by the next save. */
	put(copy_path(KW_WATCH, NULL), "stray.conf", WATCH_OLD);
	counts_reset();
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 2, &t, 0, false), 0);
	assert_int_equal(n_writes, 2);
	assert_int_equal(n_lists, 3);
	assert_copy(KW_WATCH, "a.conf", WATCH);
	assert_copy(KW_FUZZ, "z.conf", FUZZ);
	assert_no_copy(KW_WATCH, "stray.conf");
	kw_inforce_free(&s);
	kw_texts_free(&t);
}

/* A save past its time stops after the change in hand: one change a call
 * with a time already past, and the next call goes on, for the set it is
 * given then. */
static void saved_in_slices(void **state)
{
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_file a[20], b[20], *got;
	struct kw_texts t = { 0 }, t2;
	char name[32], text[128];
	size_t i, n, nb = 0;
	int r, calls = 0;

	(void)state;
	counts_reset();
	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "w%02zu.conf", i);
		snprintf(text, sizeof(text), "[watch]\nfunction = f%02zu\nenabled = no\n", i);
		in_force(&a[i], &t, KW_WATCH, name, text);
	}
	for (i = 0; i < 10; i++) {
		counts_reset();
		assert_int_equal(kw_inforce_save(&s, state_dir(), a, 20, &t, 1, i > 0), 1);
		assert_int_equal(n_writes, 1);
	}
	assert_copy(KW_WATCH, "w09.conf", "[watch]\nfunction = f09\nenabled = no\n");
	assert_no_copy(KW_WATCH, "w10.conf");

	/* Half way, another set: w00-w04 (saved) and w18-w19 (not yet) go,
	 * w05 (saved) and w12 (not yet) change, a fuzz file comes. */
	for (i = 5; i < 18; i++) {
		b[nb] = a[i];
		if (i == 5 || i == 12) {
			snprintf(text, sizeof(text), "[watch]\nfunction = g%02zu\nenabled = no\n", i);
			in_force(&b[nb], &t, KW_WATCH, a[i].name, text);
		}
		nb++;
	}
	in_force(&b[nb++], &t, KW_FUZZ, "z.conf", FUZZ);
	counts_reset();
	do {
		r = kw_inforce_save(&s, state_dir(), b, nb, &t, 1, true);
		assert_true(r >= 0);
		assert_true(n_writes <= ++calls);
	} while (r);
	/* w05, w10-w17 (w12 as g12) and z.conf written, w00-w04 removed. */
	assert_int_equal(n_writes, 10);
	assert_int_equal(calls, 10 + 5);
	kw_inforce_free(&s);
	n = load(&s, &t2, &got);
	assert_int_equal(n, nb);
	for (i = 0; i < nb; i++)
		assert_memory_equal(&got[i], &b[i], sizeof(b[i]));
	free(got);
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* --- the daemon's side ------------------------------------------------------------------ */

/* kwatchd.c's report of a state file saved or not (this test does not
 * link the daemon's main file): the last outcome and path, to assert on. */
static int saved_err = 1;
static char saved_path[PATH_MAX];

void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err)
{
	(void)d;
	saved_err = err;
	snprintf(saved_path, sizeof(saved_path), "%s", path);
	*failing = err < 0;
}

static struct kwd *new_kwd(void)
{
	struct kwd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	assert_int_equal(sd_event_new(&d->ev), 0);
	snprintf(d->confdir, sizeof(d->confdir), "%s/conf", root);
	snprintf(d->state_dir, sizeof(d->state_dir), "%s", state_dir());
	kwd_inforce_forget();
	counts_reset();
	return d;
}

static void free_kwd(struct kwd *d)
{
	kwd_inforce_forget();
	sd_event_unref(d->ev);
	free(d->cur);
	free(d->lastgood);
	free(d);
}

/* A save after an apply, and the turns of the loop it goes on in: how many. */
static unsigned int save_all(struct kwd *d)
{
	unsigned int turns = 0;

	kwd_inforce_save(d);
	while (kwd_inforce_saving()) {
		assert_true(sd_event_run(d->ev, 0) >= 0);
		turns++;
	}
	return turns;
}

/* Read the drop-ins, put the valid ones in force, save (all of it, or its
 * first slice). */
static void apply_all_in(struct kwd *d, bool all)
{
	struct kw_file *parsed;
	size_t n, i;

	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	free(d->cur);
	d->cur = parsed;
	d->n_cur = 0;
	for (i = 0; i < n; i++) {
		if (parsed[i].err)
			continue;
		if (i != d->n_cur)
			memcpy(&d->cur[d->n_cur], &parsed[i], sizeof(parsed[i]));
		d->n_cur++;
	}
	if (all)
		save_all(d);
	else
		kwd_inforce_save(d);
}

static void apply_all(struct kwd *d)
{
	apply_all_in(d, true);
}

static void put_dropin(struct kwd *d, enum kw_kind k, const char *name, const char *text)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%.4000s/%s", d->confdir, kw_kind_dir[k]);
	put(dir, name, text);
}

static void daemon_round_trip(void **state)
{
	struct kwd *d = new_kwd();
	size_t i;

	(void)state;
	put_dropin(d, KW_WATCH, "w.conf", WATCH);
	put_dropin(d, KW_WPROBE, "p.conf", WPROBE);
	put_dropin(d, KW_FUZZ, "z.conf", FUZZ);
	apply_all(d);
	assert_int_equal(d->n_cur, 3);
	assert_int_equal(saved_err, 0);

	/* A restart: nothing in memory but what the directory holds. */
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 3);
	for (i = 0; i < 3; i++)
		assert_memory_equal(&d->lastgood[i], &d->cur[i], sizeof(d->cur[i]));
	/* Its first apply, with the drop-ins unchanged, writes nothing. */
	counts_reset();
	apply_all(d);
	assert_int_equal(n_writes, 0);
	assert_int_equal(saved_err, 0);
	free_kwd(d);
}

/* A save of many copies goes on in the next turns of the loop, reported
 * once done; an apply meanwhile is saved as it is. */
static void daemon_saves_in_slices(void **state)
{
	struct kwd *d = new_kwd();
	char name[32], text[128], path[PATH_MAX];
	unsigned int turns = 0;
	double longest, ms;
	struct timespec t0;
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "w%03zu.conf", i);
		snprintf(text, sizeof(text), "[watch]\nfunction = f%03zu\nenabled = no\n", i);
		put_dropin(d, KW_WATCH, name, text);
	}
	saved_err = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	apply_all_in(d, false);
	longest = ms_since(&t0);
	while (kwd_inforce_saving()) {
		/* Not said before it is done. */
		assert_int_equal(saved_err, 1);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_true(sd_event_run(d->ev, 0) >= 0);
		ms = ms_since(&t0);
		longest = ms > longest ? ms : longest;
		turns++;
		if (turns == 2) {
			/* Half of them gone meanwhile. */
			for (i = 0; i < 200; i += 2) {
				snprintf(path, sizeof(path), "%.4000s/watch.d/w%03zu.conf",
					 d->confdir, i);
				assert_int_equal(unlink(path), 0);
			}
			apply_all_in(d, false);
		}
	}
	assert_int_equal(saved_err, 0);
	print_message("  200 copies, then 100 of them, saved in %u more turns of the loop, "
		      "the longest %.1f ms (the apply's included)\n", turns, longest);
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 100);
	for (i = 0; i < 100; i++)
		assert_memory_equal(&d->lastgood[i], &d->cur[i], sizeof(d->cur[i]));
	free_kwd(d);
}

/* --- the text saved is the version in force -------------------------------------------- */

static void saved_text_is_the_version_in_force(void **state)
{
	struct kwd *d = new_kwd();
	struct kw_file *parsed, old;
	size_t n;

	(void)state;
	put_dropin(d, KW_WATCH, "m.conf", WATCH_OLD);
	apply_all(d);
	assert_int_equal(d->n_cur, 1);
	memcpy(&old, &d->cur[0], sizeof(old));

	/* A bad edit: the previous version stays in force, and is saved. */
	put_dropin(d, KW_WATCH, "m.conf", WATCH_BAD);
	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	assert_int_equal(n, 1);
	assert_int_not_equal(parsed[0].err, 0);
	free(parsed);
	counts_reset();
	save_all(d);
	assert_int_equal(n_writes, 0);
	assert_copy(KW_WATCH, "m.conf", WATCH_OLD);

	/* A valid edit the kernel refused: still the previous version. */
	put_dropin(d, KW_WATCH, "m.conf", WATCH);
	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	assert_int_equal(parsed[0].err, 0);
	free(parsed);
	save_all(d);
	assert_copy(KW_WATCH, "m.conf", WATCH_OLD);

	/* After a restart with the bad file on disk, the saved one is the
	 * old one, its path the drop-in's. */
	put_dropin(d, KW_WATCH, "m.conf", WATCH_BAD);
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 1);
	assert_memory_equal(&d->lastgood[0], &old, sizeof(old));
	assert_string_equal(d->lastgood[0].watch.function, "canary_test_write");
	assert_true(kw_ends_with(d->lastgood[0].path, "/conf/watch.d/m.conf"));
	/* Put in force as it is (kwatchd-reconcile.c): its copy is already
	 * that version. */
	memcpy(&d->cur[0], &d->lastgood[0], sizeof(old));
	counts_reset();
	save_all(d);
	assert_int_equal(n_writes, 0);
	assert_copy(KW_WATCH, "m.conf", WATCH_OLD);

	/* Once the new version is in force, it is the one saved. */
	put_dropin(d, KW_WATCH, "m.conf", WATCH);
	apply_all(d);
	assert_int_equal(n_writes, 1);
	assert_copy(KW_WATCH, "m.conf", WATCH);
	free_kwd(d);
}

static void texts_pruned(void **state)
{
	struct kw_file a = mk(KW_WATCH, "m.conf", WATCH_OLD), b = mk(KW_WATCH, "m.conf", WATCH);
	struct kw_file p = mk(KW_WPROBE, "m.conf", WPROBE);
	struct kw_texts t = { 0 };

	(void)state;
	assert_int_equal(kw_texts_add(&t, &a, WATCH_OLD, strlen(WATCH_OLD)), 0);
	assert_int_equal(kw_texts_add(&t, &b, WATCH, strlen(WATCH)), 0);
	assert_int_equal(kw_texts_add(&t, &b, WATCH, strlen(WATCH)), 0);
	assert_int_equal(kw_texts_add(&t, &p, WPROBE, strlen(WPROBE)), 0);
	assert_int_equal(t.n, 3);
	/* A text that is not the file's. */
	assert_int_equal(kw_texts_add(&t, &a, WATCH, strlen(WATCH)), -EINVAL);
	assert_int_equal(t.n, 3);
	assert_text(&t, &a, WATCH_OLD);
	assert_text(&t, &b, WATCH);

	kw_texts_keep(&t, &a, 1);
	assert_int_equal(t.n, 1);
	assert_text(&t, &a, WATCH_OLD);
	assert_null(kw_texts_find(&t, &b));
	assert_null(kw_texts_find(&t, &p));
	kw_texts_free(&t);
	assert_int_equal(t.n, 0);
	assert_null(t.v);
}

static void unsaved_files_left_out(void **state)
{
	struct kw_file set[6], *got;
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_texts t = { 0 }, t2;
	size_t n;

	(void)state;
	counts_reset();
	/* p.conf saved at first ... */
	in_force(&set[0], &t, KW_WATCH, "w.conf", WATCH);
	in_force(&set[1], &t, KW_WPROBE, "p.conf", WPROBE);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 2, &t, 0, false), 0);
	assert_copy(KW_WPROBE, "p.conf", WPROBE);
	/* ... then in force in a version whose text is unknown: its copy
	 * of another version goes.  z.conf is given twice; .h.conf and
	 * x.txt are names the loader would not read. */
	kw_texts_free(&t);
	in_force(&set[0], &t, KW_WATCH, ".h.conf", WATCH);
	in_force(&set[1], &t, KW_WATCH, "w.conf", WATCH);
	in_force(&set[2], &t, KW_WATCH, "x.txt", WATCH);
	set[3] = mk(KW_WPROBE, "p.conf", WPROBE "enabled = no\n");
	in_force(&set[4], &t, KW_FUZZ, "z.conf", FUZZ);
	set[5] = set[4];
	counts_reset();
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 6, &t, 0, false), 0);
	assert_int_equal(n_writes, 1);
	assert_no_copy(KW_WPROBE, "p.conf");
	assert_no_copy(KW_WATCH, ".h.conf");
	assert_no_copy(KW_WATCH, "x.txt");
	kw_inforce_free(&s);
	n = load(&s, &t2, &got);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].name, "w.conf");
	assert_string_equal(got[1].name, "z.conf");
	free(got);
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* --- what is not used -------------------------------------------------------------------- */

static void alarmed(int sig)
{
	(void)sig;
	fail_msg("blocked (a FIFO opened for reading?)");
}

/* Copies that do not parse, and what is not a regular file, are left
 * out; a FIFO does not block, a symlink is not followed; the next save
 * replaces or removes them. */
static void bad_copies_not_used(void **state)
{
	static const char *const bad[] = {
		"[watch]\nfunction = a b\n",			/* not a symbol */
		"[watch]\nfunction = victim\r0:8\n",		/* a CR inside a value */
		"[watch]\nfunction = victim\n\n[watch]\nfunction = x\n",
		"[wprobe]\nsymbol = jiffies\n",			/* not this kind's section */
		"[watch]\nfunction = victim 0:8\nip_offset = 1\n",
		"",
	};
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_texts t, t2 = { 0 };
	struct kw_file *got, set[3];
	char name[32], outside[PATH_MAX], link[PATH_MAX];
	size_t i, n;

	(void)state;
	counts_reset();
	put(copy_path(KW_WATCH, NULL), "good.conf", WATCH);
	put(copy_path(KW_WPROBE, NULL), "p.conf", WPROBE);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(name, sizeof(name), "bad%zu.conf", i);
		put(copy_path(KW_WATCH, NULL), name, bad[i]);
	}
	/* A NUL in a copy. */
	put(copy_path(KW_WATCH, NULL), "nul.conf", "[watch]\nfunction = a@b\n");
	{
		char *p = strdup(copy_path(KW_WATCH, "nul.conf"));
		int fd = open(p, O_WRONLY);

		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, "", 1, 20), 1);
		close(fd);
		free(p);
	}
	/* A symlink to a valid file elsewhere, a FIFO, a directory. */
	snprintf(outside, sizeof(outside), "%s/outside", root);
	put(outside, "o.conf", WATCH_OLD);
	snprintf(link, sizeof(link), "%.200s/o.conf", outside);
	assert_int_equal(symlink(link, copy_path(KW_WATCH, "link.conf")), 0);
	assert_int_equal(mkfifo(copy_path(KW_WATCH, "fifo.conf"), 0600), 0);
	assert_int_equal(mkdir(copy_path(KW_WATCH, "dir.conf"), 0700), 0);

	signal(SIGALRM, alarmed);
	alarm(10);
	n = load(&s, &t, &got);
	alarm(0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].name, "good.conf");
	assert_int_equal(got[0].err, 0);
	assert_string_equal(got[1].name, "p.conf");
	assert_int_equal(t.n, 2);
	free(got);

	/* In force now: good.conf as saved, and fifo.conf and dir.conf
	 * (valid drop-ins by those names). */
	in_force(&set[0], &t2, KW_WATCH, "dir.conf", WATCH);
	in_force(&set[1], &t2, KW_WATCH, "fifo.conf", WATCH);
	parse_into(&set[2], KW_WATCH, "good.conf", WATCH);
	alarm(10);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 3, &t2, 0, false), 0);
	alarm(0);
	assert_int_equal(n_writes, 2);
	/* Only fuzz.d, made now, is listed. */
	assert_int_equal(n_lists, 1);
	assert_copy(KW_WATCH, "dir.conf", WATCH);
	assert_copy(KW_WATCH, "fifo.conf", WATCH);
	assert_copy(KW_WATCH, "good.conf", WATCH);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(name, sizeof(name), "bad%zu.conf", i);
		assert_no_copy(KW_WATCH, name);
	}
	assert_no_copy(KW_WATCH, "nul.conf");
	assert_no_copy(KW_WATCH, "link.conf");
	assert_no_copy(KW_WPROBE, "p.conf");
	/* The symlink went, not what it points at. */
	snprintf(link, sizeof(link), "%.200s/o.conf", outside);
	assert_true(S_ISREG(stat_of(link).st_mode));
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* A symlink in the place of a directory is not followed: a load reads
 * nothing through it, a save makes the directory. */
static void symlinked_dirs_not_followed(void **state)
{
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_texts t, t2 = { 0 };
	char outside[PATH_MAX], path[PATH_MAX];
	struct kw_file *got, f;

	(void)state;
	counts_reset();
	snprintf(outside, sizeof(outside), "%s/outside", root);
	put(outside, "o.conf", WATCH);
	put(copy_path(KW_FUZZ, NULL), "z.conf", FUZZ);
	assert_int_equal(symlink(outside, copy_path(KW_WATCH, NULL)), 0);
	assert_int_equal(load(&s, &t, &got), 1);
	assert_string_equal(got[0].name, "z.conf");
	free(got);
	kw_inforce_free(&s);
	kw_texts_free(&t);

	/* in-force itself. */
	snprintf(path, sizeof(path), "%s/state/" KW_INFORCE_DIR, root);
	snprintf(outside, sizeof(outside), "%s/other", root);
	assert_int_equal(rename(path, outside), 0);
	assert_int_equal(symlink(outside, path), 0);
	assert_int_equal(load(&s, &t, &got), 0);
	free(got);
	in_force(&f, &t2, KW_WATCH, "w.conf", WATCH);
	assert_int_equal(kw_inforce_save(&s, state_dir(), &f, 1, &t2, 0, false), 0);
	assert_true(S_ISDIR(stat_of(path).st_mode));
	assert_copy(KW_WATCH, "w.conf", WATCH);
	/* What the link pointed at is as it was. */
	snprintf(path, sizeof(path), "%.200s/fuzz.d/z.conf", outside);
	assert_true(S_ISREG(stat_of(path).st_mode));
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* --- failures ------------------------------------------------------------------------------- */

/* A save that fails part way (no room): the record holds only what was
 * written, and the next save writes the rest, and only the rest. */
static void failed_save_retried(void **state)
{
	static const char *const names[] = { "a.conf", "b.conf", "c.conf", "d.conf", "e.conf" };
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_texts t = { 0 }, t2;
	struct kw_file set[5], *got;
	size_t i, n;

	(void)state;
	counts_reset();
	for (i = 0; i < 5; i++)
		in_force(&set[i], &t, KW_WATCH, names[i], i % 2 ? WATCH : WATCH_OLD);
	writes_left = 2;
	fail_err = -ENOSPC;
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 5, &t, 0, false), -ENOSPC);
	assert_int_equal(n_writes, 2);
	assert_copy(KW_WATCH, "a.conf", WATCH_OLD);
	assert_copy(KW_WATCH, "b.conf", WATCH);
	assert_no_copy(KW_WATCH, "c.conf");
	assert_no_copy(KW_WATCH, ".in-force.tmp");

	counts_reset();
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, 5, &t, 0, false), 0);
	assert_int_equal(n_writes, 3);
	kw_inforce_free(&s);
	n = load(&s, &t2, &got);
	assert_int_equal(n, 5);
	for (i = 0; i < 5; i++)
		assert_memory_equal(&got[i], &set[i], sizeof(set[i]));
	free(got);
	kw_inforce_free(&s);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* A save that fails is reported, not only logged, under a path naming
 * in-force; the next good save ends the streak and writes what is
 * pending.  A file in the place of a kind directory is replaced. */
static void failed_save_reported(void **state)
{
	struct kwd *d = new_kwd();
	char cmd[PATH_MAX + 16];

	(void)state;
	put_dropin(d, KW_WATCH, "w.conf", WATCH);
	put_dropin(d, KW_FUZZ, "z.conf", FUZZ);
	apply_all(d);
	assert_int_equal(saved_err, 0);
	assert_false(d->inforce_failing);
	assert_int_equal(n_writes, 2);

	/* No room. */
	put_dropin(d, KW_WATCH, "w.conf", WATCH_OLD);
	counts_reset();
	writes_left = 0;
	fail_err = -ENOSPC;
	apply_all(d);
	assert_int_equal(saved_err, -ENOSPC);
	assert_true(d->inforce_failing);
	assert_non_null(strstr(saved_path, "/in-force"));
	assert_copy(KW_WATCH, "w.conf", WATCH);
	counts_reset();
	save_all(d);
	assert_int_equal(saved_err, 0);
	assert_false(d->inforce_failing);
	assert_int_equal(n_writes, 1);
	assert_copy(KW_WATCH, "w.conf", WATCH_OLD);

	/* A file in the place of the state directory. */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/state && touch %s/state", root, root);
	assert_int_equal(system(cmd), 0);
	save_all(d);
	assert_int_equal(saved_err, -ENOTDIR);
	assert_true(d->inforce_failing);
	assert_int_equal(unlink(d->state_dir), 0);
	assert_int_equal(kw_mkdir_p(d->state_dir, 0755), 0);
	counts_reset();
	save_all(d);
	assert_int_equal(saved_err, 0);
	assert_false(d->inforce_failing);
	assert_int_equal(n_writes, 2);
	assert_copy(KW_WATCH, "w.conf", WATCH_OLD);
	assert_copy(KW_FUZZ, "z.conf", FUZZ);

	/* A file in the place of a kind directory: replaced. */
	snprintf(cmd, sizeof(cmd), "rm -rf %.200s && touch %.200s", copy_path(KW_FUZZ, NULL),
		 copy_path(KW_FUZZ, NULL));
	assert_int_equal(system(cmd), 0);
	counts_reset();
	save_all(d);
	assert_int_equal(saved_err, 0);
	assert_int_equal(n_writes, 1);
	assert_copy(KW_FUZZ, "z.conf", FUZZ);
	free_kwd(d);
}

/* --- the single file of an older kwatchd ---------------------------------------------------- */

static void old_file_replaced(void **state)
{
	static const char old[] = "kwatchd-in-force 1\nfile watch 7 m.conf\n"
		"path /etc/kwatchd/watch.d/m.conf\n[watch]\n\nend\n";
	struct kwd *d = new_kwd();
	char path[PATH_MAX];

	(void)state;
	snprintf(path, sizeof(path), "%.4000s/" KW_INFORCE_DIR, d->state_dir);
	assert_int_equal(kw_replace_file(path, old, strlen(old)), 0);
	/* Not read: nothing saved to use, and the directory in its place. */
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 0);
	assert_null(d->lastgood);
	assert_true(S_ISDIR(stat_of(path).st_mode));

	put_dropin(d, KW_WATCH, "m.conf", WATCH);
	apply_all(d);
	assert_int_equal(saved_err, 0);
	assert_copy(KW_WATCH, "m.conf", WATCH);
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 1);

	/* Nor is one found by a save (it is not a directory). */
	free(d->lastgood);
	d->lastgood = NULL;
	d->n_lastgood = 0;
	snprintf(path, sizeof(path), "rm -rf %.200s/" KW_INFORCE_DIR " && echo x > %.200s/"
		 KW_INFORCE_DIR, d->state_dir, d->state_dir);
	assert_int_equal(system(path), 0);
	counts_reset();
	save_all(d);
	assert_int_equal(saved_err, 0);
	assert_int_equal(n_writes, 1);
	assert_copy(KW_WATCH, "m.conf", WATCH);
	free_kwd(d);
}

/* --- what a save costs ---------------------------------------------------------------------- */

/* KW_INFORCE_FILES_MAX files saved from nothing, then with one changed,
 * then none: the writes counted, the times printed (not asserted). */
static void save_of_many(void **state)
{
	const size_t n = KW_INFORCE_FILES_MAX;
	struct kw_inforce s = KW_INFORCE_INIT;
	struct kw_file *set = calloc(n, sizeof(*set));
	struct kw_texts t = { 0 };
	struct timespec t0;
	char name[32], text[128];
	double from_nothing, one, none;
	size_t i;

	(void)state;
	counts_reset();
	assert_non_null(set);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "w%04zu.conf", i);
		snprintf(text, sizeof(text), "[watch]\nfunction = f%04zu\nenabled = no\n", i);
		in_force(&set[i], &t, KW_WATCH, name, text);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, n, &t, 0, false), 0);
	from_nothing = ms_since(&t0);
	assert_int_equal(n_writes, (int)n);

	snprintf(text, sizeof(text), "[watch]\nfunction = f0500\nenabled = no\nip_offset = 1\n");
	in_force(&set[500], &t, KW_WATCH, "w0500.conf", text);
	counts_reset();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, n, &t, 0, false), 0);
	one = ms_since(&t0);
	assert_int_equal(n_writes, 1);
	assert_copy(KW_WATCH, "w0500.conf", text);

	counts_reset();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(kw_inforce_save(&s, state_dir(), set, n, &t, 0, false), 0);
	none = ms_since(&t0);
	assert_int_equal(n_writes, 0);
	print_message("  save of %zu copies: %.1f ms from nothing, %.2f ms with one changed, "
		      "%.2f ms with none\n", n, from_nothing, one, none);
	kw_inforce_free(&s);
	kw_texts_free(&t);
	free(set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, tmpdir_setup, tmpdir_teardown)
		T(round_trip),
		T(only_changes_written),
		T(new_directory_listed_again),
		T(saved_in_slices),
		T(daemon_round_trip),
		T(daemon_saves_in_slices),
		T(saved_text_is_the_version_in_force),
		cmocka_unit_test(texts_pruned),
		T(unsaved_files_left_out),
		T(bad_copies_not_used),
		T(symlinked_dirs_not_followed),
		T(failed_save_retried),
		T(failed_save_reported),
		T(old_file_replaced),
		T(save_of_many),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
