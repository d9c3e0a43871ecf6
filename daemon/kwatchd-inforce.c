// SPDX-License-Identifier: GPL-2.0
/* The set in force across restarts, saved as copies of the drop-in files
 * and read back by the configuration's loader (kwatchd-inforce.h says how). */
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

/* --- writing a set ------------------------------------------------------------ */

#define TMP_DIR KW_INFORCE_DIR ".tmp"	/* being written, never read */
#define OLD_DIR KW_INFORCE_DIR ".old"	/* without RENAME_EXCHANGE: the previous set */
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* After an openat(DIR_FLAGS) of name failed: none is 0, a symlink or a
 * file in its place is removed. */
static int remove_not_dir(int dirfd, const char *name)
{
	if (errno == ENOENT)
		return 0;
	if (errno != ELOOP && errno != ENOTDIR)
		return neg_errno();
	return unlinkat(dirfd, name, 0) < 0 ? neg_errno() : 0;
}

/* Remove the set directory name under statefd, as the daemon writes them
 * (kind directories of files); anything else there makes it fail.  No
 * symlink is followed: one is removed, as a file. */
static int remove_set(int statefd, const char *name)
{
	_cleanup_close_ int fd = openat(statefd, name, DIR_FLAGS);
	int k, r = 0;

	if (fd < 0)
		return remove_not_dir(statefd, name);
	for (k = 0; k < _KW_KIND_MAX; k++) {
		int kfd = openat(fd, kw_kind_dir[k], DIR_FLAGS);
		struct dirent *de;
		DIR *dir;

		if (kfd < 0) {
			int rr = remove_not_dir(fd, kw_kind_dir[k]);

			if (r == 0)
				r = rr;
			continue;
		}
		dir = fdopendir(kfd);
		if (!dir) {
			if (r == 0)
				r = neg_errno();
			close(kfd);
			continue;
		}
		while ((de = readdir(dir)))
			if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
			    unlinkat(kfd, de->d_name, 0) < 0 && r == 0)
				r = neg_errno();
		closedir(dir);
		if (unlinkat(fd, kw_kind_dir[k], AT_REMOVEDIR) < 0 && r == 0)
			r = neg_errno();
	}
	if (unlinkat(statefd, name, AT_REMOVEDIR) < 0 && r == 0)
		r = neg_errno();
	return r;
}

/* A drop-in's name, as kw_config_load() reads them. */
static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && s[0] != '.' && !strchr(s, '/') && strcmp(s + n - 5, ".conf") == 0;
}

/* Why f cannot be saved, or NULL. */
static const char *unsaved(const struct kw_file *set, size_t i, const struct kw_texts *t,
			   const size_t *n_saved)
{
	const struct kw_file *f = &set[i];

	if ((unsigned int)f->kind >= _KW_KIND_MAX)
		return "not a drop-in kind";
	if (!name_ok(f->name))
		return "a name the configuration's loader would not read";
	if (kw_file_find(set, i, f->kind, f->name))
		return "given twice";
	if (!kw_texts_find(t, f))
		return "its text is not known";
	if (n_saved[f->kind] == KW_DROPINS_MAX)
		return "too many files";
	return NULL;
}

/* The copy name in a saved set's kind directory (dirfd, or -1) holds x's
 * text, a regular file. */
static bool same_copy(int dirfd, const char *name, const struct kw_text *x)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t got = 0;

	if (dirfd < 0)
		return false;
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != x->len)
		return false;
	buf = malloc(x->len + 1);
	if (!buf)
		return false;
	while (got < x->len) {
		ssize_t n = read(fd, buf + got, x->len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		got += n;
	}
	return memcmp(buf, x->text, x->len) == 0;
}

/* The copies of set in TMP_DIR, made durable by one syncfs() and each
 * directory's fsync.  A copy
 * the set in force already holds is linked, not written: an apply that
 * changes one file fsyncs one file, not the whole set again. */
