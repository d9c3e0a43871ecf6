// SPDX-License-Identifier: GPL-2.0
/* The set in force saved across restarts: copies of the files in force (the
 * version in force, not a newer one on disk) laid out like the configuration
 * directory, saved whole or not at all, read back by the configuration's
 * loader; a copy that does not parse, or a half-written set, never used. */
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

static struct kw_file mk(enum kw_kind k, const char *name, const char *text)
{
	struct kw_file f;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/etc/kwatchd/%s/%s", kw_kind_dir[k], name);
	assert_int_equal(kw_file_parse(k, path, text, strlen(text), &f), 0);
	return f;
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.3000s/%.255s", dir, name);
	assert_int_equal(kw_mkdir_p(dir, 0755), 0);
	assert_int_equal(kw_replace_file(path, text, strlen(text)), 0);
}

static void assert_text(const struct kw_texts *t, const struct kw_file *f, const char *want)
{
	const struct kw_text *x = kw_texts_find(t, f);

	assert_non_null(x);
	assert_int_equal(x->len, strlen(want));
	assert_memory_equal(x->text, want, x->len);
}

/* --- round trips ------------------------------------------------------------- */

/* Parsed in place, as kw_inforce_parse() and kw_config_load() do: the
 * structs compare to the byte. */
static void parse_into(struct kw_file *f, enum kw_kind k, const char *name, const char *text)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/etc/kwatchd/%s/%s", kw_kind_dir[k], name);
	assert_int_equal(kw_file_parse(k, path, text, strlen(text), f), 0);
}

/* state_dir under the test's root. */
static void state_path(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/state%s%s", root, rel[0] ? "/" : "", rel);
}

static bool exists(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	state_path(path, sizeof(path), rel);
	return lstat(path, &st) == 0;
}

static void assert_file(const char *rel, const char *want)
{
	char path[PATH_MAX], *buf;
	size_t len;

	state_path(path, sizeof(path), rel);
	assert_int_equal(kw_read_file(path, KW_CONF_MAX, &buf, &len), 0);
	assert_int_equal(len, strlen(want));
	assert_memory_equal(buf, want, len);
	free(buf);
}

static void rm_path(const char *path)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%.4000s'", path);
	assert_int_equal(system(cmd), 0);
}

static void rm_state(const char *rel)
{
	char path[PATH_MAX];

	state_path(path, sizeof(path), rel);
	rm_path(path);
}

/* Save set (texts[i] the text of set[i]) in a fresh store. */
static int save(const struct kw_file *set, const char *const *texts, size_t n)
{
	struct kw_texts t = { 0 };
	char st[PATH_MAX];
	size_t i;
	int r;

	state_path(st, sizeof(st), "");
	for (i = 0; i < n; i++)
		if (texts[i])
			assert_int_equal(kw_texts_add(&t, &set[i], texts[i], strlen(texts[i])), 0);
	r = kw_inforce_write(st, set, n, &t);
	kw_texts_free(&t);
	return r;
}

/* Load what is saved into a fresh store, as drop-ins of /etc/kwatchd. */
static int load(struct kw_file **set, size_t *n, struct kw_texts *t)
{
	char st[PATH_MAX];

	state_path(st, sizeof(st), "");
	memset(t, 0, sizeof(*t));
	*set = NULL;
	*n = 0;
	return kw_inforce_read(st, "/etc/kwatchd", set, n, t);
}

/* The watch saved and read back alone, or none if want is NULL. */
static void assert_saved_watch(const char *want)
{
	struct kw_file *got;
	struct kw_texts t;
	size_t n;

	assert_int_equal(load(&got, &n, &t), 0);
	assert_int_equal(n, want ? 1 : 0);
	if (want)
		assert_string_equal(got[0].watch.function, want);
	free(got);
	kw_texts_free(&t);
}

