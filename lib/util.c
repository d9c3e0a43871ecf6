// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "util.h"

int kw_strlcpy(char *dst, const char *src, size_t n)
{
	size_t len = strlen(src);

	if (len >= n)
		return -ENAMETOOLONG;
	memcpy(dst, src, len + 1);
	return 0;
}

bool kw_is_kernel_fs(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs) < 0)
		return true;
	switch ((unsigned long)sfs.f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
		return true;
	}
	return false;
}

/* Open path for writing with @flags added; regular files on ordinary file
 * systems are truncated unless appended to.  One write(2) of buf. */
static int write_once(const char *path, int flags, const char *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | flags);
	if (fd < 0)
		return neg_errno();
	if (fstat(fd, &st) < 0)
		return neg_errno();
	if (!(flags & O_APPEND) && S_ISREG(st.st_mode) && !kw_is_kernel_fs(fd) &&
	    ftruncate(fd, 0) < 0)
		return neg_errno();
	n = write(fd, buf, len);
	if (n < 0)
		return neg_errno();
	if ((size_t)n != len)
		return -EIO;
	return 0;
}

int kw_write_once(const char *path, const char *buf, size_t len)
{
	return write_once(path, 0, buf, len);
}

int kw_append_once(const char *path, const char *buf, size_t len)
{
	return write_once(path, O_APPEND, buf, len);
}

int kw_write_file_at(int dirfd, const char *name, const void *buf, size_t len)
{
	_cleanup_close_ int fd = -1;
	ssize_t n;

	/* A new file, never what a planted symlink or hard link points at:
	 * unlinkat() removes a link itself, and O_EXCL creates or fails. */
	if (unlinkat(dirfd, name, 0) < 0 && errno != ENOENT)
		return neg_errno();
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY,
		    0600);
	if (fd < 0)
		return neg_errno();
	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? neg_errno() : -EIO;
		buf = (const char *)buf + n;
		len -= n;
	}
	return fsync(fd) < 0 ? neg_errno() : 0;
}

int kw_replace_file(const char *path, const void *buf, size_t len)
{
	char tmp[PATH_MAX + 8];
	int r;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	r = kw_write_file_at(AT_FDCWD, tmp, buf, len);
	if (r == 0 && rename(tmp, path) < 0)
		r = neg_errno();
	if (r == 0) {
		/* The rename, too, must survive a crash that comes next. */
		char *slash = strrchr(tmp, '/');

		if (slash && slash != tmp) {
			*slash = '\0';
			r = kw_fsync_dir(tmp);
		}
	}
	return r;
}

/* Read fd to its end or @cap bytes into a NUL-terminated malloc'ed buffer,
 * grown as the data comes (a large @cap costs nothing for a small file). */
static int read_fd(int fd, size_t cap, char **ret, size_t *ret_len)
{
	size_t len = 0, size = cap < 65536 ? cap : 65536;
	_cleanup_free_ char *buf = malloc(size + 1);

	if (!buf)
		return -ENOMEM;
	while (len < cap) {
		ssize_t n;

		if (len == size) {
			size_t bigger = size > cap / 2 ? cap : size * 2;
			char *p = realloc(buf, bigger + 1);

			if (!p)
				return -ENOMEM;
			buf = p;
			size = bigger;
		}
		n = read(fd, buf + len, size - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return neg_errno();
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	*ret = buf;
	buf = NULL;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int kw_read_file(const char *path, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return neg_errno();
	return read_fd(fd, max, ret, ret_len);
}

int kw_read_regular(const char *path, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t len = 0;
	int r;

	/* No symlink, and no open() that waits (a FIFO, a device). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ELOOP ? -EMLINK : neg_errno();
	if (fstat(fd, &st) < 0)
		return neg_errno();
	if (!S_ISREG(st.st_mode))
		return -EBADFD;
	if ((uint64_t)st.st_size > max)
		return -EFBIG;
	/* One byte more than allowed tells a file that grew meanwhile. */
	r = read_fd(fd, max + 1, ret, &len);
	if (r < 0)
		return r;
	if (len > max) {
		free(*ret);
		*ret = NULL;
		return -EFBIG;
	}
	if (ret_len)
		*ret_len = len;
	return 0;
}

const char *kw_read_regular_error(int r)
{
	switch (r) {
	case -EMLINK:
		return "a symlink: read only as a regular file, never through a link";
	case -EBADFD:
		return "not a regular file";
	case -EFBIG:
		return "larger than the limit: not applied, not even in part";
	default:
		return strerror(-r);
	}
}

bool kw_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

bool kw_path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!n || strncmp(path, dir, n))
		return false;
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

int kw_fsync_dirfd(int dirfd)
{
	return fsync(dirfd) < 0 ? neg_errno() : 0;
}

int kw_fsync_dir(const char *path)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return neg_errno();
	return kw_fsync_dirfd(fd);
}

int kw_mkdir_p(const char *path, unsigned int mode)
{
	char buf[4096];
	char *p;

	if (kw_strlcpy(buf, path, sizeof(buf)) < 0)
		return -ENAMETOOLONG;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return neg_errno();
		*p = '/';
	}
	if (mkdir(buf, mode) < 0 && errno != EEXIST)
		return neg_errno();
	return 0;
}

uint64_t kw_hash(const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

bool kw_ident_ok(const char *s, size_t max, const char *extra)
{
	size_t n = 0;

	if (!*s)
		return false;
	for (; *s; s++, n++) {
		char c = *s;

		if (n >= max)
			return false;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '_')
			continue;
		if (extra && strchr(extra, c))
			continue;
		return false;
	}
	return true;
}

uint64_t kw_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

int kw_check_dir_owner(int fd, gid_t group, char *why, size_t n)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return neg_errno();
	if (st.st_uid != geteuid()) {
		snprintf(why, n, "owned by uid %u, not by the daemon's user (uid %u)",
			 (unsigned int)st.st_uid, (unsigned int)geteuid());
		return -EPERM;
	}
	if (st.st_mode & S_IWOTH) {
		snprintf(why, n, "writable by others (mode %04o)", (unsigned int)st.st_mode & 07777);
		return -EPERM;
	}
	if (!(st.st_mode & S_IWGRP))
		return 0;
	if (group == (gid_t)-1) {
		snprintf(why, n, "group-writable (mode %04o) with no producer_group =",
			 (unsigned int)st.st_mode & 07777);
		return -EPERM;
	}
	if (st.st_gid != group) {
		snprintf(why, n, "group-writable by gid %u, not by producer_group (gid %u)",
			 (unsigned int)st.st_gid, (unsigned int)group);
		return -EPERM;
	}
	if (!(st.st_mode & S_ISVTX)) {
		snprintf(why, n, "group-writable without the sticky bit (chmod +t): %s",
			 "producers could move the daemon's directories");
		return -EPERM;
	}
	return 0;
}

int kw_fit(int len, size_t n)
{
	return len < 0 || (size_t)len >= n ? -ENAMETOOLONG : len;
}

const char *kw_errno_name(int err)
{
	const char *name = strerrorname_np(err < 0 ? -err : err);

	return name ? name : "EIO";
}
