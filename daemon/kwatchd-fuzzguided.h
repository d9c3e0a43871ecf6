/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.d generate = guided: what kfuzztest-fuzz (libFuzzer steered by the
 * kernel's KCOV coverage) says on its stderr, read line by line.
 */
#ifndef KWATCHD_FUZZGUIDED_H
#define KWATCHD_FUZZGUIDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One run of the fuzzer, as far as its stderr has told. */
struct guided_stats {
	uint64_t execs;		/* inputs written */
	uint64_t edges;		/* kernel edges seen */
	uint64_t refused;	/* writes the kernel refused */
	uint64_t corpus;	/* libFuzzer's corpus, in inputs */
	char report[256];	/* the kernel report that ended the run */
	char error[256];	/* the harness's last other message */
};

/* Bytes of stderr not yet a whole line. */
struct guided_lines {
	char buf[1024];
	size_t len;
	bool overlong;		/* the line in buf went past it: dropped */
};

/* Take one line (no newline). */
void guided_line(struct guided_stats *st, const char *line);
/* Take @n bytes of stderr: each whole line goes to guided_line(); a line
 * longer than the buffer (libFuzzer's dump of an input) is dropped. */
void guided_feed(struct guided_lines *lb, struct guided_stats *st, const char *p, size_t n);

#endif
