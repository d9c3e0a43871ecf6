/* SPDX-License-Identifier: GPL-2.0 */
/* The number of the line of a fixture's source that holds a marker
 * ("@for"), for the host tests of the point after a source line (cmocka.h
 * comes before this header). */
#ifndef KW_TEST_SRCLINE_H
#define KW_TEST_SRCLINE_H

#include <stdio.h>
#include <string.h>

static inline unsigned int src_line(const char *src, const char *needle)
{
	char buf[512];
	unsigned int n = 0;
	FILE *f = fopen(src, "r");

	assert_non_null(f);
	while (fgets(buf, sizeof(buf), f)) {
		n++;
		if (strstr(buf, needle)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	fail_msg("%s: no line with '%s'", src, needle);
	return 0;
}

#endif
