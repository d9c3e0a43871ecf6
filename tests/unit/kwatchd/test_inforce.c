// SPDX-License-Identifier: GPL-2.0
/* The set in force saved across restarts: the files' text, the version in
 * force (not a newer one on disk), parsed again on load; anything but the
 * format refused as a whole, a record whose text does not parse never used. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Parse buf as an in-force file into a fresh store. */
static int parse(const char *buf, size_t len, struct kw_file **set, size_t *n,
		 struct kw_texts *t)
{
	memset(t, 0, sizeof(*t));
	*set = NULL;
	*n = 0;
	return kw_inforce_parse(buf, len, set, n, t);
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

static void round_trip(void **state)
{
	const char *texts[] = { WATCH, WPROBE, FUZZ };
	struct kw_texts t = { 0 }, t2;
	struct kw_file set[3], *got;
	char *buf = NULL, want[512];
	size_t len, n, i;

	(void)state;
	parse_into(&set[0], KW_WATCH, "w.conf", WATCH);
	parse_into(&set[1], KW_WPROBE, "p.conf", WPROBE);
	parse_into(&set[2], KW_FUZZ, "my fuzz.conf", FUZZ);
	for (i = 0; i < 3; i++)
		assert_int_equal(kw_texts_add(&t, &set[i], texts[i], strlen(texts[i])), 0);
	assert_int_equal(kw_inforce_format(set, 3, &t, &buf, &len), 0);
	assert_memory_equal(buf, KW_INFORCE_MAGIC, strlen(KW_INFORCE_MAGIC));
	snprintf(want, sizeof(want), "file watch %zu w.conf\npath /etc/kwatchd/watch.d/w.conf\n"
		 WATCH "\n", strlen(WATCH));
	assert_non_null(strstr(buf, want));
	snprintf(want, sizeof(want), "file fuzz %zu my fuzz.conf\npath /etc/kwatchd/fuzz.d/"
		 "my fuzz.conf\n" FUZZ "\nend\n", strlen(FUZZ));
	assert_non_null(strstr(buf, want));
	assert_string_equal(buf + len - 4, "end\n");

	assert_int_equal(parse(buf, len, &got, &n, &t2), 0);
	assert_int_equal(n, 3);
	for (i = 0; i < 3; i++) {
		/* What kw_file_parse() gives for the same text, to the byte. */
		assert_memory_equal(&got[i], &set[i], sizeof(set[i]));
		assert_text(&t2, &got[i], texts[i]);
	}
	assert_string_equal(got[0].watch.function, "silent_corruption_victim");
	assert_int_equal(got[1].wprobe.max_rate, 100);
	assert_string_equal(got[2].fuzz.target, "test_underflow");
	assert_int_equal(t2.n, 3);
	free(got);
	free(buf);
	kw_texts_free(&t2);

	/* Nothing in force is a valid file too. */
	assert_int_equal(kw_inforce_format(NULL, 0, &t, &buf, &len), 0);
	assert_int_equal(len, strlen(KW_INFORCE_MAGIC "end\n"));
	assert_int_equal(parse(buf, len, &got, &n, &t2), 0);
	assert_int_equal(n, 0);
	free(got);
	free(buf);
	kw_texts_free(&t);
	kw_texts_free(&t2);
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

static void read_inforce(struct kwd *d, char **buf, size_t *len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%.4000s/in-force", d->state_dir);
	assert_int_equal(kw_read_file(path, KW_INFORCE_SIZE_MAX, buf, len), 0);
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
	assert_non_null(strstr(buf, WATCH_OLD));
	assert_null(strstr(buf, "local = 0:3"));
	free(buf);

	/* A valid edit the kernel refused: still the previous version. */
	put(dir, "m.conf", WATCH);
	assert_int_equal(kwd_inforce_config_load(d, &parsed, &n), 0);
	assert_int_equal(parsed[0].err, 0);
	free(parsed);
	kwd_inforce_save(d);
	read_inforce(d, &buf, &len);
	assert_non_null(strstr(buf, WATCH_OLD));
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
	assert_non_null(strstr(buf, WATCH_OLD));
	free(buf);

	/* Once the new version is in force, it is the one saved. */
	put(dir, "m.conf", WATCH);
	apply_all(d);
	read_inforce(d, &buf, &len);
	assert_non_null(strstr(buf, WATCH));
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
				 mk(KW_FUZZ, "z.conf", FUZZ), mk(KW_FUZZ, "z.conf", FUZZ) };
	struct kw_texts t = { 0 }, t2;
	struct kw_file *got;
	char *buf;
	size_t len, n;

	(void)state;
	/* p.conf's text is unknown; z.conf is given twice; w.conf's path
	 * holds a newline. */
	assert_int_equal(kw_texts_add(&t, &set[0], WATCH, strlen(WATCH)), 0);
	assert_int_equal(kw_texts_add(&t, &set[2], FUZZ, strlen(FUZZ)), 0);
	strcpy(set[0].path, "/etc/kw\natchd/watch.d/w.conf");
	assert_int_equal(kw_inforce_format(set, 4, &t, &buf, &len), 0);
	assert_int_equal(parse(buf, len, &got, &n, &t2), 0);
	assert_int_equal(n, 1);
	assert_int_equal(got[0].kind, KW_FUZZ);
	assert_string_equal(got[0].name, "z.conf");
	free(got);
	free(buf);
	kw_texts_free(&t);
	kw_texts_free(&t2);
}

/* --- what is not used ---------------------------------------------------------- */

#define REC(kind, dir, name, text)                                              \
	"file " kind " %zu " name "\npath /etc/kwatchd/" dir "/" name "\n%s\n"

static void bad_text_not_used(void **state)
{
	/* One good record among records whose text is no drop-in's. */
	static const char *const bad[] = {
		"[watch]\nfunction = a b\n",			/* not a symbol */
		"[watch]\nfunction = victim\r0:8\n",		/* a CR inside a value */
		"[watch]\nfunction = victim\n\n[watch]\nfunction = x\n",
		"[wprobe]\nsymbol = jiffies\nfetch = +0(%di);x\n",
		"[fuzz]\ntarget = ../x\n",
		"[watch]\nfunction = victim 0:8\nip_offset = 1\n",
	};
	char buf[4096];
	struct kw_texts t;
	struct kw_file *got;
	size_t i, n, len;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *kind = strstr(bad[i], "[fuzz]") ? "fuzz" :
			strstr(bad[i], "[wprobe]") ? "wprobe" : "watch";

		len = snprintf(buf, sizeof(buf), KW_INFORCE_MAGIC
			       REC("wprobe", "wprobe.d", "p.conf", WPROBE)
			       "file %s %zu bad.conf\npath /etc/kwatchd/x.d/bad.conf\n%s\n"
			       "end\n", strlen(WPROBE), WPROBE, kind, strlen(bad[i]), bad[i]);
		assert_true(len < sizeof(buf));
		assert_int_equal(parse(buf, len, &got, &n, &t), 0);
		assert_int_equal(n, 1);
		assert_string_equal(got[0].name, "p.conf");
		assert_int_equal(got[0].err, 0);
		assert_null(kw_file_find(got, n, KW_WATCH, "bad.conf"));
		assert_int_equal(t.n, 1);
		free(got);
		kw_texts_free(&t);
	}
	/* A NUL in a text is held by the format, and refused by the parser. */
	len = snprintf(buf, sizeof(buf), KW_INFORCE_MAGIC "file watch 23 n.conf\n"
		       "path /c/watch.d/n.conf\n[watch]\nfunction = a@b\n\nend\n");
	*strchr(buf, '@') = '\0';
	assert_int_equal(parse(buf, len, &got, &n, &t), 0);
	assert_int_equal(n, 0);
	assert_int_equal(t.n, 0);
	free(got);
}

