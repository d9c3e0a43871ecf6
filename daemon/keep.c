// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static bool is_report(const char *name)
{
	size_t len = strlen(name);

	return len > 7 && strcmp(name + len - 7, ".report") == 0;
}

/* A blob and its reports: NAME, NAME.report, NAME.2.report ... */
static int remove_blob(int dfd, const char *name)
{
	char rep[NAME_MAX + 1];
	unsigned int i;

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
	_cleanup_free_ struct kept *v = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int fd, r = 0;
	DIR *d;

	*removed = 0;
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

		if (de->d_name[0] == '.' || is_report(de->d_name))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
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
	if (r < 0 || !keep || n <= keep)
		return r;
	qsort(v, n, sizeof(*v), cmp_kept);
	for (i = 0; i < n - keep; i++) {
		r = remove_blob(dfd, v[i].name);
		if (r < 0)
			return r;
		(*removed)++;
	}
	return 0;
}