static int write_set(int statefd, const struct kw_file *set, size_t n, const struct kw_texts *t)
{
	size_t saved[_KW_KIND_MAX] = { 0 }, i;
	_cleanup_close_ int fd = -1, prev = -1;
	int kfd[_KW_KIND_MAX], prev_kfd[_KW_KIND_MAX];
	int k, r = 0;

	for (k = 0; k < _KW_KIND_MAX; k++)
		kfd[k] = prev_kfd[k] = -1;
	if (mkdirat(statefd, TMP_DIR, 0700) < 0)
		return neg_errno();
	fd = openat(statefd, TMP_DIR, DIR_FLAGS);
	if (fd < 0)
		return neg_errno();
	prev = openat(statefd, KW_INFORCE_DIR, DIR_FLAGS);
	for (k = 0; k < _KW_KIND_MAX; k++) {
		if (mkdirat(fd, kw_kind_dir[k], 0700) < 0 ||
		    (kfd[k] = openat(fd, kw_kind_dir[k], DIR_FLAGS)) < 0) {
			r = neg_errno();
			goto out;
		}
		if (prev >= 0)
			prev_kfd[k] = openat(prev, kw_kind_dir[k], DIR_FLAGS);
	}
	for (i = 0; i < n; i++) {
		const struct kw_file *f = &set[i];
		const char *why = unsaved(set, i, t, saved);
		const struct kw_text *x;

		if (why) {
			log_warning("in-force: %s not saved: %s", f->path, why);
			continue;
		}
		x = kw_texts_find(t, f);
		saved[f->kind]++;
		if (same_copy(prev_kfd[f->kind], f->name, x) &&
		    linkat(prev_kfd[f->kind], f->name, kfd[f->kind], f->name, 0) == 0)
			continue;
		r = kw_write_file_nosync_at(kfd[f->kind], f->name, x->text, x->len);
		if (r < 0)
			goto out;
	}
	/* One syncfs for the copies rather than an fsync each: a set of
	 * KW_DROPINS_MAX files took 0.6 s of the loop natively, long enough
	 * under emulation for the watchdog. */
	if (syncfs(fd) < 0)
		r = neg_errno();
	for (k = 0; k < _KW_KIND_MAX && r == 0; k++)
		r = kw_fsync_dirfd(kfd[k]);
	if (r == 0)
		r = kw_fsync_dirfd(fd);
out:
	for (k = 0; k < _KW_KIND_MAX; k++) {
		if (kfd[k] >= 0)
			close(kfd[k]);
		if (prev_kfd[k] >= 0)
			close(prev_kfd[k]);
	}
	return r;
}

/* TMP_DIR becomes KW_INFORCE_DIR, the set before it removed. */
static int put_in_place(int statefd)
{
	int r;

	if (renameat2(statefd, TMP_DIR, statefd, KW_INFORCE_DIR, RENAME_EXCHANGE) == 0) {
		r = kw_fsync_dirfd(statefd);
		/* A leftover is removed by the next save, before it writes. */
		remove_set(statefd, TMP_DIR);
		return r;
	}
	if (errno == EINVAL || errno == ENOSYS) {
		/* No exchange here: the previous set waits in OLD_DIR, which
		 * a load reads while there is no KW_INFORCE_DIR. */
		r = remove_set(statefd, OLD_DIR);
		if (r < 0)
			return r;
		if (renameat(statefd, KW_INFORCE_DIR, statefd, OLD_DIR) < 0 && errno != ENOENT)
			return neg_errno();
	} else if (errno != ENOENT) {	/* ENOENT: the first set saved */
		return neg_errno();
	}
	if (renameat(statefd, TMP_DIR, statefd, KW_INFORCE_DIR) < 0)
		return neg_errno();
	r = kw_fsync_dirfd(statefd);
	if (r == 0)
		remove_set(statefd, OLD_DIR);
	return r;
}

int kw_inforce_write(const char *state_dir, const struct kw_file *set, size_t n,
		     const struct kw_texts *t)
{
	_cleanup_close_ int statefd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r;

	if (statefd < 0)
		return neg_errno();
	/* What a crash left half written. */
	r = remove_set(statefd, TMP_DIR);
	if (r == 0)
		r = write_set(statefd, set, n, t);
	if (r == 0)
		r = put_in_place(statefd);
	if (r < 0)
		remove_set(statefd, TMP_DIR);
	return r;
}

/* --- reading a set ------------------------------------------------------------ */

static void keep_text(const struct kw_file *f, const char *text, size_t len, void *user)
{
	int r;

	if (f->err)
		return;		/* never in force */
	r = kw_texts_add(user, f, text, len);
	if (r < 0)
		log_warning_errno(r, "%s: cannot keep its text (%m), it may not be saved", f->path);
}

/* The saved set's directory under state_dir, a real directory whose kind
 * directories are real directories too (the loader follows no symlink to
 * a file, and this none to a directory); -ENOENT if none was saved. */
