/* SPDX-License-Identifier: GPL-2.0 */
/* A scratch directory for each test of a cmocka group: root, made by
 * tmpdir_setup and removed with its contents by tmpdir_teardown. */
#ifndef KW_TEST_TMPDIR_H
#define KW_TEST_TMPDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char root[64];

static inline int tmpdir_setup(void **state)
{
	(void)state;
	strcpy(root, "/tmp/kw-test-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

/* A file written beside its final name, then renamed to it, as a spool's
 * producer does (cmocka.h comes before this header). */
static inline void put_renamed(const char *dir, const char *name, const char *text)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

static inline int tmpdir_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd);
}

#endif
