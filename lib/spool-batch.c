// SPDX-License-Identifier: GPL-2.0
/* Spool batches: the per-blob fsyncs of spool.c amortised over up to
 * SPOOL_BATCH_MAX blobs, with what each blob's life records made cheap
 * enough to do per blob (spool.h says why it is as safe).
 *
 * inflight/.progress holds the batch: its id, the names claimed, and per
 * blob a state (claimed, started, finished) and the kernel's verdict.  The
 * header is synced with the claims; the states are plain pwrite()s, which
 * the page cache keeps when the daemon dies.  Each state change is also a
 * line in pmsg, "kwatchd-spool ID I start" and "kwatchd-spool ID I = R",
 * which ramoops keeps when the kernel dies, for the next boot. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"
#include "spool-int.h"
#include "util.h"

#define PROGRESS_MAGIC "KWSPOOL1"
#define PMSG_READ_MAX (1 << 20)

struct progress {
	char magic[8];
	uint64_t id;		/* 0: no batch */
	uint32_t n;
	uint32_t pad;
	struct spool_entry e[SPOOL_BATCH_MAX];
	char name[SPOOL_BATCH_MAX][NAME_MAX + 1];
};

int spool_batch_enable(struct spool *s, const char *pmsg)
{
	int fd, r;

	fd = open(pmsg, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	s->prog_fd = openat(s->fd[SPOOL_INFLIGHT], SPOOL_PROGRESS,
			    O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (s->prog_fd < 0) {
		r = neg_errno();
		close(fd);
		return r;
	}
	/* Its blocks now: a full disk later must not fail its records. */
	r = -posix_fallocate(s->prog_fd, 0, sizeof(struct progress));
	if (r < 0) {
		close(s->prog_fd);
		s->prog_fd = -1;
		close(fd);
		return r;
	}
	s->pmsg_fd = fd;
	return 0;
}

int spool_pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n < 0)
		return neg_errno();
	return (size_t)n == len ? 0 : -EIO;
}

int spool_record(struct spool *s, int fd, off_t base, uint64_t id, unsigned int i,
		 enum spool_entry_state st, int result, const int *prev)
{
	static const char *const word[] = {
		[ENTRY_CLAIMED] = "claimed",
		[ENTRY_STARTED] = "start",
	};
	struct spool_entry e[2];
	unsigned int first = i, n = 0;
	char line[192];
	int len = 0, r;
	ssize_t w;

	if (prev && st == ENTRY_STARTED && i > 0) {
		first = i - 1;
		e[n++] = (struct spool_entry){ ENTRY_FINISHED, *prev };
		len = snprintf(line, sizeof(line), SPOOL_PMSG_TAG " %016" PRIx64 " %u = %d\n",
			       id, i - 1, *prev);
	}
	e[n++] = (struct spool_entry){ st, st == ENTRY_FINISHED ? result : 0 };
	len += snprintf(line + len, sizeof(line) - len, SPOOL_PMSG_TAG " %016" PRIx64 " %u ", id, i);
	if (st == ENTRY_FINISHED)
		len += snprintf(line + len, sizeof(line) - len, "= %d\n", result);
	else
		len += snprintf(line + len, sizeof(line) - len, "%s\n", word[st]);
	r = spool_pwrite_all(fd, e, n * sizeof(e[0]), base + first * sizeof(e[0]));
	if (r < 0)
		return r;
	if (s->pmsg_fd < 0) {
		/* No pmsg: a start is on the disk before the blob runs. */
		if (st == ENTRY_STARTED && fdatasync(fd) < 0)
			return neg_errno();
		return 0;
	}
	/* pmsg takes the lines whole or fails.  Without the start line a
	 * crash in this write could not be told from the others: the blob
	 * is not written then (its caller retries it later). */
	w = write(s->pmsg_fd, line, len);
	if (w < 0)
		return neg_errno();
	/* Cut short: errno says nothing of it. */
	return w == len ? 0 : -EIO;
}

/*
 * Entry i's new state, in the page cache and in pmsg, neither synced: the
 * one outlives the daemon, the other the kernel.  A verdict waits for the
 * next blob's start and goes with it, one pwrite() and one pmsg write for
 * the two (a daemon killed between them sets the blob that ran aside).
 */
