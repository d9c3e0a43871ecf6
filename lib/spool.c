// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/magic.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "keep.h"
#include "spool.h"
#include "spool-int.h"
#include "util.h"

const char *const spool_dir_name[_SPOOL_STATE_MAX] = {
	[SPOOL_QUEUED] = ".",
	[SPOOL_INFLIGHT] = "inflight",
	[SPOOL_DONE] = "done",
	[SPOOL_REJECTED] = "rejected",
	[SPOOL_INTERRUPTED] = "interrupted",
};

/* A status's count of a directory is read again after this long, or
 * after the shorter one once others (a producer) changed it. */
#define SPOOL_COUNT_TTL_NS	1000000000LL
#define SPOOL_COUNT_FRESH_NS	100000000LL

/* CLOCK_REALTIME, as file times are (coarse, as they are), in ns. */
static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void spool_init(struct spool *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->prog_fd = -1;
	s->pmsg_fd = -1;
	s->input_fd = -1;
	s->ino_fd = -1;
	for (i = 0; i < _SPOOL_STATE_MAX; i++)
		s->fd[i] = -1;
}

int spool_open_group(struct spool *s, const char *dir, const char *input, unsigned int repeat,
		     gid_t group, char *why, size_t why_len)
{
	int i, r;

	spool_init(s);
	why[0] = '\0';
	if (kw_strlcpy(s->dir, dir, sizeof(s->dir)) < 0 ||
	    kw_strlcpy(s->input, input, sizeof(s->input)) < 0)
		return -ENAMETOOLONG;
	s->repeat = repeat ? repeat : 1;
	r = kw_mkdir_p(dir, 0700);
	if (r < 0)
		return r;
	s->fd[SPOOL_QUEUED] = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (s->fd[SPOOL_QUEUED] < 0)
		return neg_errno();
	r = kw_check_dir_owner(s->fd[SPOOL_QUEUED], group, why, why_len);
	if (r < 0)
		goto fail_r;
	/* From now on each file made in the queue is seen made: those there
	 * already are taken as whole. */
	s->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (s->ino_fd < 0 ||
	    inotify_add_watch(s->ino_fd, dir, IN_CREATE | IN_MOVED_TO | IN_ONLYDIR |
			      IN_DONT_FOLLOW) < 0)
		goto fail;
	s->settled_ns = now_ns();
	for (i = 1; i < _SPOOL_STATE_MAX; i++) {
		if (mkdirat(s->fd[SPOOL_QUEUED], spool_dir_name[i], 0700) < 0 && errno != EEXIST)
			goto fail;
		/* Not through a symlink planted in the spool's place. */
		s->fd[i] = openat(s->fd[SPOOL_QUEUED], spool_dir_name[i],
				  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (s->fd[i] < 0)
			goto fail;
		r = kw_check_dir_owner(s->fd[i], (gid_t)-1, why, why_len);
		if (r < 0)
			goto fail_r;
	}
	/* The producers' side; the daemon never reads or writes in it.  A
	 * producer group's spool is setgid: tmp/ gets its group. */
	if (mkdirat(s->fd[SPOOL_QUEUED], SPOOL_TMP, 0700) < 0) {
		if (errno != EEXIST)
			goto fail;
	} else if (group != (gid_t)-1 &&
		   fchmodat(s->fd[SPOOL_QUEUED], SPOOL_TMP, 03770, 0) < 0) {
		goto fail;
	}
	r = kw_fsync_dirfd(s->fd[SPOOL_QUEUED]);
	if (r < 0)
		goto fail_r;
	return 0;
fail:
	r = neg_errno();
fail_r:
	spool_close(s);
	return r;
}

int spool_open(struct spool *s, const char *dir, const char *input, unsigned int repeat)
{
	char why[160];

	return spool_open_group(s, dir, input, repeat, (gid_t)-1, why, sizeof(why));
}

void spool_close(struct spool *s)
{
	int i;

	if (s->prog_fd >= 0)
		close(s->prog_fd);
	if (s->pmsg_fd >= 0)
		close(s->pmsg_fd);
	s->prog_fd = -1;
	s->pmsg_fd = -1;
	spool_input_close(s);
	if (s->ino_fd >= 0)
		close(s->ino_fd);
	s->ino_fd = -1;
	spool_queue_reread(s);

	for (i = 0; i < _SPOOL_STATE_MAX; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

/* Whether the count of @st's directory counts its entry NAME. */
static bool counted(enum spool_state st, const char *name)
{
	if (name[0] == '.')
		return false;
	if (st == SPOOL_QUEUED)
		return !spool_not_queued(name);
	/* In rejected/ a blob's NAME.errno goes with it. */
	return st != SPOOL_REJECTED || !kw_ends_with(name, ".errno");
}

void spool_tally_stale(struct spool *s, enum spool_state st)
{
	s->tally[st].stale = true;
}

void spool_tally_move(struct spool *s, enum spool_state a, const char *name, enum spool_state b,
		      const char *final)
{
	struct spool_tally *ta = &s->tally[a], *tb = &s->tally[b];

	/* What leaves the queue by a refusal may be no regular file, which
	 * it does not count: read again. */
	if (a == SPOOL_QUEUED && b == SPOOL_REJECTED)
		ta->stale = true;
	else if (ta->at && ta->n > 0 && counted(a, name))
		ta->n--;
	if (tb->at && counted(b, final))
		tb->n++;
}

int spool_sync_data(struct spool *s, const char *name, bool start)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	/* No producer writes inflight/; still, no open that waits or
	 * follows a link: what is no regular file is refused unread when
	 * its turn comes, and has nothing to sync. */
	if (fstatat(s->fd[SPOOL_INFLIGHT], name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : neg_errno();
	if (!S_ISREG(st.st_mode))
		return 0;
	fd = openat(s->fd[SPOOL_INFLIGHT], name,
		    O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP || errno == EACCES ? 0 : neg_errno();
	if (fstat(fd, &st) < 0)
		return neg_errno();
	if (!S_ISREG(st.st_mode))
		return 0;
	if (start) {
		/* A hint: the wait (fdatasync()) is what counts. */
		sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		return 0;
	}
	return fdatasync(fd) < 0 ? neg_errno() : 0;
}

int spool_sync_dirs(struct spool *s, const bool *changed)
{
	int i, r;

	for (i = 0; i < _SPOOL_STATE_MAX; i++) {
		if (!changed[i])
			continue;
		r = kw_fsync_dirfd(s->fd[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Move NAME from state a to state b, under a free name in b; fsync both
 * when @sync (a batch syncs the directories once, after all its moves). */
int spool_move(struct spool *s, const char *name, enum spool_state a, enum spool_state b,
	       char *final, size_t n, bool sync)
{
	char dst[NAME_MAX + 1];
	int i, r = 0;

	snprintf(dst, sizeof(dst), "%s", name);
	for (i = 1;; i++) {
		if (renameat2(s->fd[a], name, s->fd[b], dst, RENAME_NOREPLACE) == 0)
			break;
		if (errno != EEXIST || i > 9999)
			return neg_errno();
		snprintf(dst, sizeof(dst), "%.240s.%d", name, i);
	}
	if (sync) {
		r = kw_fsync_dirfd(s->fd[b]);
		if (r == 0 && a != b)
			r = kw_fsync_dirfd(s->fd[a]);
	}
	if (final)
		snprintf(final, n, "%s", dst);
	s->count[b]++;
	spool_tally_move(s, a, name, b, dst);
	if (b == SPOOL_QUEUED)
		spool_queue_noted(s, dst);
	return r;
}

static int move(struct spool *s, const char *name, enum spool_state a, enum spool_state b,
		char *final, size_t n)
{
	return spool_move(s, name, a, b, final, n, true);
}

bool spool_blob_name(const struct dirent *de)
{
	return de->d_name[0] != '.' && (de->d_type == DT_REG || de->d_type == DT_UNKNOWN);
}

/* The spool's own directories in its root, and temporary (dot) names. */
bool spool_not_queued(const char *name)
{
	int i;

	if (name[0] == '.' || strcmp(name, SPOOL_TMP) == 0)
		return true;
	for (i = 1; i < _SPOOL_STATE_MAX; i++)
		if (strcmp(name, spool_dir_name[i]) == 0)
			return true;
	return false;
}

/* Why an entry of the queue is no blob, NULL if it is one. */
const char *spool_unfit_reason(mode_t m)
{
	if (S_ISREG(m))
		return NULL;
	if (S_ISDIR(m))
		return "a directory, not a blob";
	if (S_ISLNK(m))
		return "a symbolic link, not a blob (links are not followed)";
	if (S_ISFIFO(m))
		return "a FIFO, not a blob";
	if (S_ISSOCK(m))
		return "a socket, not a blob";
	return "a device node, not a blob";
}

static int is_regular(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return neg_errno();
	return S_ISREG(st.st_mode);
}

/*
 * A fresh directory stream over state directory @st (its own fd, so that
 * the spool's fd keeps its offset).  NULL with *err set on failure.
 */
DIR *spool_opendir(struct spool *s, enum spool_state st, int *err)
{
	DIR *d;
	int fd;

	fd = openat(s->fd[st], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*err = neg_errno();
		return NULL;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		*err = -ENOMEM;
	}
	return d;
}

int spool_recover(struct spool *s, const char *boot_id,
		  void (*cb)(const struct spool_result *, void *), void *ud)
{
	return spool_recover_pmsg(s, boot_id, NULL, cb, ud);
}

int spool_recover_pmsg(struct spool *s, const char *boot_id, const char *pmsg,
		       void (*cb)(const struct spool_result *, void *), void *ud)
{
	bool prev_boot;
	_cleanup_free_ char *last = NULL;
	char stamp[PATH_MAX + 8], pack[NAME_MAX + 1] = "";
	struct dirent *de;
	DIR *d;
	int err, r = 0;

	/* The boot id of the last recovery, "" if none is recorded.  The
	 * producers may write the directory: only a regular file is read,
	 * never through a symlink nor by an open that waits (a FIFO), and
	 * anything else is replaced below. */
	snprintf(stamp, sizeof(stamp), "%s/.boot", s->dir);
	if (kw_read_regular(stamp, 64, &last, NULL) < 0 && !(last = strdup("")))
		return -ENOMEM;
	last[strcspn(last, "\n")] = '\0';
	/* Claimed after the last recovery, by the daemon it started. */
	prev_boot = boot_id && last[0] && strcmp(last, boot_id) != 0;
	/* A batch's blobs that ran move on, those that never ran are queued
	 * again: what is left is the blob in flight, or what nothing tells. */
	r = spool_batch_recover(s, prev_boot, pmsg, cb, ud);
	if (r < 0)
		return r;
	/* A pack's blob in flight is set aside; the pack goes on later. */
	r = spool_pack_recover(s, prev_boot, pmsg, cb, ud, pack, sizeof(pack));
	if (r < 0)
		return r;
	d = spool_opendir(s, SPOOL_INFLIGHT, &err);
	if (!d)
		return err;
	while ((de = readdir(d))) {
		struct spool_result res = { .state = SPOOL_INTERRUPTED };
		struct stat st;

		if (de->d_name[0] == '.' || strcmp(de->d_name, pack) == 0)
			continue;
		if (fstatat(s->fd[SPOOL_INFLIGHT], de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* gone meanwhile */
		if (!S_ISREG(st.st_mode)) {
			/* Swapped in for a blob before its claim: no blob, and
			 * nothing may be left of its name here. */
			r = spool_refuse_from(s, SPOOL_INFLIGHT, de->d_name,
					      spool_unfit_reason(st.st_mode), &res);
			if (r < 0)
				break;
			if (cb)
				cb(&res, ud);
			continue;
		}
		snprintf(res.name, sizeof(res.name), "%s", de->d_name);
		res.size = st.st_size;
		res.prev_boot = prev_boot;
		r = move(s, de->d_name, SPOOL_INFLIGHT, SPOOL_INTERRUPTED, res.final_name,
			 sizeof(res.final_name));
		if (r < 0)
			break;
		if (cb)
			cb(&res, ud);
	}
	closedir(d);
	if (r == 0 && boot_id && strcmp(last, boot_id) != 0)
		r = kw_replace_file(stamp, boot_id, strlen(boot_id));
	return r;
}

int spool_next(struct spool *s, char *name, size_t n, const char **unfit)
{
	struct stat st;
	int r;

	r = spool_queue_next(s, false, name, n, &st);
	if (r < 0)
		return r;
	*unfit = spool_unfit_reason(st.st_mode);
	return 0;
}

int spool_claim(struct spool *s, const char *name)
{
	/* A blob of the same name left in inflight/ would be overwritten:
	 * recovery runs first, so that only happens if two daemons share a
	 * spool, and then EEXIST is the right answer. */
	if (renameat2(s->fd[SPOOL_QUEUED], name, s->fd[SPOOL_INFLIGHT], name,
		      RENAME_NOREPLACE) < 0)
		return neg_errno();
	s->count[SPOOL_INFLIGHT]++;
	spool_tally_move(s, SPOOL_QUEUED, name, SPOOL_INFLIGHT, name);
	{
		int r = kw_fsync_dirfd(s->fd[SPOOL_INFLIGHT]);

		if (r == 0)
			r = kw_fsync_dirfd(s->fd[SPOOL_QUEUED]);
		return r;
	}
}

/* Written since the last events read (with a second's slack: file times
 * are coarse), when an overflow lost those of its making. */
static bool unsure(struct spool *s, const struct stat *st)
{
	int64_t m = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;

	return S_ISREG(st->st_mode) && st->st_nlink == 1 && m >= s->settled_ns - 1000000000;
}

/* An event after @off in the @len bytes of @buf renames NAME in. */
static bool moved_in_later(const char *buf, size_t off, size_t len, const char *name)
{
	const struct inotify_event *e = (const void *)(buf + off);

	for (off += sizeof(*e) + e->len; off < len; off += sizeof(*e) + e->len) {
		e = (const void *)(buf + off);
		if (e->mask & IN_MOVED_TO && e->len && strcmp(e->name, name) == 0)
			return true;
	}
	return false;
}

static void report_refused(struct spool *s, const struct spool_result *res)
{
	if (s->on_refused)
		s->on_refused(res, s->refused_ud);
}

/* After an overflow: the queue's entries not known whole, refused. */
static int refuse_unsure(struct spool *s)
{
	struct spool_result res;
	struct dirent *de;
	int err, r = 0;
	DIR *d;

	d = spool_opendir(s, SPOOL_QUEUED, &err);
	if (!d)
		return err;
	while ((de = readdir(d))) {
		struct stat st;
		int k;

		if (spool_not_queued(de->d_name) ||
		    fstatat(s->fd[SPOOL_QUEUED], de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !unsure(s, &st))
			continue;
		k = spool_refuse_from(s, SPOOL_QUEUED, de->d_name, SPOOL_UNSURE, &res);
		if (k == -ENOENT)
			continue;
		if (res.moved)
			report_refused(s, &res);
		if (k < 0 && !r)
			r = k;
	}
	closedir(d);
	return r;
}

int spool_settle_claimed(struct spool *s, char (*claimed)[NAME_MAX + 1], unsigned int n,
			 const char **why)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool overflow = false, *made = NULL;
	unsigned int i;
	int r = 0;

	for (i = 0; i < n; i++)
		why[i] = NULL;
	if (s->ino_fd < 0)
		return 0;
	if (n) {
		made = calloc(n, sizeof(*made));
		if (!made)
			return -ENOMEM;
	}
	for (;;) {
		const struct inotify_event *e;
		ssize_t len = read(s->ino_fd, buf, sizeof(buf));
		size_t off;

		if (len < 0 && errno == EINTR)
			continue;
		if (len < 0 && errno != EAGAIN)
			r = neg_errno();
		if (len <= 0)
			break;
		for (off = 0; off < (size_t)len; off += sizeof(*e) + e->len) {
			struct spool_result res;
			int k;

			e = (const void *)(buf + off);
			if (e->mask & IN_Q_OVERFLOW)
				overflow = true;
			if (e->len && e->mask & (IN_CREATE | IN_MOVED_TO)) {
				spool_queue_noted(s, e->name);
				spool_tally_stale(s, SPOOL_QUEUED);
			}
			if (!e->len || e->mask & IN_ISDIR || spool_not_queued(e->name))
				continue;
			for (i = 0; i < n && strcmp(claimed[i], e->name); i++)
				;
			if (i < n) {
				/* What its last event says, checked below. */
				made[i] = e->mask & IN_CREATE;
				continue;
			}
			if (!(e->mask & IN_CREATE) || moved_in_later(buf, off, len, e->name))
				continue;
			k = spool_created(s, e->name, &res);
			if (k > 0 || (k < 0 && res.moved))
				report_refused(s, &res);
			if (k < 0 && !r)
				r = k;
		}
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (fstatat(s->fd[SPOOL_INFLIGHT], claimed[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		/* A hard link of a finished file arrives whole. */
		if (made[i] && S_ISREG(st.st_mode) && st.st_nlink == 1)
			why[i] = SPOOL_IN_PLACE;
		else if (overflow && unsure(s, &st))
			why[i] = SPOOL_UNSURE;
	}
	free(made);
	if (overflow) {
		int k;

		/* What came in meanwhile is not known: the queue is read again. */
		spool_queue_reread(s);
		k = refuse_unsure(s);

		if (k < 0 && !r)
			r = k;
	}
	if (!r)
		s->settled_ns = now_ns();
	return r;
}

int spool_settle(struct spool *s)
{
	return spool_settle_claimed(s, NULL, 0, NULL);
}

int spool_claim_blob(struct spool *s, const char *name, struct spool_result *ret)
{
	char claimed[1][NAME_MAX + 1];
	const char *why;
	int r;

	ret->moved = false;
	r = spool_claim(s, name);
	if (r < 0)
		return r;
	snprintf(claimed[0], sizeof(claimed[0]), "%s", name);
	r = spool_settle_claimed(s, claimed, 1, &why);
	if (r == -ENOMEM) {
		/* Not known whether it was made in place: not claimed. */
		spool_unclaim(s, name);
		return r;
	}
	/* Another entry's failed refusal is its own claim's business. */
	if (!why)
		return 0;
	r = spool_refuse_from(s, SPOOL_INFLIGHT, name, why, ret);
	return r < 0 ? r : 1;
}

int spool_unclaim(struct spool *s, const char *name)
{
	char final[NAME_MAX + 1] = "";
	int r;

	/* A blob of its name queued meanwhile: it goes back under a free
	 * name, not left in inflight/ for its namesake's claim to fail on. */
	r = spool_move(s, name, SPOOL_INFLIGHT, SPOOL_QUEUED, final, sizeof(final), true);
	if (final[0] && s->count[SPOOL_INFLIGHT])
		s->count[SPOOL_INFLIGHT]--;
	return r;
}

void spool_input_close(struct spool *s)
{
	if (s->input_fd >= 0)
		close(s->input_fd);
	s->input_fd = -1;
	s->input_kept = 0;
}

/* The input kept open for a batch, opened now if need be; -1 (and
 * input_kept -1) when it is no debugfs file. */
static int input_kept_fd(struct spool *s)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	if (s->input_kept)
		return s->input_fd;
	fd = open(s->input, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;	/* kw_write_once() says why */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fstatfs(fd, &sfs) < 0 ||
	    sfs.f_type != DEBUGFS_MAGIC) {
		close(fd);
		s->input_kept = -1;
		return -1;
	}
	s->input_fd = fd;
	s->input_kept = 1;
	return fd;
}

/* The kept input @fd is no longer the file at the input's path. */
static bool input_replaced(const struct spool *s, int fd)
{
	struct stat kept, now;

	if (fstat(fd, &kept) < 0 || stat(s->input, &now) < 0)
		return true;
	return kept.st_ino != now.st_ino || kept.st_dev != now.st_dev;
}

static int write_input(struct spool *s, const char *buf, size_t len)
{
	int fd = s->synced ? input_kept_fd(s) : -1;
	ssize_t n;

	if (fd < 0)
		return kw_write_once(s->input, buf, len);
	n = pwrite(fd, buf, len, 0);
	if (n < 0 && errno == ESPIPE) {
		spool_input_close(s);
		s->input_kept = -1;
		return kw_write_once(s->input, buf, len);
	}
	if (n < 0 && errno == EIO && input_replaced(s, fd)) {
		/* debugfs refused it unrun: its file was removed (a module's
		 * target, unloaded); the one there now, if any, takes it. */
		spool_input_close(s);
		return kw_write_once(s->input, buf, len);
	}
	if (n < 0)
		return neg_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int spool_write_blob(struct spool *s, const char *buf, size_t len, bool *ours)
{
	unsigned int i;

	for (i = 0; i < s->repeat; i++) {
		int r = write_input(s, buf, len);

		if (r < 0) {
			/* Opening the input out of descriptors is ours, and
			 * so is a target whose module is going (ENODEV): the
			 * blob waits.  What the write returns is the kernel's
			 * verdict, a missing input too (ENOENT: rejected). */
			*ours = r == -EMFILE || r == -ENFILE || r == -ENODEV;
			return r;
		}
	}
	*ours = false;
	return 0;
}

int spool_exec(struct spool *s, const char *name, size_t *ret_size, bool *ours)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int bfd = -1;
	size_t len = 0;
	struct stat st;

	/* Until the kernel has the blob, a failure is ours. */
	*ours = true;
	s->unfit = NULL;
	/* Its type was looked at before the claim: a producer may have
	 * renamed a FIFO, a device or a symlink over it since.  No producer
	 * writes inflight/, so what is there now is what gets opened; still,
	 * no open that waits or follows a link. */
	if (fstatat(s->fd[SPOOL_INFLIGHT], name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return neg_errno();
	if (!S_ISREG(st.st_mode))
		goto unfit;
	bfd = openat(s->fd[SPOOL_INFLIGHT], name,
		     O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (bfd < 0) {
		/* ELOOP: a symlink, EACCES: a producer's file the daemon may
		 * not read; the producer's mistake, not ours. */
		*ours = errno != ELOOP && errno != EACCES;
		return neg_errno();
	}
	if (fstat(bfd, &st) < 0)
		return neg_errno();
	if (!S_ISREG(st.st_mode))
		goto unfit;
	if (st.st_size > KW_BLOB_MAX) {
		*ours = false;
		return -EFBIG;
	}
	/* The write may take the kernel down: the blob must outlive it (a
	 * batch synced its blobs' data when it claimed them). */
	if (!s->synced && fsync(bfd) < 0)
		return neg_errno();
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf)
		return -ENOMEM;
	while (len < (size_t)st.st_size) {
		ssize_t n = read(bfd, buf + len, st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return neg_errno();
		if (n == 0)
			break;
		len += n;
	}
	if (ret_size)
		*ret_size = len;
	return spool_write_blob(s, buf, len, ours);
unfit:
	/* Refused unread, as the scan refuses it (spool_finish() says why). */
	s->unfit = spool_unfit_reason(st.st_mode);
	*ours = false;
	return -EINVAL;
}

/* rejected/FINAL.errno: "ERRNO strerror[: why]". */
int spool_write_errno(struct spool *s, const char *final, int err, const char *why, bool sync)
{
	char ename[NAME_MAX + 1], text[160];
	int len, r;

	snprintf(ename, sizeof(ename), "%.248s.errno", final);
	len = snprintf(text, sizeof(text), "%d %s%s%s\n", -err, strerror(-err), why ? ": " : "",
		       why ? why : "");
	r = kw_write_file_at(s->fd[SPOOL_REJECTED], ename, text, len);
	if (r == 0 && sync)
		r = kw_fsync_dirfd(s->fd[SPOOL_REJECTED]);
	return r;
}

static int write_errno(struct spool *s, const char *final, int err, const char *why)
{
	return spool_write_errno(s, final, err, why, true);
}

int spool_finish_sync(struct spool *s, const char *name, int result, const char *why,
		      struct spool_result *ret, bool sync)
{
	enum spool_state st = result < 0 ? SPOOL_REJECTED : SPOOL_DONE;
	char reason[sizeof(ret->why)];
	int r;

	/* @why may be ret's own, which is cleared now. */
	snprintf(reason, sizeof(reason), "%s", result < 0 && why ? why : "");
	memset(ret, 0, sizeof(*ret));
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	memcpy(ret->why, reason, sizeof(ret->why));
	ret->state = st;
	ret->err = result < 0 ? result : 0;
	r = spool_move(s, name, SPOOL_INFLIGHT, st, ret->final_name, sizeof(ret->final_name),
		       sync);
	if (r < 0 && !ret->final_name[0])
		return r;
	/* Moved: only the record of why is left to write. */
	ret->moved = true;
	if (r == 0 && st == SPOOL_REJECTED)
		r = spool_write_errno(s, ret->final_name, result, ret->why[0] ? ret->why : NULL,
				      sync);
	return r;
}

int spool_finish(struct spool *s, const char *name, int result, struct spool_result *ret)
{
	const char *why = s->unfit;

	s->unfit = NULL;
	return spool_finish_sync(s, name, result, why, ret, true);
}

int spool_finish_again(struct spool *s, struct spool_result *ret)
{
	char name[NAME_MAX + 1];
	int r;

	if (!ret->moved) {
		size_t size = ret->size;

		snprintf(name, sizeof(name), "%s", ret->name);
		r = spool_finish_sync(s, name, ret->err, ret->why, ret, true);
		ret->size = size;
		return r;
	}
	r = kw_fsync_dirfd(s->fd[ret->state]);
	if (r == 0 && ret->state == SPOOL_REJECTED)
		r = write_errno(s, ret->final_name, ret->err, ret->why[0] ? ret->why : NULL);
	return r;
}

struct kept {
	int dfd;
	bool rejected;
};

/* A pack's PACK.results beside it in done/. */
static bool pack_results(int dfd, const char *name)
{
	size_t n = strlen(name), k = sizeof(SPOOL_PACK_RESULTS) - 1;
	char pack[NAME_MAX + 1];

	if (n <= k || strcmp(name + n - k, SPOOL_PACK_RESULTS) != 0)
		return false;
	snprintf(pack, sizeof(pack), "%.*s", (int)(n - k), name);
	return spool_pack_name(pack) && faccessat(dfd, pack, F_OK, AT_SYMLINK_NOFOLLOW) == 0;
}

/* An entry of done/, rejected/ or interrupted/: in rejected/ a blob's
 * NAME.errno goes with it and is not counted apart, in done/ a pack's
 * results. */
static bool kept_entry(const char *name, const struct stat *st, void *ud)
{
	const struct kept *k = ud;

	(void)st;
	if (k->rejected)
		return !kw_ends_with(name, ".errno");
	return !pack_results(k->dfd, name);
}

/* One kept entry (and its .errno or .results): a refused directory only
 * if empty; one gone or not empty is left (> 0). */
static int remove_kept(int dfd, const char *name, void *ud)
{
	const struct kept *k = ud;
	char ename[NAME_MAX + 1];

	if (unlinkat(dfd, name, 0) < 0 &&
	    (errno != EISDIR || unlinkat(dfd, name, AT_REMOVEDIR) < 0))
		return errno == ENOENT || errno == ENOTEMPTY ? 1 : neg_errno();
	if (k->rejected)
		snprintf(ename, sizeof(ename), "%.248s.errno", name);
	else if (spool_pack_name(name))
		snprintf(ename, sizeof(ename), "%.240s" SPOOL_PACK_RESULTS, name);
	else
		return 0;
	if (unlinkat(dfd, ename, 0) < 0 && errno != ENOENT)
		return neg_errno();
	return 0;
}

int spool_prune(struct spool *s, enum spool_state st, unsigned int keep, unsigned int *removed,
		unsigned int *left)
{
	static const struct kw_keep_ops ops = { .counts = kept_entry, .remove = remove_kept };
	struct kept k = { .dfd = s->fd[st], .rejected = st == SPOOL_REJECTED };

	spool_tally_stale(s, st);
	/* A move changes the inode's ctime: oldest moved in first. */
	return kw_keep_newest(s->fd[st], keep, &ops, &k, removed, left);
}

int spool_refuse_from(struct spool *s, enum spool_state from, const char *name, const char *why,
		      struct spool_result *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	snprintf(ret->name, sizeof(ret->name), "%s", name);
	snprintf(ret->why, sizeof(ret->why), "%s", why);
	ret->state = SPOOL_REJECTED;
	ret->err = -EINVAL;
	r = move(s, name, from, SPOOL_REJECTED, ret->final_name, sizeof(ret->final_name));
	if (r < 0 && !ret->final_name[0])
		return r;
	ret->moved = true;
	return r < 0 ? r : write_errno(s, ret->final_name, -EINVAL, why);
}

int spool_refuse(struct spool *s, const char *name, const char *why, struct spool_result *ret)
{
	return spool_refuse_from(s, SPOOL_QUEUED, name, why, ret);
}

int spool_created(struct spool *s, const char *name, struct spool_result *ret)
{
	struct stat st;
	int r;

	if (spool_not_queued(name))
		return 0;
	if (fstatat(s->fd[SPOOL_QUEUED], name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : neg_errno();
	/* Anything else is refused by the scan; a hard link to a finished
	 * file (link count above one) arrives whole, as a rename does. */
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1)
		return 0;
	r = spool_refuse(s, name, SPOOL_IN_PLACE, ret);
	if (r == -ENOENT)
		return 0;	/* renamed away already: not in the queue */
	return r < 0 ? r : 1;
}

int spool_step(struct spool *s, struct spool_result *ret)
{
	char name[NAME_MAX + 1];
	const char *unfit;
	size_t size = 0;
	int r, result;
	bool ours;

	r = spool_next(s, name, sizeof(name), &unfit);
	if (r < 0)
		return r;
	if (unfit)
		return spool_refuse(s, name, unfit, ret);
	r = spool_claim_blob(s, name, ret);
	if (r != 0)
		return r < 0 ? r : 0;
	result = spool_exec(s, name, &size, &ours);
	if (result < 0 && ours) {
		r = spool_unclaim(s, name);
		return r < 0 ? r : result;
	}
	r = spool_finish(s, name, result, ret);
	ret->size = size;
	return r;
}

static long count_read(struct spool *s, enum spool_state st)
{
	struct dirent *de;
	long n = 0;
	DIR *d;
	int err;

	d = spool_opendir(s, st, &err);
	if (!d)
		return err;
	while ((de = readdir(d))) {
		if (!counted(st, de->d_name))
			continue;
		/* Queued: blobs (packs too), not what is to be refused; set
		 * aside: whatever it is (rejected/ holds non-blobs too). */
		if (st == SPOOL_QUEUED && de->d_type != DT_REG &&
		    (de->d_type != DT_UNKNOWN || is_regular(s->fd[st], de->d_name) != 1))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

long spool_count(struct spool *s, enum spool_state st)
{
	struct spool_tally *t = &s->tally[st];
	struct timespec ts;
	int64_t now;
	long n;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	if (t->at && now - t->at < (t->stale ? SPOOL_COUNT_FRESH_NS : SPOOL_COUNT_TTL_NS))
		return t->n;
	n = count_read(s, st);
	if (n < 0) {
		t->at = 0;
		return n;
	}
	t->n = n;
	t->at = now;
	t->stale = false;
	return n;
}
