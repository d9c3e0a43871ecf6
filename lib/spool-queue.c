// SPDX-License-Identifier: GPL-2.0
/* The queue's names (struct spool_names): read once into a sorted list
 * of at most SPOOL_NAMES_MAX, taken from its front, kept up to date by
 * the queue's inotify events (spool_settle() notes each name renamed or
 * made in), read again when it runs out.  Taking a blob costs the spool
 * a few entries looked at, not a read of the whole queue: with a queue
 * of Q entries, a blob at a time used to read Q entries a blob, a batch
 * Q entries a batch. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "spool.h"
#include "spool-int.h"
#include "util.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void spool_names_clear(struct spool_names *l)
{
	unsigned int i;

	for (i = l->pos; i < l->n; i++)
		free(l->name[i]);
	free(l->name);
	memset(l, 0, sizeof(*l));
}

/* A list being read: sorted and cut to SPOOL_NAMES_MAX each time it
 * holds twice that. */
static void cut(struct spool_names *l)
{
	qsort(l->name, l->n, sizeof(*l->name), cmp);
	while (l->n > SPOOL_NAMES_MAX) {
		free(l->name[--l->n]);
		l->whole = false;
	}
}

static int add(struct spool_names *l, const char *name)
{
	char *c;

	if (l->n == 2 * SPOOL_NAMES_MAX)
		cut(l);
	c = strdup(name);
	if (!c)
		return -ENOMEM;
	l->name[l->n++] = c;
	return 0;
}

/* Both lists from one read of the queue: a pack name goes to the packs,
 * and to the loose entries too unless it is known to be a regular file
 * (anything else is spool_next()'s to refuse). */
static int read_queue(struct spool *s)
{
	struct spool_names l = { .whole = true }, p = { .whole = true };
	struct dirent *de;
	int err, r = 0;
	DIR *d;

	l.name = malloc(2 * SPOOL_NAMES_MAX * sizeof(*l.name));
	p.name = malloc(2 * SPOOL_NAMES_MAX * sizeof(*p.name));
	if (!l.name || !p.name) {
		r = -ENOMEM;
		goto out;
	}
	d = spool_opendir(s, SPOOL_QUEUED, &err);
	if (!d) {
		r = err;
		goto out;
	}
	while (r == 0 && (de = readdir(d))) {
		bool pack = spool_pack_name(de->d_name);

		if (spool_not_queued(de->d_name))
			continue;
		if (pack)
			r = add(&p, de->d_name);
		if (r == 0 && (!pack || de->d_type != DT_REG))
			r = add(&l, de->d_name);
	}
	closedir(d);
	if (r < 0)
		goto out;
	cut(&l);
	cut(&p);
	spool_names_clear(&s->loose);
	spool_names_clear(&s->packs);
	s->loose = l;
	s->packs = p;
	/* Without events, nothing tells what comes in after the read. */
	if (s->ino_fd < 0)
		s->loose.whole = s->packs.whole = false;
	return 0;
out:
	spool_names_clear(&l);
	spool_names_clear(&p);
	return r;
}

void spool_queue_reread(struct spool *s)
{
	spool_names_clear(&s->loose);
	spool_names_clear(&s->packs);
}