static int record(struct spool *s, struct spool_batch *b, unsigned int i,
		  enum spool_entry_state st)
{
	bool prev = b->unrecorded && st == ENTRY_STARTED && i > 0;
	int r;

	r = spool_record(s, s->prog_fd, offsetof(struct progress, e), b->id, i, st,
			 st == ENTRY_FINISHED ? b->result[i] : 0, prev ? &b->result[i - 1] : NULL);
	if (r == 0)
		b->unrecorded = false;
	return r;
}

/* The claimed that were made in place (or are not known whole) are
 * refused, out of the batch, before it is recorded. */
static int settle(struct spool *s, struct spool_batch *b, struct progress *p)
{
	const char *why[SPOOL_BATCH_MAX];
	unsigned int i, n = 0;
	int r;

	r = spool_settle_claimed(s, b->name, b->n, why);
	if (r == -ENOMEM) {
		for (i = 0; i < b->n; i++)
			spool_move(s, b->name[i], SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0, false);
		b->n = 0;
		return r;
	}
	for (i = 0; i < b->n; i++) {
		struct spool_result res;

		if (why[i]) {
			r = spool_refuse_from(s, SPOOL_INFLIGHT, b->name[i], why[i], &res);
			if (res.moved && s->on_refused)
				s->on_refused(&res, s->refused_ud);
			if (!res.moved)
				spool_move(s, b->name[i], SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0,
					   false);
			continue;
		}
		if (n != i) {
			memcpy(b->name[n], b->name[i], sizeof(b->name[n]));
			memcpy(p->name[n], p->name[i], sizeof(p->name[n]));
		}
		n++;
	}
	b->n = n;
	return 0;
}

int spool_batch_claim(struct spool *s, struct spool_batch *b, unsigned int max,
		      unsigned int *unfit)
{
	_cleanup_free_ struct progress *p = NULL;
	unsigned int i, n = 0;
	int r;

	*unfit = 0;
	b->n = b->ran = b->moved = 0;
	b->unrecorded = false;
	memset(b->res, 0, sizeof(b->res));
	spool_input_close(s);
	if (s->prog_fd < 0)
		return -EINVAL;
	if (max > SPOOL_BATCH_MAX)
		max = SPOOL_BATCH_MAX;
	if (!max)
		return 0;
	r = spool_queue_take(s, b->name, max, &b->n, unfit);
	if (r < 0 || !b->n)
		return r;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < b->n; i++) {
		if (renameat2(s->fd[SPOOL_QUEUED], b->name[i], s->fd[SPOOL_INFLIGHT],
			      b->name[i], RENAME_NOREPLACE) < 0) {
			if (errno == ENOENT)
				continue;	/* taken back by its producer */
			r = neg_errno();
			/* Those not claimed left the list: read again. */
			spool_queue_reread(s);
			break;
		}
		spool_tally_move(s, SPOOL_QUEUED, b->name[i], SPOOL_INFLIGHT, b->name[i]);
		if (n != i)
			memcpy(b->name[n], b->name[i], sizeof(b->name[n]));
		memcpy(p->name[n], b->name[n], sizeof(p->name[n]));
		n++;
	}
	b->n = n;
	if (!n)
		return r;
	s->count[SPOOL_INFLIGHT] += n;
	r = settle(s, b, p);
	if (r < 0 || !b->n)
		return r;
	n = b->n;
	if (getrandom(&b->id, sizeof(b->id), 0) != sizeof(b->id) || !b->id)
		b->id = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ s->count[SPOOL_INFLIGHT];
	memcpy(p->magic, PROGRESS_MAGIC, sizeof(p->magic));
	p->id = b->id;
	p->n = n;
	r = spool_pwrite_all(s->prog_fd, p, sizeof(*p), 0);
	/* The claims, the blobs' data and the header on the disk, not the
	 * whole file system: each blob's data (its write-back started for
	 * all at once, then waited for), the header, and the two
	 * directories whose entries changed. */
	for (i = 0; r == 0 && i < n; i++)
		spool_sync_data(s, b->name[i], true);
	for (i = 0; r == 0 && i < n; i++)
		r = spool_sync_data(s, b->name[i], false);
	if (r == 0 && fdatasync(s->prog_fd) < 0)
		r = neg_errno();
	if (r == 0) {
		bool changed[_SPOOL_STATE_MAX] = {
			[SPOOL_QUEUED] = true, [SPOOL_INFLIGHT] = true,
		};

		r = spool_sync_dirs(s, changed);
	}
	if (r < 0) {
		/* Not claimed after all: back to the queue (under a free
		 * name if one of theirs came meanwhile), as they were. */
		for (i = 0; i < n; i++)
			spool_move(s, b->name[i], SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0, false);
		b->n = 0;
	}
	return r;
}