/* A valid file: the three kinds, the same name under two kinds. */
static size_t valid(char *buf, size_t size)
{
	size_t len = snprintf(buf, size, KW_INFORCE_MAGIC
			      REC("watch", "watch.d", "a.conf", WATCH)
			      REC("wprobe", "wprobe.d", "a.conf", WPROBE)
			      REC("fuzz", "fuzz.d", "z.conf", FUZZ)
			      "end\n", strlen(WATCH), WATCH, strlen(WPROBE), WPROBE,
			      strlen(FUZZ), FUZZ);

	assert_true(len < size);
	return len;
}

/* Refused as a whole, reported at the caller's line. */
static void refused_at(const char *buf, size_t len, const char *file, int line)
{
	struct kw_file *got;
	struct kw_texts t;
	size_t n;

	_assert_int_equal(parse(buf, len, &got, &n, &t), -EBADMSG, file, line);
	_assert_int_equal(cast_ptr_to_largest_integral_type(got), 0, file, line);
	_assert_int_equal(n, 0, file, line);
	_assert_int_equal(t.n, 0, file, line);
}

#define refused(buf, len) refused_at(buf, len, __FILE__, __LINE__)
#define refused_str(s) refused_at(s, strlen(s), __FILE__, __LINE__)

#define ONE(line, pathline, text)                                               \
	KW_INFORCE_MAGIC line "\n" pathline "\n" text "\nend\n"
#define T "[fuzz]\n"	/* 7 bytes */

