// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksw.h"
#include "util.h"

/* The file has one opener at a time: a reader (cat, a collector) holding
 * it makes our open fail with EBUSY.  Most holds are short: wait up to
 * KSW_BUSY_TRIES * KSW_BUSY_WAIT_NS here, in the event loop; a longer one
 * is -EBUSY to the caller, which retries from a timer (reconcile.c). */
#define KSW_BUSY_TRIES		10
#define KSW_BUSY_WAIT_NS	10000000L	/* 10 ms: 100 ms in all */

static void ksw_busy_wait(void)
{
	struct timespec ts = { .tv_nsec = KSW_BUSY_WAIT_NS };

	nanosleep(&ts, NULL);
}

/* Read into *ret if ret is set, else write buf; EBUSY is waited out. */
static int ksw_io(const char *path, const char *buf, size_t len, char **ret)
{
	int i, r;

	for (i = 0;; i++) {
		r = ret ? kw_read_file(path, 4096, ret, NULL) : kw_write_once(path, buf, len);
		if (r != -EBUSY || i + 1 == KSW_BUSY_TRIES)
			return r;
		ksw_busy_wait();
	}
}

bool ksw_readback_ok(const char *back, const char *line)
{
	size_t n = strcspn(back, "\n");

	/* Empty: a file that does not show its config is not checked. */
	return n == 0 || (n == strlen(line) && strncmp(back, line, n) == 0);
}

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
	r = ksw_io(path, buf, strlen(buf), NULL);
	if (r < 0)
		return r;
	/* Read back: a kernel that shows its config must show ours.  A file
	 * that cannot be read (write-only) or reads empty is not checked. */
	if (ksw_io(path, NULL, 0, &back) < 0)
		return 0;
	if (!ksw_readback_ok(back, line))
		return -EIO;
	return 0;
}

int ksw_disarm(const char *path)
{
	return ksw_io(path, "\n", 1, NULL);
}

/* The kernel's words for a watch: FUNCTION+0xOFF[+DEPTH][ OFF:LEN]. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n)
{
	char depth[16] = "", local[48] = "";

	if (w->depth)
		snprintf(depth, sizeof(depth), "+%u", w->depth);
	if (!w->canary)
		snprintf(local, sizeof(local), " %lu:%u", w->local_offset, w->local_len);
	return kw_fit(snprintf(buf, n, "%s+0x%lx%s%s", w->function, w->ip_offset, depth, local), n);
}
