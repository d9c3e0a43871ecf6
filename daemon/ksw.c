// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ksw.h"
#include "util.h"

bool ksw_present(const char *path)
{
	return access(path, W_OK) == 0;
}

int ksw_arm(const char *path, const struct kw_watch *w, char *line, size_t n)
{
	_cleanup_free_ char *back = NULL;
	char buf[256];
	int len, r;

	len = kw_watch_line(w, line, n);
	if (len < 0)
		return len;
	snprintf(buf, sizeof(buf), "%s\n", line);
	r = kw_write_once(path, buf, strlen(buf));
	if (r < 0)
		return r;
	/* Read back: a kernel that shows its config must show ours.  A file
	 * that cannot be read (write-only) or reads empty is not checked. */
	if (kw_read_file(path, 4096, &back, NULL) < 0)
		return 0;
	back[strcspn(back, "\n")] = '\0';
	if (back[0] && !strstr(back, line))
		return -EIO;
	return 0;
}

int ksw_disarm(const char *path)
{
	return kw_write_once(path, "\n", 1);
}
