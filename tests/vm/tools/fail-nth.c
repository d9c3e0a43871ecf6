// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth [-a] [-f SRC] N FILE [TEXT]: one control operation with the Nth
 * fault point of this task failed (/proc/thread-self/fail-nth,
 * Documentation/fault-injection/fault-injection.rst), from the open of
 * FILE to its close: FILE opened for appending with -a (the shell's >>),
 * else truncating (>), then one write of TEXT and a newline (what echo
 * writes; no TEXT: an empty line), or of the bytes of SRC, then the close.
 * N 0 fails nothing.  Nothing else runs between the two writes to
 * fail-nth, so no other system call takes the fault.
 *
 * Prints "injected=I rc=R at=STEP": I 1 if the Nth fault point was
 * reached (and failed), R 0 or the negative errno of STEP (open, write or
 * close; "-" when all succeeded; a short write is -EIO).  Exits 0 if all
 * succeeded, 1 if a step failed, 2 on a usage or set-up error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[1 << 20];

int main(int argc, char **argv)
{
	const char *src = NULL, *step = "-";
	int flags = O_WRONLY | O_TRUNC | O_CLOEXEC, nth, fd, opt, rc = 0;
	char num[32];
	ssize_t len = 0, n;
	long left;

	/* "+": options before N only; a TEXT may start with "-". */
	while ((opt = getopt(argc, argv, "+af:")) != -1) {
		switch (opt) {
		case 'a':
			flags = O_WRONLY | O_APPEND | O_CLOEXEC;
			break;
		case 'f':
			src = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2 || argc - optind > 3 || (src && argc - optind > 2))
		goto usage;
	if (src) {
		fd = open(src, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || (len = read(fd, buf, sizeof(buf))) <= 0) {
			fprintf(stderr, "fail-nth: %s: %s\n", src, fd < 0 || len < 0 ? strerror(errno) : "empty");
			return 2;
		}
		close(fd);
	} else {
		const char *text = argc - optind == 3 ? argv[optind + 2] : "";

		len = snprintf(buf, sizeof(buf), "%s\n", text);
		if (len >= (ssize_t)sizeof(buf))
			goto usage;
	}

	nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth < 0) {
		perror("fail-nth: /proc/thread-self/fail-nth");
		return 2;
	}
	snprintf(num, sizeof(num), "%d", atoi(argv[optind]));
	if (write(nth, num, strlen(num)) < 0) {
		perror("fail-nth: writing /proc/thread-self/fail-nth");
		return 2;
	}

	fd = open(argv[optind + 1], flags);
	if (fd < 0) {
		rc = -errno;
		step = "open";
	} else {
		n = write(fd, buf, len);
		if (n != len) {
			rc = n < 0 ? -errno : -EIO;
			step = "write";
		}
		if (close(fd) && !rc) {
			rc = -errno;
			step = "close";
		}
	}

	/* What is left of N: 0 once the Nth fault point failed. */
	n = pread(nth, num, sizeof(num) - 1, 0);
	if (n <= 0) {
		perror("fail-nth: reading /proc/thread-self/fail-nth");
		return 2;
	}
	num[n] = 0;
	left = strtol(num, NULL, 10);
	if (write(nth, "0", 1) < 0) {
		perror("fail-nth: resetting /proc/thread-self/fail-nth");
		return 2;
	}
	close(nth);
	printf("injected=%d rc=%d at=%s\n", atoi(argv[optind]) > 0 && left == 0, rc, step);
	return rc ? 1 : 0;

usage:
	fprintf(stderr, "usage: fail-nth [-a] [-f SRC] N FILE [TEXT]\n");
	return 2;
}
