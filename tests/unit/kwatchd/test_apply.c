// SPDX-License-Identifier: GPL-2.0
/* The apply diff: last good versions, the watch limit, unchanged files
 * left alone, removals before creations. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "apply.h"
#include "tmpdir.h"
#include "util.h"

static struct kw_file mk(enum kw_kind k, const char *name, const char *text)
{
	struct kw_file f;
	char path[256];

	snprintf(path, sizeof(path), "/c/%s/%s", kw_kind_dir[k], name);
	kw_file_parse(k, path, text, strlen(text), &f);
	return f;
}

#define W1 "[watch]\nfunction = a\n"
#define W2 "[watch]\nfunction = b\n"
#define BAD "[watch]\nfunction = a\nlocal = 1:3\n"

static const struct kw_file *in(const struct kw_plan *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->n_next; i++)
		if (strcmp(p->next[i].name, name) == 0)
			return &p->next[i];
	return NULL;
}

static void first_apply_and_noop(void **state)
{
	struct kw_file set[] = { mk(KW_WATCH, "a.conf", W1),
				 mk(KW_WPROBE, "p.conf", "[wprobe]\nsymbol=jiffies\n"),
				 mk(KW_FUZZ, "z.conf", "[fuzz]\n") };
	struct kw_plan p, q;

	(void)state;
	assert_int_equal(kw_plan_build(NULL, 0, set, 3, 1, &p), 0);
	assert_int_equal(p.n_next, 3);
	assert_int_equal(p.n_errors, 0);
	assert_int_equal(p.n_steps, 3);
	assert_int_equal(p.steps[0].op, KW_STEP_WATCH_ARM);
	assert_int_equal(p.steps[1].op, KW_STEP_WPROBE_CREATE);
	assert_int_equal(p.steps[2].op, KW_STEP_FUZZ_START);
	/* The same files again: nothing to do. */
	assert_int_equal(kw_plan_build(p.next, p.n_next, set, 3, 1, &q), 0);
	assert_int_equal(q.n_steps, 0);
	assert_int_equal(q.n_next, 3);
	kw_plan_free(&p);
	kw_plan_free(&q);
}

static void bad_file_keeps_last_good(void **state)
{
	struct kw_file old[] = { mk(KW_WATCH, "a.conf", W1) };
	struct kw_file now[] = { mk(KW_WATCH, "a.conf", BAD) };
	struct kw_plan p;

	(void)state;
	assert_int_equal(now[0].err, -EINVAL);
	assert_int_equal(kw_plan_build(old, 1, now, 1, 1, &p), 0);
	assert_int_equal(p.n_errors, 1);
	assert_int_equal(p.errors[0].err_line, 3);
	assert_int_equal(p.n_next, 1);
	assert_int_equal(p.next[0].hash, old[0].hash);	/* the old version stays */
	assert_int_equal(p.n_steps, 0);			/* nothing touched */
	kw_plan_free(&p);
}

static void bad_new_file_not_applied(void **state)
{
	struct kw_file now[] = { mk(KW_WATCH, "a.conf", BAD) };
	struct kw_plan p;

	(void)state;
	assert_int_equal(kw_plan_build(NULL, 0, now, 1, 1, &p), 0);
	assert_int_equal(p.n_next, 0);
	assert_int_equal(p.n_steps, 0);
	assert_int_equal(p.n_errors, 1);
	kw_plan_free(&p);
}

static void second_watch_is_an_error(void **state)
{
	struct kw_file old[] = { mk(KW_WATCH, "b.conf", W2) };
	struct kw_file now[] = { mk(KW_WATCH, "a.conf", W1), mk(KW_WATCH, "b.conf", W2) };
	struct kw_plan p;

	(void)state;
	/* a.conf is new and sorts first, but b.conf is armed: b wins. */
	assert_int_equal(kw_plan_build(old, 1, now, 2, 1, &p), 0);
	assert_int_equal(p.n_errors, 1);
	assert_string_equal(p.errors[0].name, "a.conf");
	assert_non_null(strstr(p.errors[0].err_reason, "watch.d/a.conf"));
	assert_non_null(strstr(p.errors[0].err_reason, "watch.d/b.conf"));
	assert_int_equal(p.n_next, 1);
	assert_non_null(in(&p, "b.conf"));
	assert_int_equal(p.n_steps, 0);
	kw_plan_free(&p);
	/* Both new: the first by name wins. */
	assert_int_equal(kw_plan_build(NULL, 0, now, 2, 1, &p), 0);
	assert_string_equal(p.errors[0].name, "b.conf");
	assert_non_null(in(&p, "a.conf"));
	assert_int_equal(p.n_steps, 1);
	assert_int_equal(p.steps[0].op, KW_STEP_WATCH_ARM);
	kw_plan_free(&p);
}