static int state_setup(void **state)
{
	char st[PATH_MAX];

	if (tmpdir_setup(state) < 0)
		return -1;
	state_path(st, sizeof(st), "");
	return kw_mkdir_p(st, 0755) < 0 ? -1 : 0;
}

/* Written as copies laid out like the configuration directory, read back
 * by its loader: to the byte what kw_file_parse() gives for the drop-in. */
struct inodes {
	ino_t w, p, z;
};

static ino_t ino_of(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	state_path(path, sizeof(path), rel);
	assert_int_equal(lstat(path, &st), 0);
	return st.st_ino;
}

static void set_ino(struct inodes *i)
{
	i->w = ino_of("in-force.d/watch.d/w.conf");
	i->p = ino_of("in-force.d/wprobe.d/p.conf");
	i->z = ino_of("in-force.d/fuzz.d/my fuzz.conf");
}

static void round_trip(void **state)
{
	const char *const texts[] = { WATCH, WPROBE, FUZZ };
	const char *texts2[] = { WATCH, WPROBE, FUZZ };
	struct inodes ino, ino2;
	struct kw_file set[3], *got;
	struct kw_texts t;
	size_t n, i;

	(void)state;
	parse_into(&set[0], KW_WATCH, "w.conf", WATCH);
	parse_into(&set[1], KW_WPROBE, "p.conf", WPROBE);
	parse_into(&set[2], KW_FUZZ, "my fuzz.conf", FUZZ);
	assert_int_equal(save(set, texts, 3), 0);
	assert_file("in-force.d/watch.d/w.conf", WATCH);
	assert_file("in-force.d/wprobe.d/p.conf", WPROBE);
	assert_file("in-force.d/fuzz.d/my fuzz.conf", FUZZ);
	assert_false(exists("in-force.d.tmp"));
	assert_false(exists("in-force.d.old"));

	assert_int_equal(load(&got, &n, &t), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		assert_memory_equal(&got[i], &set[i], sizeof(set[i]));
		assert_text(&t, &got[i], texts[i]);
	}
	assert_string_equal(got[0].watch.function, "silent_corruption_victim");
	assert_int_equal(got[1].wprobe.max_rate, 100);
	assert_string_equal(got[2].fuzz.target, "test_underflow");
	assert_int_equal(t.n, 3);
	free(got);
	kw_texts_free(&t);

	/* A copy saved again unchanged is linked, not written again. */
	set_ino(&ino);
	parse_into(&set[0], KW_WATCH, "w.conf", WATCH_OLD);
	texts2[0] = WATCH_OLD;
	assert_int_equal(save(set, texts2, 3), 0);
	assert_file("in-force.d/watch.d/w.conf", WATCH_OLD);
	set_ino(&ino2);
	assert_int_not_equal(ino2.w, ino.w);
	assert_int_equal(ino2.p, ino.p);
	assert_int_equal(ino2.z, ino.z);

	/* A smaller set replaces it whole. */
	assert_int_equal(save(&set[1], &texts[1], 1), 0);
	assert_false(exists("in-force.d/watch.d/w.conf"));
	assert_int_equal(ino_of("in-force.d/wprobe.d/p.conf"), ino.p);
	assert_int_equal(load(&got, &n, &t), 0);
	assert_int_equal(n, 1);
	assert_memory_equal(&got[0], &set[1], sizeof(set[1]));
	free(got);
	kw_texts_free(&t);

	/* Nothing in force is a set too; nothing saved reads as none. */
	assert_int_equal(save(NULL, NULL, 0), 0);
	assert_true(exists("in-force.d"));
	assert_saved_watch(NULL);
	rm_state("in-force.d");
	assert_saved_watch(NULL);
}

/* kwatchd.c's report of a state file saved or not (this test does not
 * link the daemon's main file): the last outcome, to assert on. */
static int saved_err = 1;

void kwd_state_saved(struct kwd *d, bool *failing, const char *path, int err)
{
	(void)d;
	(void)path;
	saved_err = err;
	*failing = err < 0;
}

