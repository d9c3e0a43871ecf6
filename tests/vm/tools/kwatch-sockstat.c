// SPDX-License-Identifier: GPL-2.0
/*
 * kwatch-sockstat: a measuring client of kwatchd's event socket.
 *
 *   kwatch-sockstat [-s SOCKET] [-t TYPE] [-n COUNT] [-w SECONDS] [-o FILE]
 *
 * Reads NDJSON lines until COUNT lines of TYPE arrived or SECONDS passed
 * without one, then prints one summary line:
 *
 *   type=T events=N first_seq=A last_seq=B secs=S rate=R/s
 *   latency_us min=.. median=.. p99=.. max=..
 *
 * The latency of a line is the CLOCK_MONOTONIC time of its receipt minus
 * its "ktime_ns" field (bpf_ktime_get_ns() of the record: CLOCK_MONOTONIC
 * too), so it covers ring buffer, daemon and socket.  -o keeps the lines.
 * Prints "ready" on stderr once connected.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES 1000000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t field_u64(const char *line, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	return p ? strtoull(p + strlen(pat), NULL, 10) : 0;
}

int main(int argc, char **argv)
{
	const char *path = "/run/kwatchd/events.sock", *type = "catch", *out = NULL;
	unsigned long want = 1, wait_s = 10, n = 0, nlat = 0;
	uint64_t *lat, first_seq = 0, last_seq = 0, t_first = 0, t_last = 0;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char buf[1 << 20];
	size_t len = 0;
	char pat[80];
	FILE *keep = NULL;
	int fd, opt;

	while ((opt = getopt(argc, argv, "s:t:n:w:o:")) != -1) {
		switch (opt) {
		case 's': path = optarg; break;
		case 't': type = optarg; break;
		case 'n': want = strtoul(optarg, NULL, 0); break;
		case 'w': wait_s = strtoul(optarg, NULL, 0); break;
		case 'o': out = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-s SOCKET] [-t TYPE] [-n COUNT] [-w SECONDS] [-o FILE]\n",
				argv[0]);
			return 2;
		}
	}
	lat = calloc(MAX_SAMPLES, sizeof(*lat));
	if (!lat)
		return 1;
	if (out && !(keep = fopen(out, "w"))) {
		perror(out);
		return 1;
	}
	snprintf(pat, sizeof(pat), "\"type\":\"%s\"", type);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(path);
		return 1;
	}
	fprintf(stderr, "ready\n");
	while (n < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		char *nl, *line;
		ssize_t r;

		if (poll(&pfd, 1, wait_s * 1000) <= 0)
			break;
		r = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (r <= 0)
			break;
		len += r;
		buf[len] = '\0';
		line = buf;
		while ((nl = strchr(line, '\n'))) {
			uint64_t t = now_ns(), k;

			*nl = '\0';
			if (keep)
				fprintf(keep, "%s\n", line);
			if (strstr(line, pat)) {
				if (!n++) {
					first_seq = field_u64(line, "seq");
					t_first = t;
				}
				last_seq = field_u64(line, "seq");
				t_last = t;
				k = field_u64(line, "ktime_ns");
				if (k && k <= t && nlat < MAX_SAMPLES)
					lat[nlat++] = t - k;
			}
			line = nl + 1;
		}
		len -= line - buf;
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			len = 0;	/* a line longer than the buffer: drop it */
	}
	if (keep)
		fclose(keep);
	printf("type=%s events=%lu first_seq=%" PRIu64 " last_seq=%" PRIu64 " secs=%.3f rate=%.0f/s\n",
	       type, n, first_seq, last_seq, (t_last - t_first) / 1e9,
	       t_last > t_first ? (n - 1) / ((t_last - t_first) / 1e9) : 0.0);
	if (nlat) {
		qsort(lat, nlat, sizeof(*lat), cmp_u64);
		printf("latency_us min=%.0f median=%.0f p99=%.0f max=%.0f samples=%lu\n",
		       lat[0] / 1e3, lat[nlat / 2] / 1e3, lat[nlat * 99 / 100] / 1e3,
		       lat[nlat - 1] / 1e3, nlat);
	}
	free(lat);
	return n ? 0 : 1;
}