/* A kernel with several watches: each enabled file is one, up to the
 * limit; the file beyond it is an error naming the limit, and the watches
 * in force win over new files.  Only what changed is disarmed or armed. */
static void several_watches_up_to_the_limit(void **state)
{
	struct kw_file old[] = { mk(KW_WATCH, "c.conf", "[watch]\nfunction = c\n"),
				 mk(KW_WATCH, "d.conf", "[watch]\nfunction = d\n") };
	struct kw_file now[] = { mk(KW_WATCH, "a.conf", W1), mk(KW_WATCH, "b.conf", W2),
				 mk(KW_WATCH, "c.conf", "[watch]\nfunction = c\n"),
				 mk(KW_WATCH, "d.conf", "[watch]\nfunction = d\ndepth = 2\n"),
				 mk(KW_WATCH, "e.conf", "[watch]\nfunction = e\nenabled = no\n") };
	struct kw_plan p;
	size_t i, arms = 0, disarms = 0;

	(void)state;
	assert_int_equal(kw_plan_build(old, 2, now, 5, 3, &p), 0);
	/* c is unchanged and d changed: both stay; of a and b, a fits. */
	assert_int_equal(p.n_errors, 1);
	assert_string_equal(p.errors[0].name, "b.conf");
	assert_int_equal(p.errors[0].err, -ENOSPC);
	assert_non_null(strstr(p.errors[0].err_reason, "watch.d/b.conf is beyond the limit of 3 watches"));
	assert_non_null(in(&p, "a.conf"));
	assert_non_null(in(&p, "c.conf"));
	assert_non_null(in(&p, "d.conf"));
	assert_non_null(in(&p, "e.conf"));	/* disabled: no watch, no limit */
	assert_null(in(&p, "b.conf"));
	for (i = 0; i < p.n_steps; i++) {
		const struct kw_file *f = p.steps[i].op == KW_STEP_WATCH_DISARM ?
					  &old[p.steps[i].file] : &p.next[p.steps[i].file];

		if (p.steps[i].op == KW_STEP_WATCH_DISARM) {
			assert_int_equal(arms, 0);	/* disarms come first */
			assert_string_equal(f->name, "d.conf");
			disarms++;
		} else {
			assert_int_equal(p.steps[i].op, KW_STEP_WATCH_ARM);
			assert_true(strcmp(f->name, "a.conf") == 0 || strcmp(f->name, "d.conf") == 0);
			arms++;
		}
	}
	assert_int_equal(disarms, 1);
	assert_int_equal(arms, 2);
	kw_plan_free(&p);
	/* The limit of one is the v4 rule and its words. */
	assert_int_equal(kw_plan_build(old, 2, now, 5, 1, &p), 0);
	assert_non_null(strstr(p.errors[0].err_reason, "conflicts with"));
	kw_plan_free(&p);
}

static void change_and_remove(void **state)
{
	struct kw_file old[] = { mk(KW_WATCH, "a.conf", W1),
				 mk(KW_WPROBE, "p.conf", "[wprobe]\nsymbol=jiffies\n"),
				 mk(KW_FUZZ, "z.conf", "[fuzz]\n") };
	struct kw_file now[] = { mk(KW_WATCH, "a.conf", W2),
				 mk(KW_WPROBE, "p.conf", "[wprobe]\nsymbol=jiffies\nlength=8\n") };
	struct kw_plan p;

	(void)state;
	assert_int_equal(kw_plan_build(old, 3, now, 2, 1, &p), 0);
	assert_int_equal(p.n_next, 2);
	assert_int_equal(p.n_steps, 5);
	/* removals first (the changed watch too), then the new watch and wprobe */
	assert_int_equal(p.steps[0].op, KW_STEP_WATCH_DISARM);
	assert_int_equal(p.steps[1].op, KW_STEP_WPROBE_REMOVE);
	assert_int_equal(p.steps[2].op, KW_STEP_FUZZ_STOP);
	assert_int_equal(p.steps[3].op, KW_STEP_WATCH_ARM);
	assert_int_equal(p.steps[4].op, KW_STEP_WPROBE_CREATE);
	kw_plan_free(&p);
	/* everything removed: disarm */
	assert_int_equal(kw_plan_build(old, 3, NULL, 0, 1, &p), 0);
	assert_int_equal(p.steps[0].op, KW_STEP_WATCH_DISARM);
	assert_int_equal(p.n_steps, 3);
	kw_plan_free(&p);
}