static struct kwd *new_kwd(void)
{
	struct kwd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->confdir, sizeof(d->confdir), "%s/conf", root);
	snprintf(d->state_dir, sizeof(d->state_dir), "%s/state", root);
	assert_int_equal(kw_mkdir_p(d->state_dir, 0755), 0);
	kwd_inforce_forget();
	return d;
}

static void free_kwd(struct kwd *d)
{
	kwd_inforce_forget();
	free(d->cur);
	free(d->lastgood);
	free(d);
}

/* Read the drop-ins, put the valid ones in force, save. */
static void apply_all(struct kwd *d)
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
	kwd_inforce_save(d);
}

static void daemon_round_trip(void **state)
{
	struct kwd *d = new_kwd();
	char dir[PATH_MAX];
	size_t i;

	(void)state;
	snprintf(dir, sizeof(dir), "%.4000s/watch.d", d->confdir);
	put(dir, "w.conf", WATCH);
	snprintf(dir, sizeof(dir), "%.4000s/wprobe.d", d->confdir);
	put(dir, "p.conf", WPROBE);
	snprintf(dir, sizeof(dir), "%.4000s/fuzz.d", d->confdir);
	put(dir, "z.conf", FUZZ);
	apply_all(d);
	assert_int_equal(d->n_cur, 3);

	/* A restart: nothing in memory but what the file holds. */
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 3);
	for (i = 0; i < 3; i++)
		assert_memory_equal(&d->lastgood[i], &d->cur[i], sizeof(d->cur[i]));
	free_kwd(d);
}

/* --- the text saved is the version in force -------------------------------- */

/* The saved copy of watch.d/m.conf. */
static void read_inforce(struct kwd *d, char **buf, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.4000s/in-force.d/watch.d/m.conf", d->state_dir);
	assert_int_equal(kw_read_file(path, KW_CONF_MAX, buf, len), 0);
}

static void saved_text_is_the_version_in_force(void **state)
{
	struct kwd *d = new_kwd();
	struct kw_file *parsed, old;
	char dir[PATH_MAX], *buf;
	size_t n, len;

	(void)state;
	snprintf(dir, sizeof(dir), "%.4000s/watch.d", d->confdir);
	put(dir, "m.conf", WATCH_OLD);
	apply_all(d);
	assert_int_equal(d->n_cur, 1);
	memcpy(&old, &d->cur[0], sizeof(old));

	/* A bad edit: the previous version stays in force, and is saved. */
	put(dir, "m.conf", WATCH_BAD);
	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	assert_int_equal(n, 1);
	assert_int_not_equal(parsed[0].err, 0);
	free(parsed);
	kwd_inforce_save(d);
	read_inforce(d, &buf, &len);
	assert_string_equal(buf, WATCH_OLD);
	assert_null(strstr(buf, "local = 0:3"));
	free(buf);

	/* A valid edit the kernel refused: still the previous version. */
	put(dir, "m.conf", WATCH);
	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	assert_int_equal(parsed[0].err, 0);
	free(parsed);
	kwd_inforce_save(d);
	read_inforce(d, &buf, &len);
	assert_string_equal(buf, WATCH_OLD);
	assert_null(strstr(buf, "silent_corruption_victim"));
	free(buf);

	/* After a restart with the bad file on disk, the saved one is the old. */
	put(dir, "m.conf", WATCH_BAD);
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 1);
	assert_memory_equal(&d->lastgood[0], &old, sizeof(old));
	assert_string_equal(d->lastgood[0].watch.function, "canary_test_write");
	/* Put in force as it is (kwatchd-reconcile.c), it is saved again from its text. */
	memcpy(&d->cur[0], &d->lastgood[0], sizeof(old));
	kwd_inforce_save(d);
	read_inforce(d, &buf, &len);
	assert_string_equal(buf, WATCH_OLD);
	free(buf);

	/* Once the new version is in force, it is the one saved. */
	put(dir, "m.conf", WATCH);
	apply_all(d);
	read_inforce(d, &buf, &len);
	assert_string_equal(buf, WATCH);
	assert_null(strstr(buf, "canary_test_write"));
	free(buf);
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
	struct kw_file set[] = { mk(KW_WATCH, "w.conf", WATCH), mk(KW_WPROBE, "p.conf", WPROBE),
				 mk(KW_FUZZ, "z.conf", FUZZ), mk(KW_FUZZ, "z.conf", FUZZ),
				 mk(KW_WATCH, "v.conf", WATCH_OLD) };
	const char *const texts[] = { WATCH, NULL, FUZZ, FUZZ, WATCH_OLD };
	struct kw_file *got;
	struct kw_texts t;
	size_t n;

	(void)state;
	/* p.conf's text is unknown; z.conf is given twice; v.conf.bak is a
	 * name the loader does not read. */
	strcpy(set[4].name, "v.conf.bak");
	assert_int_equal(save(set, texts, 5), 0);
	assert_false(exists("in-force.d/watch.d/v.conf.bak"));
	assert_int_equal(load(&got, &n, &t), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].name, "w.conf");
	assert_int_equal(got[1].kind, KW_FUZZ);
	assert_string_equal(got[1].name, "z.conf");
	free(got);
	kw_texts_free(&t);
}