static int saved_dir(const char *state_dir, char *dir, size_t size)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	int k;

	snprintf(dir, size, "%.4000s/" KW_INFORCE_DIR, state_dir);
	fd = open(dir, DIR_FLAGS);
	if (fd < 0 && errno == ENOENT) {
		snprintf(dir, size, "%.4000s/" OLD_DIR, state_dir);
		fd = open(dir, DIR_FLAGS);
	}
	if (fd < 0) {
		/* O_DIRECTORY | O_NOFOLLOW fails on a symlink with ENOTDIR. */
		if ((errno == ENOTDIR || errno == ELOOP) && lstat(dir, &st) == 0)
			return S_ISLNK(st.st_mode) ? -EMLINK : -ENOTDIR;
		return neg_errno();
	}
	for (k = 0; k < _KW_KIND_MAX; k++) {
		if (fstatat(fd, kw_kind_dir[k], &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			return neg_errno();
		}
		if (!S_ISDIR(st.st_mode))
			return S_ISLNK(st.st_mode) ? -EMLINK : -ENOTDIR;
	}
	return 0;
}

int kw_inforce_read(const char *state_dir, const char *confdir, struct kw_file **ret,
		    size_t *ret_n, struct kw_texts *texts)
{
	struct kw_file *set = NULL;
	size_t n = 0, i, kept = 0;
	char dir[PATH_MAX];
	int r;

	r = saved_dir(state_dir, dir, sizeof(dir));
	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	r = kw_config_load_texts(dir, keep_text, texts, &set, &n);
	if (r < 0)
		return r;
	for (i = 0; i < n; i++) {
		struct kw_file *f = &set[i];
		char path[PATH_MAX];

		if (f->err) {
			/* The parser's line and reason, as for a malformed drop-in. */
			if (f->err_line)
				log_warning("in-force: the saved version %s does not parse "
					    "(line %d: %s), not used", f->path, f->err_line,
					    f->err_reason);
			else
				log_warning("in-force: the saved version %s does not parse (%s), "
					    "not used", f->path, f->err_reason);
			continue;
		}
		/* It stands in for the drop-in of that kind and name. */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s", confdir, kw_kind_dir[f->kind],
				     f->name) >= sizeof(path))
			continue;
		memset(f->path, 0, sizeof(f->path));
		memcpy(f->path, path, strlen(path));
		if (kept != i)
			set[kept] = *f;
		kept++;
	}
	*ret = set;
	*ret_n = kept;
	return 0;
}

/* --- the daemon's ------------------------------------------------------------- */

static struct kw_texts kwd_texts;

int kwd_inforce_config_load(struct kwd *d, struct kw_file **ret, size_t *ret_n)
{
	return kw_config_load_texts(d->confdir, keep_text, &kwd_texts, ret, ret_n);
}

void kwd_inforce_save(struct kwd *d)
{
	char path[PATH_MAX];
	int r;

	kw_texts_keep(&kwd_texts, d->cur, d->n_cur);
	if (!d->state_dir[0])
		return;
	snprintf(path, sizeof(path), "%.4000s/" KW_INFORCE_DIR, d->state_dir);
	r = kw_inforce_write(d->state_dir, d->cur, d->n_cur, &kwd_texts);
	kwd_state_saved(d, &d->inforce_failing, path, r);
}

void kwd_inforce_forget(void)
{
	kw_texts_free(&kwd_texts);
}

int kwd_lastgood_load(struct kwd *d)
{
	struct kw_file *set = NULL;
	char path[PATH_MAX];
	size_t n = 0;
	int r;

	if (!d->state_dir[0])
		return 0;
	/* The single file an older kwatchd saved the set in, in a format no
	 * longer read: this start goes without it, and its apply saves the
	 * set in the directory. */
	snprintf(path, sizeof(path), "%.4000s/in-force", d->state_dir);
	if (unlink(path) == 0)
		log_info("%s: the set in force an older kwatchd saved, in a format no longer "
			 "read: removed, not used", path);
	else if (errno != ENOENT)
		log_warning_errno(neg_errno(), "%s: an older kwatchd's file, not used: %m", path);
	r = kw_inforce_read(d->state_dir, d->confdir, &set, &n, &kwd_texts);
	if (r < 0)
		return r;
	free(d->lastgood);
	d->lastgood = set;
	d->n_lastgood = n;
	return 0;
}