int spool_batch_exec(struct spool *s, struct spool_batch *b, unsigned int i, bool *ours)
{
	int r;

	*ours = true;
	if (i >= b->n || i != b->ran)
		return -EINVAL;
	r = record(s, b, i, ENTRY_STARTED);
	if (r < 0)
		return r;
	s->synced = true;
	r = spool_exec(s, b->name[i], &b->size[i], ours);
	s->synced = false;
	/* No blob after all (swapped before its claim): why, for its .errno. */
	if (s->unfit)
		snprintf(b->res[i].why, sizeof(b->res[i].why), "%s", s->unfit);
	s->unfit = NULL;
	if (r < 0 && *ours) {
		/* Never written: claimed again, it goes back to the queue. */
		record(s, b, i, ENTRY_CLAIMED);
		return r;
	}
	b->result[i] = r;
	b->ran = i + 1;
	b->unrecorded = true;	/* with the next start, or the finish */
	return r;
}

/* Blob i ran with @result: to done/ or rejected/ (+ NAME.errno). */
static int move_ran(struct spool *s, const char *name, int result, struct spool_result *res,
		    bool sync)
{
	size_t size = res->size;
	int r;

	/* Moved on an earlier try: only the record of why is left. */
	if (res->moved)
		return res->state == SPOOL_REJECTED ?
		       spool_write_errno(s, res->final_name, result,
					 res->why[0] ? res->why : NULL, sync) : 0;
	r = spool_finish_sync(s, name, result, res->why, res, sync);
	res->size = size;
	return r;
}

int spool_batch_finish(struct spool *s, struct spool_batch *b)
{
	static const struct spool_entry none;
	bool changed[_SPOOL_STATE_MAX] = { [SPOOL_INFLIGHT] = true };
	uint64_t zero = 0;
	unsigned int i;
	int r;

	spool_input_close(s);
	/* The last verdict; a failure costs precision only (recovery would
	 * set that blob aside, not replay it). */
	if (b->unrecorded)
		record(s, b, b->ran - 1, ENTRY_FINISHED);
	for (; b->moved < b->n; b->moved++) {
		i = b->moved;
		if (i < b->ran) {
			if (!b->res[i].moved)
				b->res[i].size = b->size[i];
			r = move_ran(s, b->name[i], b->result[i], &b->res[i], false);
		} else {
			/* Never written: queued again, under its own name. */
			r = spool_move(s, b->name[i], SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0,
				       false);
			if (r == -ENOENT)
				r = 0;
		}
		if (r < 0)
			return r;
	}
	/* The directories whose entries changed (each NAME.errno was
	 * synced as it was written; the blobs' data when claimed). */
	for (i = 0; i < b->n; i++)
		changed[i < b->ran ? b->res[i].state : SPOOL_QUEUED] = true;
	r = spool_sync_dirs(s, changed);
	if (r < 0)
		return r;
	/* Nothing of the batch is left in inflight/; its record goes. */
	if (pwrite(s->prog_fd, &zero, sizeof(zero), offsetof(struct progress, id)) < 0 ||
	    pwrite(s->prog_fd, &none, sizeof(none), offsetof(struct progress, e[0])) < 0)
		return 0;	/* harmless: recovery finds none of its names */
	return 0;
}