/* A file of a set being written when the daemon stopped (text, or a
 * part of it). */
static void half_written(const char *set_dir, const char *text)
{
	char dir[PATH_MAX], rel[64];

	snprintf(rel, sizeof(rel), "%s/watch.d", set_dir);
	state_path(dir, sizeof(dir), rel);
	put(dir, "m.conf", text);
	put(dir, "n.conf", "[watch]\nfunction = victim_of_a_cr");
}

/* Only a whole set is ever read: a crash while the next one was written
 * leaves the one before in force. */
static void half_written_set_not_used(void **state)
{
	struct kw_file a = mk(KW_WATCH, "m.conf", WATCH_OLD), b = mk(KW_WATCH, "m.conf", WATCH);
	const char *const ta[] = { WATCH_OLD }, *const tb[] = { WATCH };
	char from[PATH_MAX], to[PATH_MAX];

	(void)state;
	/* Before any set was saved whole: none. */
	half_written("in-force.d.tmp", WATCH);
	assert_saved_watch(NULL);
	/* The next save starts afresh. */
	assert_int_equal(save(&a, ta, 1), 0);
	assert_false(exists("in-force.d.tmp"));
	assert_false(exists("in-force.d/watch.d/n.conf"));
	assert_saved_watch("canary_test_write");

	half_written("in-force.d.tmp", WATCH);
	assert_saved_watch("canary_test_write");
	assert_int_equal(save(&b, tb, 1), 0);
	assert_false(exists("in-force.d.tmp"));
	assert_saved_watch("silent_corruption_victim");

	/* Without RENAME_EXCHANGE, a crash between its two renames: the set
	 * before waits whole in in-force.d.old. */
	state_path(from, sizeof(from), "in-force.d");
	state_path(to, sizeof(to), "in-force.d.old");
	assert_int_equal(rename(from, to), 0);
	half_written("in-force.d.tmp", WATCH_OLD);
	assert_saved_watch("silent_corruption_victim");
	assert_int_equal(save(&a, ta, 1), 0);
	assert_false(exists("in-force.d.tmp"));
	assert_false(exists("in-force.d.old"));
	assert_saved_watch("canary_test_write");
}

/* A file system with no RENAME_EXCHANGE (the test's renameat2() says so
 * when no_exchange is set). */
