// SPDX-License-Identifier: GPL-2.0
/* Spool packs (spool.h): many blobs in one file, claimed and moved on with
 * one rename each, so that a blob costs its write and its records only.
 *
 * inflight/.pack holds the pack in flight: its id, name and blob count,
 * then an entry per blob (state and verdict) that spool_record() writes
 * as a batch's entries are written, with the same pmsg lines.  Recovery
 * sets aside the blob the records say was in flight, as a file of its own
 * in interrupted/, and leaves the pack in inflight/ with that entry marked,
 * for spool_pack_resume() to go on after it: nothing lost, nothing
 * replayed twice. */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#define PACK_PROGRESS ".pack"
#define PACK_PROGRESS_MAGIC "KWPACKP1"

struct pack_head {
	char magic[8];
	uint64_t id;		/* 0: no pack in flight */
	uint32_t n;
	uint32_t synced;	/* each start synced (no pmsg) */
	char name[NAME_MAX + 1];
};

#define ENTRY_OFF ((off_t)sizeof(struct pack_head))

bool spool_pack_name(const char *name)
{
	size_t n = strlen(name), k = sizeof(SPOOL_PACK_SUFFIX) - 1;

	return n > k && strcmp(name + n - k, SPOOL_PACK_SUFFIX) == 0;
}

int spool_pack_parse(const char *data, size_t len, uint32_t *off, uint32_t *size,
		     unsigned int *n, char *why, size_t why_len)
{
	size_t pos = sizeof(SPOOL_PACK_MAGIC) - 1;
	unsigned int k = 0;

	if (len < pos || memcmp(data, SPOOL_PACK_MAGIC, pos) != 0) {
		snprintf(why, why_len, "no " SPOOL_PACK_MAGIC " header: not a pack");
		return -EINVAL;
	}
	while (pos < len) {
		uint32_t sz;

		if (k == SPOOL_PACK_BLOBS) {
			snprintf(why, why_len, "more than %d blobs in one pack", SPOOL_PACK_BLOBS);
			return -E2BIG;
		}
		if (len - pos < sizeof(sz)) {
			snprintf(why, why_len, "blob %u at offset %zu: its length is cut short",
				 k, pos);
			return -EINVAL;
		}
		memcpy(&sz, data + pos, sizeof(sz));
		sz = le32toh(sz);
		if (!sz || sz > KW_BLOB_MAX) {
			snprintf(why, why_len, "blob %u at offset %zu: length %" PRIu32
				 ", not 1 to %d", k, pos, sz, KW_BLOB_MAX);
			return -EINVAL;
		}
		if (len - pos - sizeof(sz) < sz) {
			snprintf(why, why_len, "blob %u at offset %zu: %" PRIu32
				 " bytes, %zu left in the pack", k, pos, sz,
				 len - pos - sizeof(sz));
			return -EINVAL;
		}
		off[k] = pos + sizeof(sz);
		size[k] = sz;
		k++;
		pos += sizeof(sz) + sz;
	}
	if (!k) {
		snprintf(why, why_len, "a pack of no blobs");
		return -EINVAL;
	}
	*n = k;
	return 0;
}

int spool_pack_next(struct spool *s, char *name, size_t n)
{
	struct stat st;

	return spool_queue_next(s, true, name, n, &st);
}

static int forget(int fd);

static void release(struct spool_pack *p)
{
	free(p->data);
	p->data = NULL;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	p->name[0] = '\0';
	p->n = p->next = 0;
}

static void pack_init(struct spool_pack *p)
{
	memset(p, 0, offsetof(struct spool_pack, off));
	p->fd = -1;
	p->final_name[0] = '\0';
	p->moved = false;
}

/* The whole of inflight/NAME, at most SPOOL_PACK_BYTES, into p->data. */
static int read_pack(struct spool *s, const char *name, struct spool_pack *p)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = openat(s->fd[SPOOL_INFLIGHT], name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	if (fstat(fd, &st) < 0)
		return neg_errno();
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > SPOOL_PACK_BYTES)
		return -EFBIG;
	p->data = malloc(st.st_size ? st.st_size : 1);
	if (!p->data)
		return -ENOMEM;
	p->len = 0;
	while (p->len < (size_t)st.st_size) {
		ssize_t n = read(fd, p->data + p->len, st.st_size - p->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return neg_errno();
		if (n == 0)
			break;	/* cut by its producer meanwhile: parsed as it is */
		p->len += n;
	}
	return 0;
}

