// SPDX-License-Identifier: GPL-2.0
/* Retention of a target's crash directory: the newest blobs stay, the
 * older go with their reports. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "keep.h"
#include "tmpdir.h"
#include "util.h"

static bool has(int dfd, const char *name)
{
	return faccessat(dfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

static void newest_blobs_kept(void **state)
{
	char name[32];
	unsigned int removed;
	int dfd, i;

	(void)state;
	dfd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		assert_int_equal(kw_write_file_at(dfd, name, "blob", 4), 0);
		snprintf(name, sizeof(name), "b%d.report", i);
		assert_int_equal(kw_write_file_at(dfd, name, "report", 6), 0);
	}
	assert_int_equal(kw_write_file_at(dfd, "b2.2.report", "second", 6), 0);
	assert_int_equal(kw_write_file_at(dfd, "b2.3.report", "third", 5), 0);
	assert_int_equal(mkdirat(dfd, "adir", 0700), 0);
	assert_int_equal(symlinkat("/etc/passwd", dfd, "alink"), 0);

	assert_int_equal(kw_keep_newest_blobs(dfd, 0, &removed), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(kw_keep_newest_blobs(dfd, 3, &removed), 0);
	assert_int_equal(removed, 3);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		assert_int_equal(has(dfd, name), i >= 3);
		snprintf(name, sizeof(name), "b%d.report", i);
		assert_int_equal(has(dfd, name), i >= 3);
	}
	assert_false(has(dfd, "b2.2.report"));
	assert_false(has(dfd, "b2.3.report"));
	/* Not blobs: left alone. */
	assert_true(has(dfd, "adir"));
	assert_true(has(dfd, "alink"));
	assert_true(has(dfd, "/etc/passwd"));
	assert_int_equal(kw_keep_newest_blobs(dfd, 3, &removed), 0);
	assert_int_equal(removed, 0);
	close(dfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(newest_blobs_kept, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
