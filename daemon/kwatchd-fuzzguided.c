// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.d generate = guided: the figures kfuzztest-fuzz and libFuzzer
 * print on stderr.  The harness prints, once a second,
 *
 *	kfuzztest-fuzz: execs N edges E refused R
 *
 * and "kfuzztest-fuzz: a kernel report after execution N: LINE" before
 * it aborts; libFuzzer's status lines ("#N NEW ft: F corp: C/Sb ...")
 * give the corpus.  Anything else is ignored; the stream is the child's,
 * so a line is bounded and a number that does not parse changes nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kwatchd-fuzzguided.h"

#define HARNESS "kfuzztest-fuzz: "
#define REPORT "a kernel report after execution "

static void copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

void guided_line(struct guided_stats *st, const char *line)
{
	unsigned long long execs, edges, refused;
	const char *p;
	char *end;

	if (!strncmp(line, HARNESS, strlen(HARNESS))) {
		line += strlen(HARNESS);
		if (sscanf(line, "execs %llu edges %llu refused %llu", &execs, &edges,
			   &refused) == 3) {
			st->execs = execs;
			st->edges = edges;
			st->refused = refused;
		} else if (!strncmp(line, REPORT, strlen(REPORT)) &&
			   (p = strstr(line + strlen(REPORT), ": "))) {
			copy(st->report, sizeof(st->report), p + 2);
			/* The count at the report, newer than the last "execs". */
			execs = strtoull(line + strlen(REPORT), &end, 10);
			if (end == p && execs > st->execs)
				st->execs = execs;
		} else {
			copy(st->error, sizeof(st->error), line);
		}
		return;
	}
	/* libFuzzer: "#4096	pulse  ft: 12 corp: 5/120b lim: 43 exec/s: ..." */
	if (line[0] != '#')
		return;
	p = strstr(line, " corp: ");
	if (!p)
		return;
	execs = strtoull(p + 7, &end, 10);
	if (end != p + 7 && *end == '/')
		st->corpus = execs;
}

void guided_feed(struct guided_lines *lb, struct guided_stats *st, const char *p, size_t n)
{
	const char *nl;
	size_t k;

	while (n) {
		nl = memchr(p, '\n', n);
		k = nl ? (size_t)(nl - p) : n;
		if (!lb->overlong && lb->len + k < sizeof(lb->buf)) {
			memcpy(lb->buf + lb->len, p, k);
			lb->len += k;
		} else {
			lb->overlong = true;
		}
		if (!nl)
			return;
		if (!lb->overlong) {
			lb->buf[lb->len] = '\0';
			guided_line(st, lb->buf);
		}
		lb->len = 0;
		lb->overlong = false;
		p = nl + 1;
		n -= k + 1;
	}
}