static int open_progress(struct spool *s, int flags)
{
	return openat(s->fd[SPOOL_INFLIGHT], PACK_PROGRESS,
		      O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | flags, 0600);
}

/* A pack not well formed: to rejected/ unrun, with why. */
static int reject(struct spool *s, struct spool_pack *p, const char *name, int err,
		  const char *why, struct spool_result *rej)
{
	int r;

	memset(rej, 0, sizeof(*rej));
	snprintf(rej->name, sizeof(rej->name), "%s", name);
	snprintf(rej->why, sizeof(rej->why), "%s", why);
	rej->state = SPOOL_REJECTED;
	rej->err = err;
	rej->size = p->len;
	release(p);
	r = spool_move(s, name, SPOOL_INFLIGHT, SPOOL_REJECTED, rej->final_name,
		       sizeof(rej->final_name), true);
	if (r < 0 && !rej->final_name[0])
		return r;
	rej->moved = true;
	if (r == 0)
		r = spool_write_errno(s, rej->final_name, err, why, true);
	return r < 0 ? r : 1;
}

int spool_pack_claim(struct spool *s, struct spool_pack *p, const char *name,
		     struct spool_result *rej)
{
	struct pack_head h = { 0 };
	char why[96];
	int r;

	pack_init(p);
	memset(rej, 0, sizeof(*rej));
	if (renameat2(s->fd[SPOOL_QUEUED], name, s->fd[SPOOL_INFLIGHT], name,
		      RENAME_NOREPLACE) < 0)
		return neg_errno();
	s->count[SPOOL_INFLIGHT]++;
	spool_tally_move(s, SPOOL_QUEUED, name, SPOOL_INFLIGHT, name);
	snprintf(p->name, sizeof(p->name), "%s", name);
	{
		char claimed[1][NAME_MAX + 1];
		const char *unfit;

		/* A pack made in place is refused as a blob is. */
		snprintf(claimed[0], sizeof(claimed[0]), "%s", name);
		r = spool_settle_claimed(s, claimed, 1, &unfit);
		if (r == -ENOMEM) {
			release(p);
			spool_move(s, name, SPOOL_INFLIGHT, SPOOL_QUEUED, NULL, 0, false);
			return r;
		}
		if (unfit)
			return reject(s, p, name, -EINVAL, unfit, rej);
	}
	r = read_pack(s, name, p);
	if (r == -EFBIG || r == -EINVAL) {
		snprintf(why, sizeof(why), r == -EFBIG ? "a pack of more than %d bytes" :
			 "not a regular file", SPOOL_PACK_BYTES);
		return reject(s, p, name, r, why, rej);
	}
	if (r == 0) {
		r = spool_pack_parse(p->data, p->len, p->off, p->size, &p->n, why, sizeof(why));
		if (r < 0)
			return reject(s, p, name, r, why, rej);
		memset(p->state, 0, p->n * sizeof(p->state[0]));
		memset(p->result, 0, p->n * sizeof(p->result[0]));
		p->fd = open_progress(s, O_CREAT);
		if (p->fd < 0)
			r = neg_errno();
	}
	if (r == 0) {
		if (getrandom(&p->id, sizeof(p->id), 0) != sizeof(p->id) || !p->id)
			p->id = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
				s->count[SPOOL_INFLIGHT];
		memcpy(h.magic, PACK_PROGRESS_MAGIC, sizeof(h.magic));
		h.id = p->id;
		h.n = p->n;
		h.synced = s->pmsg_fd < 0;
		snprintf(h.name, sizeof(h.name), "%s", name);
		/* The entries (all claimed) first, the header that names
		 * them last. */
		r = -posix_fallocate(p->fd, 0, ENTRY_OFF + p->n * sizeof(struct spool_entry));
		if (r == 0 && ftruncate(p->fd, ENTRY_OFF + p->n * sizeof(struct spool_entry)) < 0)
			r = neg_errno();
		if (r == 0) {
			static const struct spool_entry none[64];
			unsigned int i;

			for (i = 0; r == 0 && i < p->n; i += 64)
				r = spool_pwrite_all(p->fd, none,
						     (p->n - i < 64 ? p->n - i : 64) * sizeof(none[0]),
						     ENTRY_OFF + i * sizeof(none[0]));
		}
		if (r == 0)
			r = spool_pwrite_all(p->fd, &h, sizeof(h), 0);
		/* The claim, the pack's data and its record on the disk:
		 * those two files and the two directories whose entries
		 * changed, not the whole file system. */
		if (r == 0)
			r = spool_sync_data(s, name, false);
		if (r == 0 && fdatasync(p->fd) < 0)
			r = neg_errno();
		if (r == 0) {
			bool changed[_SPOOL_STATE_MAX] = {
				[SPOOL_QUEUED] = true, [SPOOL_INFLIGHT] = true,
			};

			r = spool_sync_dirs(s, changed);
		}
	}
	if (r < 0) {
		/* Not claimed after all: back to the queue, as it was. */
		if (p->fd >= 0)
			forget(p->fd);	/* failing, its name is found queued */
		release(p);
		if (renameat2(s->fd[SPOOL_INFLIGHT], name, s->fd[SPOOL_QUEUED], name,
			      RENAME_NOREPLACE) == 0) {
			spool_tally_move(s, SPOOL_INFLIGHT, name, SPOOL_QUEUED, name);
			spool_queue_noted(s, name);
		}
		return r;
	}
	return 0;
}

