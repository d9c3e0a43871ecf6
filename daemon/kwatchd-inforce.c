// SPDX-License-Identifier: GPL-2.0
/* The set in force across restarts, saved as copies of the drop-ins under
 * <state>/in-force and read back by the configuration's loader
 * (kwatchd-inforce.h says how). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "kwatchd-inforce.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"

/* --- the texts of the files in force ---------------------------------------- */

static bool same_version(const struct kw_text *x, const struct kw_file *f)
{
	return x->kind == f->kind && x->hash == f->hash && strcmp(x->name, f->name) == 0;
}

const struct kw_text *kw_texts_find(const struct kw_texts *t, const struct kw_file *f)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (same_version(&t->v[i], f))
			return &t->v[i];
	return NULL;
}

int kw_texts_add(struct kw_texts *t, const struct kw_file *f, const char *text, size_t len)
{
	struct kw_text *tmp, *x;
	char *copy;

	if (len > KW_CONF_MAX || kw_hash(text, len) != f->hash)
		return -EINVAL;
	if (kw_texts_find(t, f))
		return 0;
	copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	tmp = realloc(t->v, (t->n + 1) * sizeof(*tmp));
	if (!tmp) {
		free(copy);
		return -ENOMEM;
	}
	t->v = tmp;
	x = &t->v[t->n++];
	memcpy(copy, text, len);
	x->kind = f->kind;
	snprintf(x->name, sizeof(x->name), "%s", f->name);
	x->hash = f->hash;
	x->text = copy;
	x->len = len;
	return 0;
}

void kw_texts_keep(struct kw_texts *t, const struct kw_file *set, size_t n)
{
	size_t i, j, kept = 0;

	for (i = 0; i < t->n; i++) {
		bool used = false;

		for (j = 0; j < n && !used; j++)
			used = same_version(&t->v[i], &set[j]);
		if (used)
			t->v[kept++] = t->v[i];
		else
			free(t->v[i].text);
	}
	t->n = kept;
	if (!kept) {
		free(t->v);
		t->v = NULL;
	}
}

void kw_texts_free(struct kw_texts *t)
{
	kw_texts_keep(t, NULL, 0);
}

/* --- the directories ------------------------------------------------------------ */

/* Where a copy is written before it is renamed over its name: never read
 * (the loader reads no hidden name), and unlinked before it is made. */
#define TMP_NAME ".in-force.tmp"
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* The directory name under parent (path says it in logs), opened without
 * following a symlink.  Anything else in its place (a symlink, a file, a
 * FIFO) is removed, never followed; then, or if there was nothing, it is
 * made if create (*made says so), else -ENOENT. */
static int open_dir(int parent, const char *name, const char *path, bool create, bool *made)
{
	int fd = openat(parent, name, DIR_FLAGS);

	if (fd >= 0)
		return fd;
	if (errno == ENOTDIR || errno == ELOOP) {
		log_warning("in-force: %s is not a directory: removed", path);
		if (unlinkat(parent, name, 0) < 0)
			return neg_errno();
	} else if (errno != ENOENT) {
		return neg_errno();
	}
	if (!create)
		return -ENOENT;
	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return neg_errno();
	*made = true;
	fd = openat(parent, name, DIR_FLAGS);
	return fd < 0 ? neg_errno() : fd;
}

/* The one file an older kwatchd saved the set in, <state>/in-force in a
 * format no longer read: removed, and the directory made in its place. */