static void duplicate_names(void **state)
{
	struct kw_file now[] = { mk(KW_WPROBE, "a.conf", "[wprobe]\nname=x\nsymbol=s\n"),
				 mk(KW_WPROBE, "b.conf", "[wprobe]\nname=x\nsymbol=t\n"),
				 mk(KW_FUZZ, "c.conf", "[fuzz]\ntarget=t\n"),
				 mk(KW_FUZZ, "d.conf", "[fuzz]\ntarget=t\n") };
	struct kw_plan p;

	(void)state;
	assert_int_equal(kw_plan_build(NULL, 0, now, 4, 1, &p), 0);
	assert_int_equal(p.n_errors, 2);
	assert_int_equal(p.n_next, 2);
	assert_non_null(in(&p, "a.conf"));
	assert_non_null(in(&p, "c.conf"));
	kw_plan_free(&p);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A directory of 5000 drop-ins: the first KW_DROPINS_MAX by name are read
 * (memory is bounded by that, not by the directory), one error names the
 * rest, and the one enabled watch among them is armed.  1024 wprobes with
 * one name used twice plan without comparing every pair (time printed). */
static void five_thousand_dropins(void **state)
{
	struct kw_file *files, *wp;
	char dir[256], name[320], text[128];
	struct kw_plan p, q;
	size_t n, i, errs = 0;
	double t0, t1, t2;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/watch.d", root);
	assert_int_equal(kw_mkdir_p(dir, 0700), 0);
	for (i = 0; i < 5000; i++) {
		int fd;

		snprintf(name, sizeof(name), "%s/w%04zu.conf", dir, i);
		snprintf(text, sizeof(text), "[watch]\nfunction = f%zu\nenabled = %s\n", i,
			 i == 500 ? "yes" : "no");
		fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0600);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
		close(fd);
	}
	t0 = now_s();
	assert_int_equal(kw_config_load(root, &files, &n), 0);
	t1 = now_s();
	assert_int_equal(n, KW_DROPINS_MAX + 1);
	for (i = 0; i < n; i++)
		if (files[i].err) {
			errs++;
			assert_int_equal(files[i].err, -E2BIG);
			assert_string_equal(files[i].name, "w1024.conf");
			assert_non_null(strstr(files[i].err_reason, "5000 files"));
			assert_non_null(strstr(files[i].err_reason, "3975 after it"));
		}
	assert_int_equal(errs, 1);
	assert_int_equal(kw_plan_build(NULL, 0, files, n, 1, &p), 0);
	t2 = now_s();
	assert_int_equal(p.n_errors, 1);
	assert_string_equal(kw_armed_watch(p.next, p.n_next)->name, "w0500.conf");
	print_message("5000 drop-ins: read %.3f s, planned %.3f s, %zu in force\n", t1 - t0,
		      t2 - t1, p.n_next);

	wp = calloc(1025, sizeof(*wp));
	assert_non_null(wp);
	for (i = 0; i < 1025; i++) {
		snprintf(name, sizeof(name), "p%04zu.conf", i);
		snprintf(text, sizeof(text), "[wprobe]\nname = n%zu\nsymbol = jiffies\n",
			 i == 1024 ? (size_t)7 : i);
		wp[i] = mk(KW_WPROBE, name, text);
		assert_int_equal(wp[i].err, 0);
	}
	t0 = now_s();
	assert_int_equal(kw_plan_build(p.next, p.n_next, wp, 1025, 1, &q), 0);
	t1 = now_s();
	print_message("1025 wprobes against 1024 files in force: planned %.3f s\n", t1 - t0);
	assert_int_equal(q.n_errors, 1);
	assert_string_equal(q.errors[0].name, "p1024.conf");
	assert_int_equal(q.n_next, 1024);
	kw_plan_free(&q);
	kw_plan_free(&p);
	free(wp);
	free(files);
}

/* The set in force is a plan's next: sorted.  Anything else is refused
 * rather than searched wrongly. */
static void unsorted_set_in_force_refused(void **state)
{
	struct kw_file old[2] = { mk(KW_WATCH, "b.conf", W1), mk(KW_WATCH, "a.conf", W2) };
	struct kw_plan p;

	(void)state;
	assert_int_equal(kw_plan_build(old, 2, NULL, 0, 1, &p), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(first_apply_and_noop),
		cmocka_unit_test(bad_file_keeps_last_good),
		cmocka_unit_test(bad_new_file_not_applied),
		cmocka_unit_test(second_watch_is_an_error),
		cmocka_unit_test(several_watches_up_to_the_limit),
		cmocka_unit_test(change_and_remove),
		cmocka_unit_test(duplicate_names),
		cmocka_unit_test_setup_teardown(five_thousand_dropins, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test(unsorted_set_in_force_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
