/* SPDX-License-Identifier: GPL-2.0 */
/* Small helpers shared by kwatchd and kwatchctl: cleanup attributes, whole
 * file I/O with negative errno returns, directory fsync. */
#ifndef KW_UTIL_H
#define KW_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;

		close(*fd);
		errno = saved;
	}
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)

/* Turn a libc -1/errno result into a negative errno. */
static inline int neg_errno(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* Copy src into dst of size n; -ENAMETOOLONG if it does not fit. */
int kw_strlcpy(char *dst, const char *src, size_t n);
/* Write buf to path in exactly one write() on a fresh fd.  Regular files on
 * ordinary file systems are truncated first; kernel control files are not. */
int kw_write_once(const char *path, const char *buf, size_t len);
/* One write(2) of buf to path opened for appending (O_APPEND): a kernel
 * file that adds what is appended. */
int kw_append_once(const char *path, const char *buf, size_t len);
/* fd is on procfs, sysfs, debugfs or tracefs (or cannot be told). */
bool kw_is_kernel_fs(int fd);
/* Read at most max bytes of path into a NUL-terminated malloc'ed buffer. */
/* Replace name (relative to dirfd, or AT_FDCWD) with a new file, mode 0600,
 * holding all of buf, fsynced.  A symlink or hard link in its place is
 * removed, never written through. */
/* Read a file that another program controls: a regular file, not through
 * a symlink (-EMLINK), never blocking in open() (anything else: -EBADFD),
 * at most max bytes or -EFBIG (never a part of it).  Same results as
 * kw_read_file() otherwise; kw_read_regular_error() says it in words. */
int kw_read_regular(const char *path, size_t max, char **ret, size_t *ret_len);
const char *kw_read_regular_error(int r);
bool kw_ends_with(const char *s, const char *suffix);
/* @path is @dir or below it, by the names alone. */
bool kw_path_within(const char *path, const char *dir);
int kw_write_file_at(int dirfd, const char *name, const void *buf, size_t len);
/* Replace path atomically: write path.tmp that way, rename it, fsync the
 * directory. */
int kw_replace_file(const char *path, const void *buf, size_t len);
int kw_read_file(const char *path, size_t max, char **ret, size_t *ret_len);
/* fsync a directory by fd or by path. */
int kw_fsync_dirfd(int dirfd);
int kw_fsync_dir(const char *path);
/* mkdir -p with mode. */
int kw_mkdir_p(const char *path, unsigned int mode);
/* 64-bit FNV-1a. */
uint64_t kw_hash(const void *buf, size_t len);
/* true if s is a non-empty [A-Za-z0-9_] identifier of at most max chars;
 * extra lists other accepted characters. */
bool kw_ident_ok(const char *s, size_t max, const char *extra);

/* CLOCK_MONOTONIC in microseconds. */
uint64_t kw_now_usec(void);

/*
 * A directory the daemon keeps its files in (a spool, the crash directory):
 * whoever may write it could queue work or swap its entries.  It must be
 * owned by the daemon's user and not writable by others; group-writable
 * only by @group ((gid_t)-1: none) and with the sticky bit, so that the
 * group cannot move what is not its own.  0, or -EPERM with why.
 */
int kw_check_dir_owner(int fd, gid_t group, char *why, size_t n);

/* snprintf()'s result len into n bytes: len, or -ENAMETOOLONG if cut. */
int kw_fit(int len, size_t n);

/* The symbol of errno err (negative or not) for events: "ENOSPC". */
const char *kw_errno_name(int err);

#endif