static void refused_as_a_whole(void **state)
{
	char buf[4096], copy[4096];
	struct kw_file *got;
	struct kw_texts t;
	size_t len, i, n;

	(void)state;
	len = valid(buf, sizeof(buf));
	assert_int_equal(parse(buf, len, &got, &n, &t), 0);
	assert_int_equal(n, 3);
	free(got);
	kw_texts_free(&t);
	refused_str(ONE("file fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T) "x");
	assert_int_equal(parse(ONE("file fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T),
			       strlen(ONE("file fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T)),
			       &got, &n, &t), 0);
	assert_int_equal(n, 1);
	free(got);
	kw_texts_free(&t);

	/* Truncated anywhere, even between two records. */
	for (i = 0; i < len; i++)
		refused(buf, i);
	/* Anything after the end. */
	memcpy(copy, buf, len);
	copy[len] = '\n';
	refused(copy, len + 1);
	copy[len] = '\0';
	refused(copy, len + 1);
	refused_str(KW_INFORCE_MAGIC "end\nend\n");
	refused_str(KW_INFORCE_MAGIC "end \n");
	/* Headers. */
	refused_str("");
	refused_str("kwatchd-in-force 2\nend\n");
	refused_str("kwatchd-in-force 1 \nend\n");
	refused_str("kwatchd-in-force 1\r\nend\n");
	refused_str("KWLG");
	/* Lengths. */
	refused_str(ONE("file fuzz 8 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 6 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 999999 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 18446744073709551623 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 07 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz +7 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz  7 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 7", "path /c/fuzz.d/z.conf", T));
	/* Kinds. */
	refused_str(ONE("file fuzzy 7 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file Fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("file  fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T));
	refused_str(ONE("files fuzz 7 z.conf", "path /c/fuzz.d/z.conf", T));
	/* Names and paths. */
	refused_str(ONE("file fuzz 7 ../z.conf", "path /c/fuzz.d/../z.conf", T));
	refused_str(ONE("file fuzz 7 d/z.conf", "path /c/fuzz.d/d/z.conf", T));
	refused_str(ONE("file fuzz 7 z.txt", "path /c/fuzz.d/z.txt", T));
	refused_str(ONE("file fuzz 7 .conf", "path /c/fuzz.d/.conf", T));
	refused_str(ONE("file fuzz 7 .z.conf", "path /c/fuzz.d/.z.conf", T));
	refused_str(ONE("file fuzz 7 z\t.conf", "path /c/fuzz.d/z\t.conf", T));
	refused_str(ONE("file fuzz 7 z.conf\r", "path /c/fuzz.d/z.conf\r", T));
	refused_str(ONE("file fuzz 7 z.conf", "path /c/fuzz.d/y.conf", T));
	refused_str(ONE("file fuzz 7 z.conf", "path /c/fuzz.d/xz.conf", T));
	refused_str(ONE("file fuzz 7 z.conf", "path z.conf", T));
	refused_str(ONE("file fuzz 7 z.conf", "path /c/f\033uzz.d/z.conf", T));
	refused_str(ONE("file fuzz 7 z.conf", "paths /c/fuzz.d/z.conf", T));
	refused_str(ONE("file fuzz 7 z.conf", "", T));
	/* The same kind and name twice. */
	refused_str(KW_INFORCE_MAGIC "file fuzz 7 z.conf\npath /c/fuzz.d/z.conf\n" T "\n"
		    "file fuzz 7 z.conf\npath /d/fuzz.d/z.conf\n" T "\nend\n");
	/* A record with no text where one is due. */
	refused_str(KW_INFORCE_MAGIC "file fuzz 7 z.conf\npath /c/fuzz.d/z.conf\nend\n");
}

/* The binary dump of struct kw_file the daemon used to save. */
static void old_binary_file_refused(void **state)
{
	struct {
		uint32_t magic, file_size;
		uint64_t n;
	} h = { 0x4b574c47u, sizeof(struct kw_file), 1 };
	struct kwd *d = new_kwd();
	_cleanup_free_ char *buf = malloc(sizeof(h) + sizeof(struct kw_file));
	struct kw_file f = mk(KW_WATCH, "m.conf", WATCH);
	char path[PATH_MAX];

	(void)state;
	assert_non_null(buf);
	/* What no parser would let through, on its way to the kernel. */
	strcpy(f.watch.function, "victim 0:8\nvictim");
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &f, sizeof(f));
	snprintf(path, sizeof(path), "%.4000s/in-force", d->state_dir);
	assert_int_equal(kw_replace_file(path, buf, sizeof(h) + sizeof(f)), 0);
	assert_int_equal(kwd_lastgood_load(d), -EBADMSG);
	assert_null(d->lastgood);
	assert_int_equal(d->n_lastgood, 0);
	free_kwd(d);
}

/* kwd_lastgood_load() on a file refused as a whole keeps nothing of it;
 * one that is not there is no error. */
static void daemon_load_refused(void **state)
{
	struct kwd *d = new_kwd();
	char path[PATH_MAX], buf[4096];
	size_t len;

	(void)state;
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_null(d->lastgood);
	len = valid(buf, sizeof(buf));
	snprintf(path, sizeof(path), "%.4000s/in-force", d->state_dir);
	assert_int_equal(kw_replace_file(path, buf, len - 1), 0);
	assert_int_equal(kwd_lastgood_load(d), -EBADMSG);
	assert_null(d->lastgood);
	assert_int_equal(kw_replace_file(path, buf, len), 0);
	assert_int_equal(kwd_lastgood_load(d), 0);
	assert_int_equal(d->n_lastgood, 3);
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
		cmocka_unit_test(round_trip),
		cmocka_unit_test_setup_teardown(daemon_round_trip, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(saved_text_is_the_version_in_force, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test(texts_pruned),
		cmocka_unit_test(unsaved_files_left_out),
		cmocka_unit_test(bad_text_not_used),
		cmocka_unit_test(refused_as_a_whole),
		cmocka_unit_test_setup_teardown(old_binary_file_refused, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(daemon_load_refused, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(failed_save_reported, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
