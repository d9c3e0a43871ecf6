// SPDX-License-Identifier: GPL-2.0
/* pstore dmesg records: found, read once, split into reports. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "pstore.h"
#include "util.h"

/* The records read before (old, from the file) and those present now
 * (saved for the next scan: a record gone from pstore is forgotten). */
struct seen {
	struct hashes {
		uint64_t h[PSTORE_SEEN_MAX];
		unsigned int n;
	} old, now;
	bool full;
};

static bool has(const struct hashes *s, uint64_t h)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->h[i] == h)
			return true;
	return false;
}

static void seen_load(struct seen *s, const char *path)
{
	_cleanup_free_ char *text = NULL;
	const char *p;
	uint64_t h;
	int off;

	if (kw_read_file(path, PSTORE_SEEN_MAX * 20, &text, NULL) < 0)
		return;
	for (p = text; s->old.n < PSTORE_SEEN_MAX && sscanf(p, "%" SCNx64 "%n", &h, &off) == 1;
	     p += off)
		s->old.h[s->old.n++] = h;
}

static int seen_save(const struct seen *s, const char *path)
{
	char buf[PSTORE_SEEN_MAX * 17 + 1];
	size_t len = 0;
	unsigned int i;

	if (s->now.n == s->old.n && !memcmp(s->now.h, s->old.h, sizeof(s->now.h[0]) * s->now.n))
		return 0;
	for (i = 0; i < s->now.n; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%016" PRIx64 "\n", s->now.h[i]);
	return kw_replace_file(path, buf, len);
}

static int read_record(const char *path, struct seen *s, pstore_cb cb, void *userdata)
{
	struct pstore_record rec = { .path = path };
	_cleanup_free_ char *text = NULL;
	size_t len;
	uint64_t h;
	int r;

	r = kw_read_file(path, PSTORE_REC_MAX, &text, &len);
	if (r < 0)
		return log_warning_errno(r, "pstore: cannot read %s: %m", path), 0;
	h = kw_hash(text, len);
	if (has(&s->now, h))
		return 0;		/* a copy (pstore and its archive) */
	if (s->now.n == PSTORE_SEEN_MAX) {
		if (!s->full)
			log_warning("pstore: more than %d records, %s and later ones not read",
				    PSTORE_SEEN_MAX, path);
		s->full = true;
		return 0;
	}
	if (has(&s->old, h)) {
		s->now.h[s->now.n++] = h;
		return 0;
	}
	rec.text = text;
	rec.len = len;
	if (sscanf(text, "%15[A-Za-z]#%*u Part%u", rec.reason, &rec.part) != 2) {
		rec.reason[0] = '\0';
		rec.part = 0;
	}
	r = cb(&rec, userdata);
	if (r < 0)
		return r;
	s->now.h[s->now.n++] = h;
	return 1;
}

/* Newest first where names sort by time (systemd-pstore's archive): when
 * more than PSTORE_SEEN_MAX records pile up, the oldest are left out. */
static int by_name_desc(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*b)->d_name, (*a)->d_name);
}

/* The dmesg-* files of dir and, depth > 0, of its subdirectories. */
static int scan_dir(const char *dir, int depth, struct seen *s, pstore_cb cb, void *userdata)
{
	struct dirent **de = NULL;
	char path[PATH_MAX];
	int i, n, r = 0, found = 0;

	n = scandir(dir, &de, NULL, by_name_desc);
	if (n < 0)
		return errno == ENOENT ? 0 : neg_errno();
	for (i = 0; i < n; i++) {
		const char *name = de[i]->d_name;
		struct stat st;

		if (r < 0 || name[0] == '.' ||
		    snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
		    lstat(path, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			r = scan_dir(path, depth - 1, s, cb, userdata);
		else if (S_ISREG(st.st_mode) && strncmp(name, "dmesg-", 6) == 0)
			r = read_record(path, s, cb, userdata);
		else
			continue;
		if (r > 0)
			found += r;
	}
	for (i = 0; i < n; i++)
		free(de[i]);
	free(de);
	return r < 0 ? r : found;
}

int pstore_scan(const char *dirs, const char *seen_path, pstore_cb cb, void *userdata)
{
	struct seen s = { .full = false };
	char dir[PATH_MAX];
	const char *p = dirs;
	int r = 0, ret, found = 0;
	unsigned int i;
	size_t n;

	seen_load(&s, seen_path);
	while (r >= 0 && *(p += strspn(p, " \t"))) {
		n = strcspn(p, " \t");
		if (n < sizeof(dir)) {
			memcpy(dir, p, n);
			dir[n] = '\0';
			r = scan_dir(dir, 1, &s, cb, userdata);
			if (r > 0)
				found += r;
		}
		p += n;
	}
	/* After an error, what was not reached is not known to be gone. */
	for (i = 0; r < 0 && i < s.old.n && s.now.n < PSTORE_SEEN_MAX; i++)
		if (!has(&s.now, s.old.h[i]))
			s.now.h[s.now.n++] = s.old.h[i];
	ret = seen_save(&s, seen_path);
	if (ret < 0)
		log_warning_errno(ret, "pstore: cannot save %s: %m", seen_path);
	return r < 0 ? r : found;
}

/* --- reports --------------------------------------------------------------- */

struct split {
	struct kmsg_report *cause, *panic;
	bool cause_set, panic_set;
};

static int on_split(const struct kmsg_report *r, void *userdata)
{
	struct split *sp = userdata;

	if (sp->panic_set)
		return 0;		/* after the panic: not its cause */
	if (r->kind == KMSG_PANIC) {
		*sp->panic = *r;
		sp->panic_set = true;
	} else {
		*sp->cause = *r;
		sp->cause_set = true;
	}
	return 0;
}

int pstore_reports(const char *text, struct kmsg_report **cause, struct kmsg_report **panic)
{
	struct split sp = { .cause_set = false };
	struct kmsg_parser p;
	const char *s, *m;
	char line[KMSG_LINE_MAX];
	uint64_t ts;
	size_t n;
	int r;

	*cause = *panic = NULL;
	sp.cause = malloc(sizeof(*sp.cause));
	sp.panic = malloc(sizeof(*sp.panic));
	r = sp.cause && sp.panic ? kmsg_parser_init(&p) : -ENOMEM;
	if (r < 0)
		goto out;
	for (s = text; *s; s += n, s += *s == '\n') {
		n = strcspn(s, "\n");
		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		m = kmsg_strip(line, &ts, NULL);
		if (m)
			kmsg_feed(&p, m, ts, on_split, &sp);
	}
	kmsg_flush(&p, on_split, &sp);
	kmsg_parser_free(&p);
	if (sp.cause_set) {
		*cause = sp.cause;
		sp.cause = NULL;
	}
	if (sp.panic_set) {
		*panic = sp.panic;
		sp.panic = NULL;
	}
out:
	free(sp.cause);
	free(sp.panic);
	return r;
}
