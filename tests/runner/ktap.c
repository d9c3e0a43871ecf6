// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP reader: see ktap.h.  Nesting is by indentation, four spaces a level,
 * as KUnit and the guest runner write it.  A result line is a leaf unless
 * results one level deeper came before it; leaves are counted, parents
 * close their group and check its plan.
 */
#include "ktap.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void group_reset(struct ktap_group *g)
{
	g->plan = -1;
	g->results = 0;
	g->failed = 0;
	g->name[0] = '\0';
}

void ktap_init(struct ktap_reader *r, FILE *report)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i <= KTAP_MAX_DEPTH; i++)
		group_reset(&r->lvl[i]);
	r->report = report;
}

static void report_path(struct ktap_reader *r, int depth, const char *what,
			const char *desc)
{
	int i;

	if (!r->report)
		return;
	fprintf(r->report, "%s: ", what);
	for (i = 1; i <= depth; i++)
		if (r->lvl[i].name[0])
			fprintf(r->report, "%s.", r->lvl[i].name);
	fprintf(r->report, "%s\n", desc);
}

/* Close the group at @depth (its parent's result line arrived, or EOF). */
static int close_group(struct ktap_reader *r, int depth)
{
	struct ktap_group *g = &r->lvl[depth];
	int lost = 0;

	if (g->plan > g->results) {
		lost = g->plan - g->results;
		r->missing += lost;
		if (r->report) {
			char msg[64];

			snprintf(msg, sizeof(msg), "%d of %d results", lost,
				 g->plan);
			report_path(r, depth, "missing", msg);
		}
	}
	lost += g->failed;
	group_reset(g);
	return lost;
}

static const char *skip_number(const char *s)
{
	if (!isdigit((unsigned char)*s))
		return NULL;
	while (isdigit((unsigned char)*s))
		s++;
	return s;
}

static void copy_name(char *dst, const char *src)
{
	size_t n = strcspn(src, "\r\n");

	if (n >= KTAP_NAME_MAX)
		n = KTAP_NAME_MAX - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void feed_result(struct ktap_reader *r, int depth, bool ok,
			const char *rest)
{
	struct ktap_group *child = depth < KTAP_MAX_DEPTH ? &r->lvl[depth + 1] : NULL;
	char desc[KTAP_NAME_MAX];
	const char *directive;
	bool skip = false;

	rest = skip_number(rest);
	if (!rest)
		return;
	while (*rest == ' ')
		rest++;
	if (rest[0] == '-' && rest[1] == ' ')
		rest += 2;
	copy_name(desc, rest);
	directive = strstr(desc, " # ");
	if (directive) {
		const char *d = directive + 3;

		while (*d == ' ')
			d++;
		skip = strncasecmp(d, "SKIP", 4) == 0;
		desc[directive - desc] = '\0';
	} else if (strncmp(desc, "# SKIP", 6) == 0 || strcmp(desc, "#SKIP") == 0) {
		skip = true;
	}

	r->lvl[depth].results++;
	if (child && child->results > 0) {
		/* A parent: its children were counted already. */
		int lost = close_group(r, depth + 1);

		if (!ok && lost == 0 && !skip) {
			/* Failed with every child passing: count it once. */
			r->failed++;
			report_path(r, depth, "not ok", desc);
			lost = 1;
		}
		r->lvl[depth].failed += lost;
		return;
	}
	if (child)
		group_reset(child);
	if (skip) {
		r->skipped++;
	} else if (ok) {
		r->passed++;
	} else {
		r->failed++;
		r->lvl[depth].failed++;
		report_path(r, depth, "not ok", desc);
	}
}

void ktap_feed(struct ktap_reader *r, const char *line)
{
	int indent = 0, depth;
	const char *s = line;

	r->lines++;
	while (*s == ' ') {
		indent++;
		s++;
	}
	depth = indent / 4;
	if (depth > KTAP_MAX_DEPTH)
		return;

	if (strncmp(s, "KTAP version", 12) == 0 || strncmp(s, "TAP version", 11) == 0) {
		r->any = true;
		return;
	}
	if (strncmp(s, "# Subtest: ", 11) == 0) {
		struct ktap_group *g = &r->lvl[depth];

		if (g->results == 0 && g->plan < 0)
			copy_name(g->name, s + 11);
		return;
	}
	if (s[0] == '#')
		return;
	if (strncmp(s, "1..", 3) == 0) {
		const char *e = skip_number(s + 3);

		if (e) {
			r->lvl[depth].plan = atoi(s + 3);
			r->any = true;
		}
		return;
	}
	if (strncmp(s, "ok ", 3) == 0) {
		r->any = true;
		feed_result(r, depth, true, s + 3);
	} else if (strncmp(s, "not ok ", 7) == 0) {
		r->any = true;
		feed_result(r, depth, false, s + 7);
	}
}

void ktap_finish(struct ktap_reader *r)
{
	int d;

	/* Groups still open lost their parent's result line. */
	for (d = KTAP_MAX_DEPTH; d >= 1; d--) {
		struct ktap_group *g = &r->lvl[d];

		if (g->results == 0 && g->plan < 0)
			continue;
		if (g->plan <= g->results) {
			/* All its results came, but not the closing line. */
			r->missing++;
			report_path(r, d, "missing", "result line of this group");
			group_reset(g);
		} else {
			close_group(r, d);
		}
		/* The parent that never reported counts as one result. */
		r->lvl[d - 1].results++;
	}
	close_group(r, 0);
}

int ktap_verdict(const struct ktap_reader *r)
{
	if (!r->any || r->passed + r->failed + r->skipped == 0)
		return -EAGAIN;
	if (r->missing)
		return -EAGAIN;
	if (r->failed)
		return -EIO;
	return 0;
}

int ktap_read_file(struct ktap_reader *r, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, in) > 0)
		ktap_feed(r, line);
	free(line);
	ktap_finish(r);
	return ferror(in) ? -EIO : 0;
}