bool spool_pmsg_states(const char *pmsg, uint64_t id, struct spool_entry *e, unsigned int n)
{
	char tag[64];
	const char *l;
	bool any = false;
	size_t tl;

	if (!pmsg)
		return false;
	tl = snprintf(tag, sizeof(tag), SPOOL_PMSG_TAG " %016" PRIx64 " ", id);
	for (l = pmsg; (l = strstr(l, tag)); l += tl) {
		unsigned int i;
		int result, k = 0;

		if (l != pmsg && l[-1] != '\n')
			continue;
		/* In the order written: the last line of a blob says. */
		if (sscanf(l + tl, "%u = %d%n", &i, &result, &k) == 2 && k && i < n) {
			e[i].state = ENTRY_FINISHED;
			e[i].result = result;
		} else if (sscanf(l + tl, "%u start%n", &i, &k) == 1 && k && i < n) {
			e[i].state = ENTRY_STARTED;
		} else if (sscanf(l + tl, "%u claimed%n", &i, &k) == 1 && k && i < n) {
			e[i].state = ENTRY_CLAIMED;
		} else {
			continue;
		}
		any = true;
	}
	return any;
}

int spool_batch_recover(struct spool *s, bool prev_boot, const char *pmsg,
			void (*cb)(const struct spool_result *, void *), void *ud)
{
	_cleanup_free_ struct progress *p = NULL;
	_cleanup_close_ int fd = -1;
	unsigned int i;
	int r = 0;

	fd = openat(s->fd[SPOOL_INFLIGHT], SPOOL_PROGRESS,
		    O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : neg_errno();
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if (pread(fd, p, sizeof(*p), 0) != sizeof(*p) ||
	    memcmp(p->magic, PROGRESS_MAGIC, sizeof(p->magic)) || !p->id)
		return 0;
	if (p->n > SPOOL_BATCH_MAX)
		p->n = SPOOL_BATCH_MAX;
	if (prev_boot) {
		/* The file's states may never have reached the disk: only
		 * pmsg tells, and without it the whole batch is set aside. */
		memset(p->e, 0, sizeof(p->e));
		if (!spool_pmsg_states(pmsg, p->id, p->e, p->n))
			goto forget;
	}
	for (i = 0; i < p->n; i++) {
		struct spool_result res = { 0 };
		struct stat st;

		p->name[i][NAME_MAX] = '\0';
		if (!p->name[i][0] || strchr(p->name[i], '/') ||
		    fstatat(s->fd[SPOOL_INFLIGHT], p->name[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;	/* moved on before the stop */
		switch (p->e[i].state) {
		case ENTRY_FINISHED:
			res.size = st.st_size;
			r = move_ran(s, p->name[i], p->e[i].result, &res, true);
			if (r < 0)
				return r;
			if (cb)
				cb(&res, ud);
			break;
		case ENTRY_CLAIMED:
			r = spool_move(s, p->name[i], SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0, true);
			if (r < 0)
				return r;
			break;
		default:
			break;	/* in flight: the caller sets it aside */
		}
	}
forget:
	p->id = 0;
	return spool_pwrite_all(fd, &p->id, sizeof(p->id), offsetof(struct progress, id));
}

/* Append the pmsg-* records of @dir, and of its subdirectories when
 * @depth (systemd-pstore's archive keeps records a level down). */
static void pmsg_collect(const char *dir, int depth, char **out, size_t *len)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		char *text = NULL, *grown;
		size_t n = 0;

		if (de->d_name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path))
			continue;
		if (depth && de->d_type == DT_DIR) {
			pmsg_collect(path, depth - 1, out, len);
			continue;
		}
		if (strncmp(de->d_name, "pmsg-", 5) != 0 ||
		    kw_read_file(path, PMSG_READ_MAX, &text, &n) < 0)
			continue;
		grown = *len + n + 2 <= 4 * PMSG_READ_MAX ? realloc(*out, *len + n + 2) : NULL;
		if (grown) {
			*out = grown;
			memcpy(*out + *len, text, n);
			*len += n;
			(*out)[(*len)++] = '\n';
			(*out)[*len] = '\0';
		}
		free(text);
	}
	closedir(d);
}

char *spool_pmsg_read(const char *pstore_dirs)
{
	_cleanup_free_ char *dirs = strdup(pstore_dirs ? pstore_dirs : "");
	char *out = NULL, *save = NULL, *dir;
	size_t len = 0;

	if (!dirs)
		return NULL;
	for (dir = strtok_r(dirs, " ", &save); dir; dir = strtok_r(NULL, " ", &save))
		pmsg_collect(dir, 1, &out, &len);
	return out;
}
