/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP reader for the VM test runner: counts the leaf results of a nested
 * KTAP stream (the guest suites, with KUnit's own KTAP nested inside) and
 * treats a result that never arrived as a failure.
 */
#ifndef KWATCH_KTAP_H
#define KWATCH_KTAP_H

#include <stdbool.h>
#include <stdio.h>

#define KTAP_MAX_DEPTH	8
#define KTAP_NAME_MAX	128

struct ktap_group {
	int plan;		/* -1 when no "1..N" line was seen */
	int results;		/* result lines seen at this depth */
	int failed;		/* failed or missing leaves below this group */
	char name[KTAP_NAME_MAX];
};

struct ktap_reader {
	struct ktap_group lvl[KTAP_MAX_DEPTH + 1];
	unsigned int passed;
	unsigned int failed;
	unsigned int skipped;
	unsigned int missing;	/* planned results that never came */
	unsigned int lines;
	bool any;		/* saw a KTAP header, plan or result */
	FILE *report;		/* one line per failed or missing test, or NULL */
};

void ktap_init(struct ktap_reader *r, FILE *report);
/* Feed one line, without or with its trailing newline. */
void ktap_feed(struct ktap_reader *r, const char *line);
/* Close every open group: a group short of its plan counts as missing. */
void ktap_finish(struct ktap_reader *r);
/* 0 when everything planned ran and nothing failed, else -EAGAIN for an
 * empty or truncated stream and -EIO for failures. */
int ktap_verdict(const struct ktap_reader *r);
int ktap_read_file(struct ktap_reader *r, FILE *in);

#endif
