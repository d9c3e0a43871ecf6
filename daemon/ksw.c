// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
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
	size_t n = strcspn(back, "\n"), l = strlen(line);

	/* Empty: a file that does not show its config is not checked. */
	if (n == 0)
		return true;
	if (n < l || strncmp(back, line, l) != 0)
		return false;
	return n == l || strncmp(back + l, " # ", 3) == 0;
}

bool ksw_present(const char *path)
{
	return access(path, W_OK) == 0;
}

int ksw_arm(const char *path, const struct kw_watch *w, char *line, size_t n, char *picked,
	    size_t picked_n)
{
	_cleanup_free_ char *back = NULL;
	char buf[256];
	size_t l;
	int len, r;

	if (picked_n)
		picked[0] = '\0';
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
	/* The probe point the kernel picked: "LINE # fo=0x.. [so=..]". */
	l = strlen(line);
	if (picked_n && strncmp(back, line, l) == 0 && strncmp(back + l, " # ", 3) == 0)
		snprintf(picked, picked_n, "%.*s", (int)strcspn(back + l + 3, "\n"), back + l + 3);
	return 0;
}

int ksw_disarm(const char *path)
{
	return ksw_io(path, "\n", 1, NULL);
}

/* The kernel's words for a watch: FUNCTION+0xOFF[+DEPTH][ OFF:LEN] with
 * an ip_offset; else fn=FUNCTION[ dp=DEPTH][ so=OFF wl=LEN | co=OFF wl=LEN]. */
int kw_watch_line(const struct kw_watch *w, char *buf, size_t n)
{
	char depth[16] = "", local[48] = "";

	if (w->has_ip_offset) {
		if (w->depth)
			snprintf(depth, sizeof(depth), "+%u", w->depth);
		if (!w->canary)
			snprintf(local, sizeof(local), " %lu:%u", w->local_offset, w->local_len);
		return kw_fit(snprintf(buf, n, "%s+0x%lx%s%s", w->function, w->ip_offset, depth,
				       local), n);
	}
	if (w->variable[0] && !w->resolved)
		return -EINVAL;
	if (w->variable[0] || w->canary) {
		struct kw_svar_watch sw = {
			.canary = !w->variable[0], .cfa_off = w->cfa_off, .len = w->local_len,
		};

		if (kw_strlcpy(sw.func, w->function, sizeof(sw.func)) < 0)
			return -ENAMETOOLONG;
		return kw_svar_line(&sw, w->depth, buf, n);
	}
	if (w->depth)
		snprintf(depth, sizeof(depth), " dp=%u", w->depth);
	return kw_fit(snprintf(buf, n, "fn=%s%s so=%lu wl=%u", w->function, depth,
			       w->local_offset, w->local_len), n);
}

void ksw_vars_free(struct ksw_vars *vars)
{
	kw_stackvars_free(&vars->sv);
	memset(&vars->st, 0, sizeof(vars->st));
}

/* (Re)read the index if it is not the file read last. */
static int vars_load(struct ksw_vars *vars, const char *path, char *why, size_t n)
{
	struct stat st;
	int r;

	if (lstat(path, &st) < 0) {
		r = neg_errno();
		ksw_vars_free(vars);
		if (r == -ENOENT)
			snprintf(why, n, "no stack variable index for this kernel: %s does not exist "
				 "(make it with 'kwatchctl stackvars vmlinux' from the kernel's build)",
				 path);
		else
			snprintf(why, n, "cannot read the stack variable index %s: %s", path,
				 strerror(-r));
		return r;
	}
	if (vars->st.st_ino && st.st_ino == vars->st.st_ino && st.st_dev == vars->st.st_dev &&
	    st.st_size == vars->st.st_size && st.st_mtim.tv_sec == vars->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == vars->st.st_mtim.tv_nsec)
		return 0;
	ksw_vars_free(vars);
	r = kw_stackvars_load(&vars->sv, path, why, n);
	if (r < 0)
		return r;
	vars->st = st;
	return 0;
}

int ksw_resolve(struct ksw_vars *vars, const char *path, struct kw_watch *w, char *why,
		size_t n)
{
	struct kw_svar_watch sw;
	char def[PATH_MAX];
	int r;

	w->resolved = false;
	if (!w->variable[0])
		return 0;
	if (!path || !path[0]) {
		kw_stackvars_default_path(def, sizeof(def));
		path = def;
	}
	r = vars_load(vars, path, why, n);
	if (r < 0)
		return r;
	r = kw_stackvars_resolve(&vars->sv, w->function, w->variable, &sw, why, n);
	if (r < 0)
		return r;
	w->cfa_off = sw.cfa_off;
	w->local_len = sw.len;
	w->resolved = true;
	return 0;
}
