// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "keep.h"
#include "util.h"

struct kept {
	struct timespec t;
	char name[NAME_MAX + 1];
};

static int cmp_kept(const void *a, const void *b)
{
	const struct kept *x = a, *y = b;

	if (x->t.tv_sec != y->t.tv_sec)
		return x->t.tv_sec < y->t.tv_sec ? -1 : 1;
	if (x->t.tv_nsec != y->t.tv_nsec)
		return x->t.tv_nsec < y->t.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The entries of dfd that count, oldest first. */
static int list_aged(int dfd, const struct kw_keep_ops *ops, void *ud, struct kept **ret,
		     size_t *ret_n)
{
	struct kept *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	int fd, r = 0;
	DIR *d;

	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.' ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !ops->counts(de->d_name, &st, ud))
			continue;
		if (n == cap) {
			struct kept *t = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (!t) {
				r = -ENOMEM;
				break;
			}
			v = t;
		}
		v[n].t = st.st_ctim;
		snprintf(v[n].name, sizeof(v[n].name), "%s", de->d_name);
		n++;
	}
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_kept);
	*ret = v;
	*ret_n = n;
	return 0;
}

int kw_keep_newest(int dfd, unsigned int keep, const struct kw_keep_ops *ops, void *ud,
		   unsigned int *removed, unsigned int *left)
{
	_cleanup_free_ struct kept *v = NULL;
	size_t n = 0, i;
	int r;

	*removed = 0;
	r = list_aged(dfd, ops, ud, &v, &n);
	if (left)
		*left = n;
	if (r < 0 || n <= keep)
		return r;
	for (i = 0; i < n - keep; i++) {
		r = ops->remove(dfd, v[i].name, ud);
		if (r < 0)
			return r;
		*removed += r == 0;
		if (left)
			(*left)--;
	}
	return 0;
}

/* --- a target's crash directory ------------------------------------------- */

static bool is_blob(const char *name, const struct stat *st, void *ud)
{
	(void)ud;
	return S_ISREG(st->st_mode) && !kw_ends_with(name, ".report");
}

/* A blob and its reports: NAME, NAME.report, NAME.2.report ... */
static int remove_blob(int dfd, const char *name, void *ud)
{
	char rep[NAME_MAX + 1];
	unsigned int i;

	(void)ud;
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return neg_errno();
	for (i = 1; i < 100; i++) {
		if (i == 1)
			snprintf(rep, sizeof(rep), "%.240s.report", name);
		else
			snprintf(rep, sizeof(rep), "%.240s.%u.report", name, i);
		if (unlinkat(dfd, rep, 0) < 0) {
			if (errno != ENOENT)
				return neg_errno();
			if (i > 1)
				break;
		}
	}
	return 0;
}

int kw_keep_newest_blobs(int dfd, unsigned int keep, unsigned int *removed)
{
	static const struct kw_keep_ops blobs = { .counts = is_blob, .remove = remove_blob };

	*removed = 0;
	return keep ? kw_keep_newest(dfd, keep, &blobs, NULL, removed, NULL) : 0;
}