/* inflight/.pack's header and entries, if it names a pack still there. */
static int load_progress(struct spool *s, int fd, struct pack_head *h, struct spool_entry **e)
{
	struct stat st;
	ssize_t n;

	*e = NULL;
	if (pread(fd, h, sizeof(*h), 0) != sizeof(*h) ||
	    memcmp(h->magic, PACK_PROGRESS_MAGIC, sizeof(h->magic)) != 0 || !h->id)
		return 0;
	h->name[NAME_MAX] = '\0';
	if (!h->n || h->n > SPOOL_PACK_BLOBS || !spool_pack_name(h->name) ||
	    strchr(h->name, '/') ||
	    fstatat(s->fd[SPOOL_INFLIGHT], h->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;	/* moved on before the stop */
	*e = calloc(h->n, sizeof(**e));
	if (!*e)
		return -ENOMEM;
	n = pread(fd, *e, h->n * sizeof(**e), ENTRY_OFF);
	if (n < 0)
		return neg_errno();
	/* Entries the file lacks are claimed (zeroed by calloc). */
	return 1;
}

static int forget(int fd)
{
	uint64_t zero = 0;

	return spool_pwrite_all(fd, &zero, sizeof(zero), offsetof(struct pack_head, id));
}

/* Blob @i of the pack recorded in @h, as its own file interrupted/PACK#i. */
static int set_aside(struct spool *s, const struct pack_head *h, unsigned int i, bool prev_boot,
		     struct spool_result *res)
{
	struct spool_pack *p;
	unsigned int n;
	char why[96];
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	pack_init(p);
	r = read_pack(s, h->name, p);
	if (r == 0)
		r = spool_pack_parse(p->data, p->len, p->off, p->size, &n, why, sizeof(why));
	if (r == 0 && i >= n)
		r = -EINVAL;
	memset(res, 0, sizeof(*res));
	if (r == 0) {
		res->state = SPOOL_INTERRUPTED;
		res->packed = true;
		res->index = i;
		res->size = p->size[i];
		res->prev_boot = prev_boot;
		snprintf(res->name, sizeof(res->name), "%.240s#%u", h->name, i);
		snprintf(res->final_name, sizeof(res->final_name), "%s", res->name);
		r = kw_write_file_at(s->fd[SPOOL_INTERRUPTED], res->name, p->data + p->off[i],
				     p->size[i]);
	}
	if (r == 0)
		r = kw_fsync_dirfd(s->fd[SPOOL_INTERRUPTED]);
	if (r == 0)
		s->count[SPOOL_INTERRUPTED]++;
	spool_tally_stale(s, SPOOL_INTERRUPTED);
	release(p);
	free(p);
	return r;
}

int spool_pack_recover(struct spool *s, bool prev_boot, const char *pmsg,
		       void (*cb)(const struct spool_result *, void *), void *ud, char *keep,
		       size_t keep_len)
{
	_cleanup_free_ struct spool_entry *e = NULL;
	_cleanup_close_ int fd = -1;
	struct spool_result res;
	struct pack_head h;
	unsigned int i, ran = 0;
	int r;

	keep[0] = '\0';
	fd = open_progress(s, 0);
	if (fd < 0)
		return errno == ENOENT ? 0 : neg_errno();
	r = load_progress(s, fd, &h, &e);
	if (r <= 0)
		return r;
	if (prev_boot && !h.synced) {
		/* The file's states may never have reached the disk: only
		 * pmsg tells, and without it the whole pack is set aside
		 * (by the caller, with the rest of inflight/). */
		memset(e, 0, h.n * sizeof(*e));
		if (!spool_pmsg_states(pmsg, h.id, e, h.n))
			return forget(fd);
	}
	/* Blobs run in order: all before the last one recorded ran. */
	for (i = 0; i < h.n; i++)
		if (e[i].state != ENTRY_CLAIMED)
			ran = i + 1;
	for (i = 0; i + 1 < ran; i++)
		if (e[i].state == ENTRY_CLAIMED || e[i].state == ENTRY_STARTED)
			e[i].state = ENTRY_UNKNOWN;
	if (ran && e[ran - 1].state == ENTRY_STARTED) {
		r = set_aside(s, &h, ran - 1, prev_boot, &res);
		if (r < 0)
			return r;
		e[ran - 1].state = ENTRY_INTERRUPTED;
		if (cb)
			cb(&res, ud);
	}
	/* What recovery learnt, on the disk before the pack goes on. */
	r = spool_pwrite_all(fd, e, h.n * sizeof(*e), ENTRY_OFF);
	if (r < 0)
		return r;
	if (fdatasync(fd) < 0)
		return neg_errno();
	if (kw_strlcpy(keep, h.name, keep_len) < 0)
		return -ENAMETOOLONG;
	return 0;
}

int spool_pack_resume(struct spool *s, struct spool_pack *p)
{
	_cleanup_free_ struct spool_entry *e = NULL;
	struct pack_head h;
	unsigned int i, n;
	char why[96];
	int fd, r;

	pack_init(p);
	fd = open_progress(s, 0);
	if (fd < 0)
		return errno == ENOENT ? 0 : neg_errno();
	r = load_progress(s, fd, &h, &e);
	if (r > 0)
		r = read_pack(s, h.name, p);
	if (r == 0 && p->data) {
		r = spool_pack_parse(p->data, p->len, p->off, p->size, &n, why, sizeof(why));
		if (r == 0 && n != h.n)
			r = -EINVAL;
		if (r < 0) {
			/* Changed under us: not ours to go on with; the next
			 * recovery sets it aside. */
			forget(fd);
			r = 0;
		} else {
			r = 1;
		}
	}
	if (r <= 0) {
		close(fd);
		free(p->data);
		p->data = NULL;
		return r;
	}
	snprintf(p->name, sizeof(p->name), "%s", h.name);
	p->id = h.id;
	p->n = h.n;
	p->fd = fd;
	for (i = 0; i < p->n; i++) {
		p->state[i] = e[i].state;
		p->result[i] = e[i].result;
		if (e[i].state != ENTRY_CLAIMED)
			p->next = i + 1;
	}
	return 1;
}

int spool_pack_exec(struct spool *s, struct spool_pack *p, bool *ours)
{
	unsigned int i = p->next;
	int r;

	*ours = true;
	if (i >= p->n)
		return -EINVAL;
	r = spool_record(s, p->fd, ENTRY_OFF, p->id, i, ENTRY_STARTED, 0,
			 p->unrecorded ? &p->result[i - 1] : NULL);
	if (r < 0)
		return r;
	p->unrecorded = false;
	s->synced = true;	/* the claim synced it: the input is kept open */
	r = spool_write_blob(s, p->data + p->off[i], p->size[i], ours);
	s->synced = false;
	if (r < 0 && *ours) {
		/* Never written: claimed again, it stays next. */
		spool_record(s, p->fd, ENTRY_OFF, p->id, i, ENTRY_CLAIMED, 0, NULL);
		return r;
	}
	p->state[i] = ENTRY_FINISHED;
	p->result[i] = r;
	p->next = i + 1;
	p->unrecorded = true;	/* with the next start, or the finish */
	return r;
}

/* done/FINAL.results: "INDEX SIZE RESULT" per blob. */
static int write_results(struct spool *s, struct spool_pack *p)
{
	_cleanup_free_ char *text = NULL;
	char name[NAME_MAX + 1];
	size_t len = 0, cap = (size_t)p->n * 40 + 1;
	unsigned int i;

	text = malloc(cap);
	if (!text)
		return -ENOMEM;
	for (i = 0; i < p->n; i++) {
		len += snprintf(text + len, cap - len, "%u %" PRIu32 " ", i, p->size[i]);
		if (p->state[i] == ENTRY_FINISHED)
			len += snprintf(text + len, cap - len, "%d\n", p->result[i]);
		else if (p->state[i] == ENTRY_INTERRUPTED)
			len += snprintf(text + len, cap - len, "interrupted\n");
		else
			len += snprintf(text + len, cap - len, "unknown\n");
	}
	snprintf(name, sizeof(name), "%.240s" SPOOL_PACK_RESULTS, p->final_name);
	spool_tally_stale(s, SPOOL_DONE);
	return kw_write_file_at(s->fd[SPOOL_DONE], name, text, len);
}

int spool_pack_finish(struct spool *s, struct spool_pack *p, struct spool_result *res)
{
	int r;

	spool_input_close(s);
	/* The last verdict; a failure costs precision only (recovery would
	 * call that blob's verdict unknown, not replay it). */
	if (p->unrecorded && p->next &&
	    spool_record(s, p->fd, ENTRY_OFF, p->id, p->next - 1, ENTRY_FINISHED,
			 p->result[p->next - 1], NULL) == 0)
		p->unrecorded = false;
	if (!p->moved) {
		r = spool_move(s, p->name, SPOOL_INFLIGHT, SPOOL_DONE, p->final_name,
			       sizeof(p->final_name), false);
		if (r < 0 && !p->final_name[0])
			return r;
		p->moved = true;
	}
	/* PACK.results is synced as it is written; the move, by the two
	 * directories whose entries changed. */
	r = write_results(s, p);
	if (r == 0) {
		bool changed[_SPOOL_STATE_MAX] = {
			[SPOOL_INFLIGHT] = true, [SPOOL_DONE] = true,
		};

		r = spool_sync_dirs(s, changed);
	}
	if (r < 0)
		return r;
	memset(res, 0, sizeof(*res));
	snprintf(res->name, sizeof(res->name), "%s", p->name);
	snprintf(res->final_name, sizeof(res->final_name), "%s", p->final_name);
	res->state = SPOOL_DONE;
	res->size = p->len;
	res->moved = true;
	/* Nothing of the pack is left in inflight/: its record goes. */
	forget(p->fd);
	return 0;
}

bool spool_pack_blob(const struct spool_pack *p, unsigned int i, struct spool_result *res)
{
	if (i >= p->n || p->state[i] != ENTRY_FINISHED)
		return false;
	memset(res, 0, sizeof(*res));
	snprintf(res->name, sizeof(res->name), "%.240s#%u", p->name, i);
	snprintf(res->final_name, sizeof(res->final_name), "%s", p->final_name);
	res->state = p->result[i] < 0 ? SPOOL_REJECTED : SPOOL_DONE;
	res->err = p->result[i] < 0 ? p->result[i] : 0;
	res->size = p->size[i];
	res->moved = true;
	res->packed = true;
	res->index = i;
	return true;
}

void spool_pack_release(struct spool *s, struct spool_pack *p)
{
	/* Its last verdict, so that it goes on after that blob. */
	if (p->name[0] && p->unrecorded && p->next)
		spool_record(s, p->fd, ENTRY_OFF, p->id, p->next - 1, ENTRY_FINISHED,
			     p->result[p->next - 1], NULL);
	p->unrecorded = false;
	release(p);
}
