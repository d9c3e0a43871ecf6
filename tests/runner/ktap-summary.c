// SPDX-License-Identifier: GPL-2.0
/*
 * ktap-summary FILE: print the failed and missing tests of a KTAP file and
 * the closing line "N passed, N failed, N skipped".  Exit status: 0 all
 * passed, 1 failures, 2 the stream is empty or cut short.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ktap.h"

int main(int argc, char **argv)
{
	struct ktap_reader r;
	FILE *in;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s KTAP-FILE\n", argv[0]);
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "ktap-summary: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	ktap_init(&r, stdout);
	ret = ktap_read_file(&r, in);
	fclose(in);
	if (ret)
		return 2;

	if (r.passed + r.failed + r.skipped + r.missing == 0) {
		/* Nothing ran at all: that is one failure, not zero. */
		printf("missing: every result (empty KTAP stream)\n");
		r.missing = 1;
	}
	printf("%u passed, %u failed, %u skipped\n", r.passed,
	       r.failed + r.missing, r.skipped);
	switch (ktap_verdict(&r)) {
	case 0:
		return 0;
	case -EIO:
		return 1;
	default:
		return 2;
	}
}