static int replace_old_file(int statefd, const char *path)
{
	struct stat st;

	if (fstatat(statefd, KW_INFORCE_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : neg_errno();
	if (!S_ISREG(st.st_mode))
		return 0;
	log_notice("%s: the set in force an older kwatchd saved in one file, in a format no "
		   "longer read: replaced by a directory of copies, saved from the next apply on",
		   path);
	if (unlinkat(statefd, KW_INFORCE_DIR, 0) < 0 || mkdirat(statefd, KW_INFORCE_DIR, 0700) < 0)
		return neg_errno();
	return kw_fsync_dirfd(statefd);
}

static bool same_dir(int a, int b)
{
	struct stat x, y;

	return a >= 0 && b >= 0 && fstat(a, &x) == 0 && fstat(b, &y) == 0 &&
		x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* --- the record of the copies ----------------------------------------------------- */

static int copy_cmp(const void *a, const void *b)
{
	const struct kw_copy *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return strcmp(x->name, y->name);
}

static int file_copy_cmp(const struct kw_file *f, const struct kw_copy *c)
{
	if (f->kind != c->kind)
		return f->kind - c->kind;
	return strcmp(f->name, c->name);
}

static void copy_set(struct kw_copy *c, enum kw_kind kind, const char *name, bool known,
		     uint64_t hash)
{
	memset(c, 0, sizeof(*c));
	c->kind = kind;
	c->known = known;
	c->hash = hash;
	snprintf(c->name, sizeof(c->name), "%s", name);
}

void kw_inforce_free(struct kw_inforce *s)
{
	int k;

	for (k = 0; k < _KW_KIND_MAX; k++) {
		if (s->kind_fd[k] >= 0)
			close(s->kind_fd[k]);
		s->kind_fd[k] = -1;
	}
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* The record of kind k made that of the directory kfd: the names it holds,
 * their text not known (each is rewritten or removed by the save).  Only
 * when the directory is not the one the record is of. */
static int list_kind(struct kw_inforce *s, enum kw_kind k, int kfd)
{
	size_t n = 0, cap = s->n + 16, listed = 0, i;
	struct kw_copy *v, *tmp;
	struct dirent *de;
	int fd, r = 0;
	DIR *dir;

	fd = openat(kfd, ".", DIR_FLAGS);
	if (fd < 0)
		return neg_errno();
	dir = fdopendir(fd);
	if (!dir) {
		r = neg_errno();
		close(fd);
		return r;
	}
	v = malloc(cap * sizeof(*v));
	if (!v) {
		closedir(dir);
		return -ENOMEM;
	}
	for (i = 0; i < s->n; i++)
		if (s->v[i].kind != k)
			v[n++] = s->v[i];
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			r = -errno;	/* 0 at the end */
			break;
		}
		if (!kw_dropin_name(de->d_name))
			continue;
		if (listed == KW_INFORCE_FILES_MAX) {
			log_warning("in-force/%s: more than %d names, the others left as they are",
				    kw_kind_dir[k], KW_INFORCE_FILES_MAX);
			break;
		}
		if (n == cap) {
			cap *= 2;
			tmp = realloc(v, cap * sizeof(*v));
			if (!tmp) {
				r = -ENOMEM;
				break;
			}
			v = tmp;
		}
		copy_set(&v[n++], k, de->d_name, false, 0);
		listed++;
	}
	closedir(dir);
	if (r < 0) {
		free(v);
		return r;
	}
	qsort(v, n, sizeof(*v), copy_cmp);
	free(s->v);
	s->v = v;
	s->n = n;
	return 0;
}

/* <state_dir>/in-force and its kind directories opened (made if need be),
 * each kind's record listed again if its directory is not the one it is
 * of. */
static int open_kinds(struct kw_inforce *s, const char *state_dir)
{
	_cleanup_close_ int statefd = -1, fd = -1;
	char path[PATH_MAX], kpath[PATH_MAX];
	bool made = false, kmade = false;
	int k, kfd, r;

	if (kw_fit(snprintf(path, sizeof(path), "%s/" KW_INFORCE_DIR, state_dir),
		   sizeof(path) - NAME_MAX - 1) < 0)
		return -ENAMETOOLONG;
	statefd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (statefd < 0)
		return neg_errno();
	fd = open_dir(statefd, KW_INFORCE_DIR, path, true, &made);
	if (fd < 0)
		return fd;
	if (made) {
		r = kw_fsync_dirfd(statefd);
		if (r < 0)
			return r;
	}
	for (k = 0; k < _KW_KIND_MAX; k++) {
		snprintf(kpath, sizeof(kpath), "%.4000s/%s", path, kw_kind_dir[k]);
		kfd = open_dir(fd, kw_kind_dir[k], kpath, true, &kmade);
		if (kfd < 0)
			return kfd;
		if (same_dir(s->kind_fd[k], kfd)) {
			close(kfd);
			continue;
		}
		r = list_kind(s, k, kfd);
		if (r < 0) {
			close(kfd);
			return r;
		}
		if (s->kind_fd[k] >= 0)
			close(s->kind_fd[k]);
		s->kind_fd[k] = kfd;
	}
	return kmade ? kw_fsync_dirfd(fd) : 0;
}

/* --- saving ------------------------------------------------------------------------- */

/* Why set[i] is not saved, or NULL; prev is the last file saved. */
static const char *unsaved(const struct kw_file *set, size_t i, const struct kw_file *prev,
			   size_t n_saved)
{
	const struct kw_file *f = &set[i];

	if ((unsigned int)f->kind >= _KW_KIND_MAX)
		return "not a drop-in kind";
	if (!kw_dropin_name(f->name))
		return "a name the configuration's loader would not read";
	if (prev && kw_file_cmp(prev, f) >= 0)
		return "given twice, or out of order";
	if (n_saved == KW_INFORCE_FILES_MAX)
		return "too many files";
	return NULL;
}

/* x's text as the copy name in kfd: written beside, fsynced, renamed over
 * whatever has the name (a symlink or a FIFO is replaced, not followed; an
 * empty directory is removed first).  1: a directory that is left, the
 * copy not saved. */
static int write_copy(int kfd, enum kw_kind k, const char *name, const struct kw_text *x)
{
	int r = kw_write_file_at(kfd, TMP_NAME, x->text, x->len);

	if (r == 0 && renameat(kfd, TMP_NAME, kfd, name) < 0) {
		r = neg_errno();
		if (r == -EISDIR && unlinkat(kfd, name, AT_REMOVEDIR) == 0) {
			log_warning("in-force/%s/%s: a directory in the place of a copy: removed",
				    kw_kind_dir[k], name);
			r = renameat(kfd, TMP_NAME, kfd, name) < 0 ? neg_errno() : 0;
		} else if (r == -EISDIR) {
			log_warning_errno(neg_errno(), "in-force/%s/%s: a directory in the place of "
					  "a copy, left as it is (%m): not saved", kw_kind_dir[k],
					  name);
			r = 1;
		}
	}
	if (r != 0)
		unlinkat(kfd, TMP_NAME, 0);
	return r;
}

/* The copy c removed: 0, or 1 if it was a directory that is left (and
 * forgotten), or the error. */
static int remove_copy(int kfd, const struct kw_copy *c)
{
	if (unlinkat(kfd, c->name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR)
		return neg_errno();
	if (unlinkat(kfd, c->name, AT_REMOVEDIR) == 0)
		return 0;
	log_warning_errno(neg_errno(), "in-force/%s/%s: a directory in the place of a copy, "
			  "left as it is: %m", kw_kind_dir[c->kind], c->name);
	return 1;
}

int kw_inforce_save(struct kw_inforce *s, const char *state_dir, const struct kw_file *set,
		    size_t n, const struct kw_texts *t, uint64_t until, bool quiet)
{
	bool dirty[_KW_KIND_MAX] = { false }, stop = false, more = false;
	const struct kw_file *prev = NULL;
	size_t i = 0, j = 0, nn = 0, saved = 0;
	struct kw_copy *next;
	int k, r, err = 0;

	r = open_kinds(s, state_dir);
	if (r < 0)
		return r;
	next = malloc((n + s->n + 1) * sizeof(*next));
	if (!next)
		return -ENOMEM;
	/* One walk of the set and the record, both sorted by kind and name. */
	while (i < n || j < s->n) {
		const struct kw_copy *c = j < s->n ? &s->v[j] : NULL;
		const struct kw_file *f = NULL;
		const struct kw_text *x;
		const char *why = NULL;
		int cmp;

		if (i < n) {
			why = unsaved(set, i, prev, saved);
			if (why) {
				if (!quiet)
					log_warning("in-force: %s not saved: %s", set[i].path, why);
				i++;
				continue;
			}
			f = &set[i];
		}
		cmp = !f ? 1 : !c ? -1 : file_copy_cmp(f, c);
		if (cmp > 0) {
			/* The copy of a file no longer in force. */
			j++;
			if (stop || err) {
				more |= stop;
				next[nn++] = *c;
				continue;
			}
			r = remove_copy(s->kind_fd[c->kind], c);
			if (r == 0)
				dirty[c->kind] = true;
			if (r < 0) {
				next[nn++] = *c;
				err = r;
			}
			stop = until && kw_now_usec() >= until;
			continue;
		}
		i++;
		if (cmp == 0 && c->known && c->hash == f->hash) {
			next[nn++] = *c;	/* unchanged: not touched */
			saved++;
			prev = f;
			j++;
			continue;
		}
		x = kw_texts_find(t, f);
		if (!x) {
			/* Its copy, if any, is of another version: removed. */
			if (!quiet)
				log_warning("in-force: %s not saved: its text is not known",
					    f->path);
			continue;
		}
		saved++;
		prev = f;
		if (cmp == 0)
			j++;
		/* After an error, or past the slice, what is left waits for
		 * the next save. */
		more |= stop;
		r = err || stop ? 1 : write_copy(s->kind_fd[f->kind], f->kind, f->name, x);
		stop = stop || (until && kw_now_usec() >= until);
		if (r != 0) {
			if (cmp == 0)
				next[nn++] = *c;
			if (r < 0)
				err = r;
			continue;
		}
		copy_set(&next[nn++], f->kind, f->name, true, f->hash);
		dirty[f->kind] = true;
	}
	for (k = 0; k < _KW_KIND_MAX; k++) {
		if (!dirty[k])
			continue;
		r = kw_fsync_dirfd(s->kind_fd[k]);
		if (r == 0)
			continue;
		/* Which renames reached the disk is not known: all of this
		 * kind are written again next time. */
		for (i = 0; i < nn; i++)
			if (next[i].kind == k)
				next[i].known = false;
		if (!err)
			err = r;
	}
	free(s->v);
	s->v = next;
	s->n = nn;
	return err ? err : more;
}

/* --- loading ------------------------------------------------------------------------- */

struct load {
	struct kw_texts *texts;
	struct kw_copy *v;		/* the copies read, then the others */
	size_t n, cap;
	int err;
};

static int load_add(struct load *l, enum kw_kind kind, const char *name, bool known,
		    uint64_t hash)
{
	struct kw_copy *tmp;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		tmp = realloc(l->v, l->cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		l->v = tmp;
	}
	copy_set(&l->v[l->n++], kind, name, known, hash);
	return 0;
}

/* Each copy read, valid or not, is on disk with that text. */
static void load_text(const struct kw_file *f, const char *text, size_t len, void *user)
{
	struct load *l = user;
	int r;

	r = load_add(l, f->kind, f->name, true, f->hash);
	if (r < 0 && !l->err)
		l->err = r;
	if (f->err)
		return;
	r = kw_texts_add(l->texts, f, text, len);
	if (r < 0 && !l->err)
		l->err = r;
}

int kw_inforce_load(struct kw_inforce *s, const char *state_dir, const char *confdir,
		    struct kw_file **ret, size_t *ret_n, struct kw_texts *texts)
{
	int kfd[_KW_KIND_MAX] = { [0 ... _KW_KIND_MAX - 1] = -1 };
	_cleanup_close_ int statefd = -1, fd = -1;
	char dir[PATH_MAX], kpath[PATH_MAX];
	struct load l = { .texts = texts };
	struct kw_file *set = NULL;
	size_t n = 0, n_read, i, kept = 0;
	bool made = false;
	int k, r;

	kw_inforce_free(s);
	*ret = NULL;
	*ret_n = 0;
	if (kw_fit(snprintf(dir, sizeof(dir), "%s/" KW_INFORCE_DIR, state_dir),
		   sizeof(dir) - NAME_MAX - 1) < 0)
		return -ENAMETOOLONG;
	statefd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (statefd < 0)
		return errno == ENOENT ? 0 : neg_errno();
	r = replace_old_file(statefd, dir);
	if (r < 0)
		return r;
	fd = open_dir(statefd, KW_INFORCE_DIR, dir, false, &made);
	if (fd < 0)
		return fd == -ENOENT ? 0 : fd;
	/* The loader opens them by path: none may be a symlink. */
	for (k = 0; k < _KW_KIND_MAX; k++) {
		snprintf(kpath, sizeof(kpath), "%.4000s/%s", dir, kw_kind_dir[k]);
		r = open_dir(fd, kw_kind_dir[k], kpath, false, &made);
		if (r < 0 && r != -ENOENT)
			goto fail;
		kfd[k] = r < 0 ? -1 : r;
	}
	r = kw_config_load_texts(dir, load_text, &l, &set, &n);
	if (r == 0)
		r = l.err;
	if (r < 0)
		goto fail;
	/* The copies read are sorted, as the loader reads them. */
	n_read = l.n;
	for (i = 0; i < n; i++) {
		struct kw_file *f = &set[i];
		struct kw_copy key;

		if (f->err) {
			if (f->err_line)
				log_warning("in-force: %s:%d: %s; the copy is not used", f->path,
					    f->err_line, f->err_reason);
			else
				log_warning("in-force: %s: %s; the copy is not used", f->path,
					    f->err_reason);
			/* Not read (a symlink, a FIFO, ...): to be replaced. */
			copy_set(&key, f->kind, f->name, false, 0);
			if (!bsearch(&key, l.v, n_read, sizeof(key), copy_cmp)) {
				r = load_add(&l, f->kind, f->name, false, 0);
				if (r < 0)
					goto fail;
			}
			continue;
		}
		if (kept == KW_INFORCE_FILES_MAX) {
			log_warning("in-force: %s: more than %d copies, not used", f->path,
				    KW_INFORCE_FILES_MAX);
			continue;
		}
		/* It stands in for the drop-in of that kind and name. */
		if (kw_fit(snprintf(kpath, sizeof(kpath), "%s/%s/%s", confdir,
				    kw_kind_dir[f->kind], f->name), sizeof(kpath)) < 0)
			continue;
		memset(f->path, 0, sizeof(f->path));
		memcpy(f->path, kpath, strlen(kpath));
		if (kept != i)
			set[kept] = *f;
		kept++;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), copy_cmp);
	s->v = l.v;
	s->n = l.n;
	memcpy(s->kind_fd, kfd, sizeof(kfd));
	*ret = set;
	*ret_n = kept;
	return 0;
fail:
	for (k = 0; k < _KW_KIND_MAX; k++)
		if (kfd[k] >= 0)
			close(kfd[k]);
	free(l.v);
	free(set);
	return r;
}

/* --- the daemon's ------------------------------------------------------------- */

/* A save holds the loop this long at most (one change at least): the rest
 * is saved in the next turns, each after what else is pending. */
#define SAVE_SLICE_USEC 10000

static struct kw_texts kwd_texts;
static struct kw_inforce kwd_copies = KW_INFORCE_INIT;
static sd_event_source *kwd_save_rest;	/* a save going on */

static void keep_text(const struct kw_file *f, const char *text, size_t len, void *user)
{
	int r;

	if (f->err)
		return;		/* never in force */
	r = kw_texts_add(user, f, text, len);
	if (r < 0)
		log_warning_errno(r, "%s: cannot keep its text (%m), it may not be saved", f->path);
}

int kwd_inforce_config_load(struct kwd *d, struct kw_file **ret, size_t *ret_n)
{
	return kw_config_load_texts(d->confdir, keep_text, &kwd_texts, ret, ret_n);
}

static void save_slice(struct kwd *d, bool rest);

static int on_save_rest(sd_event_source *s, uint64_t usec, void *user)
{
	(void)s;
	(void)usec;
	save_slice(user, true);
	return 0;
}

/* A next turn of the loop goes on with the save: a timer due now, not a
 * defer source, which would stay older than any client's input and be
 * dispatched before it turn after turn; at idle priority, so that it
 * runs in a turn with nothing else pending. */
static int save_later(struct kwd *d)
{
	int r;

	if (!kwd_save_rest) {
		r = sd_event_add_time_relative(d->ev, &kwd_save_rest, CLOCK_MONOTONIC, 0, 1000,
					       on_save_rest, d);
		if (r < 0)
			return r;
		/* Only when nothing else is pending: a source that takes many
		 * turns (5000 inotify events) must not wait a slice each. */
		r = sd_event_source_set_priority(kwd_save_rest, SD_EVENT_PRIORITY_IDLE);
		if (r < 0)
			return r;
	} else {
		r = sd_event_source_set_time_relative(kwd_save_rest, 0);
		if (r < 0)
			return r;
	}
	return sd_event_source_set_enabled(kwd_save_rest, SD_EVENT_ONESHOT);
}

/* One slice of the save of the set in force (rest: of one going on, whose
 * files left out were said); reported once it is done, or fails. */
static void save_slice(struct kwd *d, bool rest)
{
	char path[PATH_MAX];
	int r;

	snprintf(path, sizeof(path), "%.4000s/" KW_INFORCE_DIR, d->state_dir);
	r = kw_inforce_save(&kwd_copies, d->state_dir, d->cur, d->n_cur, &kwd_texts,
			    kw_now_usec() + SAVE_SLICE_USEC, rest);
	if (r > 0 && save_later(d) == 0)
		return;
	if (r > 0)	/* no turn to come back in: all of it now */
		r = kw_inforce_save(&kwd_copies, d->state_dir, d->cur, d->n_cur, &kwd_texts, 0,
				    true);
	if (kwd_save_rest)
		sd_event_source_set_enabled(kwd_save_rest, SD_EVENT_OFF);
	kwd_state_saved(d, &d->inforce_failing, path, r);
}

void kwd_inforce_save(struct kwd *d)
{
	kw_texts_keep(&kwd_texts, d->cur, d->n_cur);
	if (!d->state_dir[0])
		return;
	save_slice(d, false);
}

bool kwd_inforce_saving(void)
{
	int state = SD_EVENT_OFF;

	return kwd_save_rest && sd_event_source_get_enabled(kwd_save_rest, &state) >= 0 &&
		state != SD_EVENT_OFF;
}

void kwd_inforce_forget(void)
{
	kwd_save_rest = sd_event_source_disable_unref(kwd_save_rest);
	kw_texts_free(&kwd_texts);
	kw_inforce_free(&kwd_copies);
}

int kwd_lastgood_load(struct kwd *d)
{
	struct kw_file *set = NULL;
	size_t n = 0;
	int r;

	if (!d->state_dir[0])
		return 0;
	r = kw_inforce_load(&kwd_copies, d->state_dir, d->confdir, &set, &n, &kwd_texts);
	if (r < 0)
		return r;
	free(d->lastgood);
	d->lastgood = set;
	d->n_lastgood = n;
	return 0;
}
