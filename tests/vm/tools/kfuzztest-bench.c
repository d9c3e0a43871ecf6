// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzztest-bench INPUT BLOB N: write the file BLOB to a KFuzzTest target's
 * INPUT N times, one write() per run, and print the runs per second.
 * Exits non-zero if a write fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char blob[65536];
	struct timespec t0, t1;
	long n, i;
	ssize_t len;
	double secs;
	int fd, in;

	if (argc != 4) {
		fprintf(stderr, "usage: %s INPUT BLOB N\n", argv[0]);
		return 2;
	}
	n = strtol(argv[3], NULL, 0);
	in = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (in < 0 || (len = read(in, blob, sizeof(blob))) <= 0) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	close(in);
	fd = open(argv[1], O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (write(fd, blob, len) != len) {
			fprintf(stderr, "write %ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%ld runs in %.3f s: %.0f runs/s\n", n, secs, n / secs);
	return 0;
}