static bool no_exchange;
static unsigned int n_refused;
int __real_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags);
int __wrap_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		     unsigned int flags)
{
	if (no_exchange && (flags & RENAME_EXCHANGE)) {
		n_refused++;
		errno = EINVAL;
		return -1;
	}
	return __real_renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

static void saved_without_exchange(void **state)
{
	struct kw_file a = mk(KW_WATCH, "m.conf", WATCH_OLD), b = mk(KW_WATCH, "m.conf", WATCH);
	const char *const ta[] = { WATCH_OLD }, *const tb[] = { WATCH };

	(void)state;
	no_exchange = true;
	assert_int_equal(save(&a, ta, 1), 0);
	assert_saved_watch("canary_test_write");
	assert_int_equal(save(&b, tb, 1), 0);
	assert_false(exists("in-force.d.tmp"));
	assert_false(exists("in-force.d.old"));
	assert_saved_watch("silent_corruption_victim");
	/* A leftover in-force.d.old beside a whole in-force.d is not read. */
	half_written("in-force.d.old", WATCH_OLD);
	assert_saved_watch("silent_corruption_victim");
	assert_int_equal(save(&a, ta, 1), 0);
	assert_false(exists("in-force.d.old"));
	assert_saved_watch("canary_test_write");
	assert_int_equal(n_refused, 3);
	no_exchange = false;
}

/* --- what the daemon logs, caught from stderr ---------------------------------- */

static int stderr_fd = -1;

static void capture_start(void)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/log", root);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	fflush(stderr);
	stderr_fd = dup(2);
	assert_true(stderr_fd >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static char *capture_end(void)
{
	char path[PATH_MAX], *buf;
	size_t len;

	fflush(stderr);
	assert_int_equal(dup2(stderr_fd, 2), 2);
	close(stderr_fd);
	snprintf(path, sizeof(path), "%s/log", root);
	assert_int_equal(kw_read_file(path, 1 << 20, &buf, &len), 0);
	fputs(buf, stderr);
	return buf;
}

/* The single file an older kwatchd saved the set in: removed at start,
 * said once, the start goes on. */
static void old_file_removed(void **state)
{
	struct kwd *d = new_kwd();
	char dir[PATH_MAX], old[PATH_MAX], *log;

	(void)state;
	snprintf(old, sizeof(old), "%.4000s/in-force", d->state_dir);
	put(d->state_dir, "in-force", "kwatchd-in-force 1\nfile watch 7 m.conf\n"
	    "path /c/watch.d/m.conf\n[watch]\n\nend\n");
	capture_start();
	assert_int_equal(kwd_lastgood_load(d), 0);
	log = capture_end();
	assert_int_equal(d->n_lastgood, 0);
	assert_int_equal(access(old, F_OK), -1);
	assert_non_null(strstr(log, "/in-force: the set in force an older kwatchd saved"));
	assert_null(strchr(strchr(log, '\n') + 1, '\n'));
	free(log);

	/* Beside a saved set, which is used. */
	snprintf(dir, sizeof(dir), "%.4000s/watch.d", d->confdir);
	put(dir, "m.conf", WATCH);
	apply_all(d);
	put(d->state_dir, "in-force", "KWLG");
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 1);
	assert_int_equal(access(old, F_OK), -1);

	/* One that cannot be removed is said, and the start goes on. */
	assert_int_equal(mkdir(old, 0700), 0);
	capture_start();
	assert_int_equal(kwd_lastgood_load(d), 0);
	log = capture_end();
	assert_int_equal(d->n_lastgood, 1);
	assert_non_null(strstr(log, "/in-force: an older kwatchd's file, not used"));
	free(log);
	free_kwd(d);
}

/* A saved copy that does not parse is said with the parser's line and
 * reason, as a drop-in is, and not used; one that is a symlink is not read
 * through; a set or kind directory that is a symlink is not read at all. */
static void malformed_copy_reported(void **state)
{
	struct kwd *d = new_kwd();
	char dir[PATH_MAX], path[PATH_MAX], want[512], *log;
	struct kw_file bad;

	(void)state;
	snprintf(dir, sizeof(dir), "%.4000s/watch.d", d->confdir);
	put(dir, "m.conf", WATCH);
	snprintf(dir, sizeof(dir), "%.4000s/wprobe.d", d->confdir);
	put(dir, "p.conf", WPROBE);
	apply_all(d);
	assert_int_equal(d->n_cur, 2);

	snprintf(dir, sizeof(dir), "%.4000s/in-force.d/watch.d", d->state_dir);
	put(dir, "m.conf", WATCH_BAD);
	assert_int_equal(kw_file_parse(KW_WATCH, "m.conf", WATCH_BAD, strlen(WATCH_BAD), &bad),
			 -EINVAL);
	kwd_inforce_forget();
	capture_start();
	assert_int_equal(kwd_lastgood_load(d), 0);
	log = capture_end();
	assert_int_equal(d->n_lastgood, 1);
	assert_string_equal(d->lastgood[0].name, "p.conf");
	snprintf(want, sizeof(want), "in-force.d/watch.d/m.conf does not parse (line %d: %s), "
		 "not used", bad.err_line, bad.err_reason);
	assert_int_not_equal(bad.err_line, 0);
	assert_non_null(strstr(log, want));
	free(log);

	/* A symlink to a valid copy, in place of one. */
	snprintf(path, sizeof(path), "%.4000s/in-force.d/wprobe.d/p.conf", d->state_dir);
	snprintf(dir, sizeof(dir), "%.4000s/wprobe.d/p.conf", d->confdir);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(dir, path), 0);
	kwd_inforce_forget();
	capture_start();
	assert_int_equal(kwd_lastgood_load(d), 0);
	log = capture_end();
	assert_int_equal(d->n_lastgood, 0);
	assert_non_null(strstr(log, "p.conf does not parse (cannot read: a symlink"));
	free(log);

	/* A kind directory, then the set's, that is a symlink. */
	snprintf(path, sizeof(path), "%.4000s/in-force.d/wprobe.d", d->state_dir);
	rm_path(path);
	snprintf(dir, sizeof(dir), "%.4000s/wprobe.d", d->confdir);
	assert_int_equal(symlink(dir, path), 0);
	assert_int_equal(kwd_lastgood_load(d), -EMLINK);
	snprintf(path, sizeof(path), "%.4000s/in-force.d", d->state_dir);
	rm_path(path);
	assert_int_equal(symlink(d->confdir, path), 0);
	assert_int_equal(kwd_lastgood_load(d), -EMLINK);
	assert_int_equal(d->n_lastgood, 0);
	/* The next apply's save puts a real directory in its place. */
	apply_all(d);
	assert_int_equal(saved_err, 0);
	kwd_inforce_forget();
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 2);
	free_kwd(d);
}

/* A save that fails (the state directory is gone) is reported, not only
 * logged, and the next good save ends the streak. */
static void failed_save_reported(void **state)
{
	struct kwd *d = new_kwd();
	char cmd[PATH_MAX + 16];

	(void)state;
	kwd_inforce_save(d);
	assert_int_equal(saved_err, 0);
	assert_false(d->inforce_failing);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->state_dir);
	assert_int_equal(system(cmd), 0);
	kwd_inforce_save(d);
	assert_true(saved_err < 0);
	assert_true(d->inforce_failing);
	assert_int_equal(kw_mkdir_p(d->state_dir, 0755), 0);
	kwd_inforce_save(d);
	assert_int_equal(saved_err, 0);
	assert_false(d->inforce_failing);
	free_kwd(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(round_trip, state_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(daemon_round_trip, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(saved_text_is_the_version_in_force, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(texts_pruned),
		cmocka_unit_test_setup_teardown(unsaved_files_left_out, state_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(half_written_set_not_used, state_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(saved_without_exchange, state_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(old_file_removed, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(malformed_copy_reported, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(failed_save_reported, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