/* Where NAME is, or goes, in [pos, n); *found if it is there. */
static unsigned int find(const struct spool_names *l, const char *name, bool *found)
{
	unsigned int lo = l->pos, hi = l->n;

	*found = false;
	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		int c = strcmp(l->name[mid], name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void note(struct spool_names *l, const char *name)
{
	unsigned int k;
	bool found;
	char *c;

	/* Not read yet, or read again when it runs out. */
	if (!l->name || (l->pos == l->n && !l->whole))
		return;
	k = find(l, name, &found);
	if (found)
		return;
	/* Beyond the last name held: the next read finds it. */
	if (k == l->n && !l->whole)
		return;
	if (l->n == SPOOL_NAMES_MAX && l->pos) {
		memmove(l->name, l->name + l->pos, (l->n - l->pos) * sizeof(*l->name));
		l->n -= l->pos;
		k -= l->pos;
		l->pos = 0;
	}
	if (l->n == SPOOL_NAMES_MAX) {
		l->whole = false;
		if (k == l->n)
			return;
		free(l->name[--l->n]);
	}
	c = strdup(name);
	if (!c) {
		/* Not held, though below the last: read again. */
		spool_names_clear(l);
		return;
	}
	memmove(l->name + k + 1, l->name + k, (l->n - k) * sizeof(*l->name));
	l->name[k] = c;
	l->n++;
}

void spool_queue_noted(struct spool *s, const char *name)
{
	if (spool_not_queued(name))
		return;
	note(&s->loose, name);
	if (spool_pack_name(name))
		note(&s->packs, name);
}

static void drop(struct spool_names *l)
{
	free(l->name[l->pos++]);
	if (l->pos == l->n)
		l->pos = l->n = 0;
}

/* NAME is still queued, and the list's (*st: its stat). */
static int current(struct spool *s, bool packs, const char *name, struct stat *st)
{
	/* Only ENOENT says it is gone: a name dropped on another error
	 * (ENOMEM, EACCES) would never be looked at again. */
	if (fstatat(s->fd[SPOOL_QUEUED], name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	/* A pack is spool_pack_next()'s, anything else spool_next()'s. */
	return packs ? S_ISREG(st->st_mode) : !S_ISREG(st->st_mode) || !spool_pack_name(name);
}

/* The first name of the list still queued and its own; what is gone
 * leaves the list. */
static int first(struct spool *s, struct spool_names *l, bool packs, struct stat *st)
{
	int r;

	while (l->pos < l->n) {
		r = current(s, packs, l->name[l->pos], st);
		if (r != 0)
			return r;
		drop(l);
	}
	return 0;
}

/* Events not read yet: something came into the queue (or left it). */
static bool pending(struct spool *s)
{
	int n = 0;

	return s->ino_fd < 0 || ioctl(s->ino_fd, FIONREAD, &n) < 0 || n > 0;
}

int spool_queue_next(struct spool *s, bool packs, char *name, size_t n, struct stat *st)
{
	struct spool_names *l = packs ? &s->packs : &s->loose;
	bool read = false, settled = false;
	int r;

	for (;;) {
		r = first(s, l, packs, st);
		if (r < 0)
			return r;
		if (r)
			return kw_strlcpy(name, l->name[l->pos], n) < 0 ? -ENAMETOOLONG : 0;
		if (read || (l->whole && !pending(s)))
			return -ENOENT;
		/* A pack is looked for at each turn of the loop: the events
		 * say what came in, rather than a read of the queue.  Loose
		 * entries are read as they are (spool_claim_blob() then tells
		 * what was made in place, whichever came first). */
		if (packs && l->whole && !settled) {
			settled = true;
			if (spool_settle(s) == 0)
				continue;
		}
		r = read_queue(s);
		if (r < 0)
			return r;
		read = true;
	}
}

int spool_queue_take(struct spool *s, char (*names)[NAME_MAX + 1], unsigned int max,
		     unsigned int *taken, unsigned int *unfit)
{
	struct spool_names *l = &s->loose;
	char first_name[NAME_MAX + 1];
	unsigned int j, w;
	struct stat st;
	int r, err = 0;

	*taken = 0;
	r = spool_queue_next(s, false, first_name, sizeof(first_name), &st);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	/* The blobs in order, taken out of the list; what is no blob stays
	 * in it (for spool_next() and its refusal), counted. */
	for (j = w = l->pos; j < l->n && *taken < max; j++) {
		r = current(s, false, l->name[j], &st);
		if (r < 0) {
			/* Not known now: it stays, the batch ends here. */
			if (!*taken)
				err = r;
			break;
		}
		if (!r) {
			free(l->name[j]);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			(*unfit)++;
			l->name[w++] = l->name[j];
			continue;
		}
		memcpy(names[(*taken)++], l->name[j], strlen(l->name[j]) + 1);
		free(l->name[j]);
	}
	memmove(l->name + w, l->name + j, (l->n - j) * sizeof(*l->name));
	l->n -= j - w;
	if (l->pos == l->n)
		l->pos = l->n = 0;
	return err;
}
