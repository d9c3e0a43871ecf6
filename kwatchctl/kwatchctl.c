// SPDX-License-Identifier: GPL-2.0
/* kwatchctl: the client of kwatchd's event socket, and a reader of saved
 * NDJSON streams (kwatchctl-events.c).
 *
 *   kwatchctl [-s SOCKET] follow [-r] [-t|-T TYPE,...] [-n COUNT] [-w SEC] [-i SEC] [-S] [-f FILE]
 *   kwatchctl [-s SOCKET] status [-r]
 *   kwatchctl [-s SOCKET] reload
 *   kwatchctl [-s SOCKET] bench N [RATE]
 *   kwatchctl summary [FILE]
 *   kwatchctl resolve [-e ELF]... [-x INDEX] [-d DEPTH] [-v] FUNCTION [VARIABLE]
 *   kwatchctl stackvars ELF... >INDEX
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <json-c/json.h>

#include "kwatchctl.h"
#include "util.h"

struct follow {
	bool raw, summary, backlog;
	bool subscribed;	/* -T: the daemon sends only those types */
	const char *input;	/* -f: a file or "-" instead of the socket */
	char types[512];
	long count;
	int stall_s, idle_s;
	/* what was seen */
	uint64_t events, lost_records, lost_events, gaps, last_seq, matched;
	double t_first, t_last;
	/* -S: receipt time minus the event's kernel_ns (BPF events carry the
	 * CLOCK_MONOTONIC time of their record), in ns; received is when the
	 * read that brought the line returned, before its parsing */
	uint64_t received_ns;
	uint64_t *lat;
	size_t n_lat, cap_lat;
};

#define LAT_MAX (1 << 20)

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (kw_strlcpy(sa.sun_path, path, sizeof(sa.sun_path)) < 0)
		return -ENAMETOOLONG;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return neg_errno();
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = neg_errno();

		close(fd);
		return r;
	}
	return fd;
}

static int send_line(int fd, const char *line)
{
	size_t len = strlen(line);

	return send(fd, line, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : neg_errno();
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

/* reload -r, bench -r: the daemon's reply as it came, on stdout. */
static bool raw_replies;

/*
 * Read the stream until the first record of @type (events that come
 * before it are skipped); *ret owns it.  The daemon's refusal (a "refused"
 * record, or a "reply" that is not ok) is printed and is -ECANCELED.
 */
static int read_record(int fd, const char *type, json_object **ret)
{
	static char buf[1 << 20];
	size_t len = 0;

	*ret = NULL;
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char *line, *nl;
		ssize_t n;
		int r;

		r = poll(&p, 1, 10000);
		if (r == 0)
			return -ETIMEDOUT;
		if (r < 0 && errno != EINTR)
			return neg_errno();
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? neg_errno() : -EPIPE;
		len += n;
		buf[len] = '\0';
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			json_object *o, *v;
			const char *t;

			*nl = '\0';
			o = json_tokener_parse(line);
			t = o ? str_field(o, "type") : "";
			if (strcmp(t, "refused") == 0 ||
			    (strcmp(t, "reply") == 0 && json_object_object_get_ex(o, "ok", &v) &&
			     !json_object_get_boolean(v))) {
				if (raw_replies)
					puts(line);
				fprintf(stderr, "kwatchctl: the daemon refused: %s (%s)\n",
					str_field(o, "reason"), str_field(o, "error"));
				json_object_put(o);
				return -ECANCELED;
			}
			if (strcmp(t, type) == 0) {
				if (raw_replies && strcmp(type, "reply") == 0)
					puts(line);
				*ret = o;
				return 0;
			}
			json_object_put(o);
		}
		len -= line - buf;
		memmove(buf, line, len);
		if (len == sizeof(buf) - 1)
			return -EMSGSIZE;
	}
}

/* The daemon's answer to a command; its note (e.g. queued) goes to stderr. */
static int command_reply(int fd, const char *cmd)
{
	json_object *o = NULL;
	int r = read_record(fd, "reply", &o);

	if (r == 0 && *str_field(o, "reason"))
		fprintf(stderr, "kwatchctl: %s: %s\n", cmd, str_field(o, "reason"));
	json_object_put(o);
	return r;
}

/* Answers to one client reuse the last seq: not stream events. */
static bool is_reply(const char *type)
{
	return strcmp(type, "status") == 0 || strcmp(type, "reply") == 0;
}

static bool type_wanted(const struct follow *f, const char *type)
{
	char buf[520], *tok, *save;

	if (!f->types[0])
		return true;
	snprintf(buf, sizeof(buf), "%s", f->types);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (strcmp(tok, type) == 0)
			return true;
	return false;
}

static void add_latency(struct follow *f, uint64_t ktime_ns)
{
	uint64_t now = f->received_ns;

	if (ktime_ns > now || f->n_lat == LAT_MAX)
		return;
	if (f->n_lat == f->cap_lat) {
		size_t cap = f->cap_lat ? f->cap_lat * 2 : 1024;
		uint64_t *tmp = realloc(f->lat, cap * sizeof(*tmp));

		if (!tmp)
			return;
		f->lat = tmp;
		f->cap_lat = cap;
	}
	f->lat[f->n_lat++] = now - ktime_ns;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_summary(struct follow *f)
{
	double secs = f->matched ? f->t_last - f->t_first : 0.0;
	size_t n = f->n_lat;

	char gaps[24] = "-";

	if (!f->subscribed)
		snprintf(gaps, sizeof(gaps), "%" PRIu64, f->gaps);
	fprintf(stderr, "events=%" PRIu64 " matched=%" PRIu64 " lost_records=%" PRIu64
		" lost_events=%" PRIu64 " gaps=%s last_seq=%" PRIu64
		" seconds=%.3f rate=%.0f/s\n", f->events, f->matched, f->lost_records,
		f->lost_events, gaps, f->last_seq, secs,
		secs > 0 ? (f->matched - 1) / secs : 0.0);
	if (!n)
		return;
	qsort(f->lat, n, sizeof(*f->lat), cmp_u64);
	fprintf(stderr, "latency_us min=%.0f median=%.0f p99=%.0f max=%.0f samples=%zu\n",
		f->lat[0] / 1e3, f->lat[n / 2] / 1e3, f->lat[n * 99 / 100] / 1e3,
		f->lat[n - 1] / 1e3, n);
}

/* One line of the stream; returns 1 when the follow is complete. */
static int on_line(struct follow *f, const char *line)
{
	json_object *o = json_tokener_parse(line), *v;
	const char *type;
	uint64_t seq;
	int done = 0;

	if (!o) {
		fprintf(stderr, "kwatchctl: not JSON: %.80s\n", line);
		return 0;
	}
	kwc_schema_check(o);
	type = json_object_object_get_ex(o, "type", &v) ? json_object_get_string(v) : "";
	seq = json_object_object_get_ex(o, "seq", &v) ? json_object_get_uint64(v) : 0;
	f->events++;
	if (strcmp(type, "reply") == 0 && strcmp(str_field(o, "command"), "subscribe") == 0 &&
	    json_object_object_get_ex(o, "ok", &v) && !json_object_get_boolean(v)) {
		fprintf(stderr, "kwatchctl: %s\n", str_field(o, "reason"));
		json_object_put(o);
		return -EINVAL;
	}
	if (strcmp(type, "lost") == 0) {
		f->lost_records++;
		if (json_object_object_get_ex(o, "count", &v))
			f->lost_events += json_object_get_uint64(v);
	} else if (!is_reply(type) && !f->subscribed) {
		/* Subscribed, the other types' seqs are missing by design. */
		if (f->last_seq && seq != f->last_seq + 1)
			f->gaps++;
	}
	if (!is_reply(type))
		f->last_seq = seq;
	if (type_wanted(f, type) || strcmp(type, "lost") == 0) {
		if (!f->matched)
			f->t_first = now_s();
		f->t_last = now_s();
		if (type_wanted(f, type))
			f->matched++;
		if (f->summary && (json_object_object_get_ex(o, "kernel_ns", &v) ||
				   json_object_object_get_ex(o, "ktime_ns", &v)))
			add_latency(f, json_object_get_uint64(v));
		if (f->raw)
			puts(line);
		else
			kwc_print_readable(stdout, o);
		if (f->count > 0 && f->matched >= (uint64_t)f->count)
			done = 1;
	}
	json_object_put(o);
	return done;
}

static int follow(int fd, struct follow *f)
{
	static char buf[1 << 16];
	size_t len = 0;
	int r = 0, done = 0;

	if (f->stall_s > 0) {
		/* A deliberately stalled reader (tests the daemon's queue policy). */
		struct timespec ts = { .tv_sec = f->stall_s };

		nanosleep(&ts, NULL);
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		char *nl, *start;

		r = poll(&p, 1, f->idle_s > 0 ? f->idle_s * 1000 : -1);
		if (r == 0)
			break;	/* idle: done */
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		f->received_ns = kw_now_usec() * 1000;
		if (n == 0 && f->input && len > 0) {
			/* A file that ends without a newline: its last line. */
			buf[len] = '\0';
			on_line(f, buf);
			break;
		}
		if (n <= 0)
			break;
		len += n;
		buf[len] = '\0';
		start = buf;
		while ((nl = strchr(start, '\n'))) {
			*nl = '\0';
			done = on_line(f, start);
			if (done) {
				fflush(stdout);
				goto out;
			}
			start = nl + 1;
		}
		fflush(stdout);	/* followers are often redirected to files */
		len -= start - buf;
		memmove(buf, start, len);
		if (len == sizeof(buf) - 1)
			len = 0;
	}
out:
	fflush(stdout);
	if (f->summary)
		print_summary(f);
	free(f->lat);
	f->lat = NULL;
	return done < 0 ? done : 0;
}

static int summary(const char *path)
{
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	int r;

	if (!in) {
		fprintf(stderr, "kwatchctl: %s: %m\n", path);
		return 1;
	}
	r = kwc_summary(in, stdout);
	if (in != stdin)
		fclose(in);
	if (r < 0)
		fprintf(stderr, "kwatchctl: summary of %s: %s\n", path, strerror(-r));
	return r < 0 ? 1 : 0;
}

static void usage(void)
{
	printf("usage: kwatchctl [-s SOCKET] COMMAND\n"
	       "  follow [-b] [-r] [-t|-T TYPE,...] [-n COUNT] [-w SEC] [-i SEC] [-S] [-f FILE]\n"
	       "         stream events: -b first the daemon's last 512 events, -r raw NDJSON,\n"
	       "         -t only these types (lost records always shown), -T the same, asked of\n"
	       "         the daemon (it sends no others; seq gaps are not counted), -n stop after\n"
	       "         COUNT, -w wait SEC before reading (a stalled client), -i exit after\n"
	       "         SEC without data, -S summary on stderr (counts, rate, and the latency\n"
	       "         to receipt of events carrying kernel_ns),\n"
	       "         -f read NDJSON from FILE (- for stdin) to its end instead of the socket;\n"
	       "         a file still being written: tail -n +1 -F FILE | kwatchctl follow -f -\n"
	       "  status [-r]   the daemon's state (files, watch, wprobes, spools, clients, drops)\n"
	       "  reload [-r]   re-read the configuration directory (-r: print the reply record)\n"
	       "  bench [-r] N [RATE]  ask the daemon for N synthetic 'bench' events (RATE per second)\n"
	       "  summary [FILE]  read a saved stream (default stdin) to its end: events by type,\n"
	       "         seq ranges and gaps no lost record covers, lost records, catches, crashes\n"
	       "  resolve [-e ELF]... [-x INDEX] [-d DEPTH] [-v] FUNCTION [VARIABLE]\n"
	       "         the /proc/kstackwatch line that watches VARIABLE of FUNCTION (its\n"
	       "         stack canary without one): names from DWARF, no offsets; -b: many,\n"
	       "         'FUNCTION [VARIABLE]' a line on stdin\n"
	       "  stackvars ELF... >INDEX  the index of stack variables that resolve reads\n");
}

int main(int argc, char **argv)
{
	const char *sock = getenv("KWATCHD_SOCKET");
	struct follow f = { .count = -1 };
	const char *cmd;
	int opt, fd, r;

	if (!sock)
		sock = "/run/kwatchd/events.sock";
	while ((opt = getopt(argc, argv, "+s:h")) != -1) {
		if (opt == 's') {
			sock = optarg;
		} else {
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind >= argc) {
		usage();
		return 2;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "resolve") == 0)
		return kwc_resolve(argc - optind, argv + optind);
	if (strcmp(cmd, "stackvars") == 0)
		return kwc_stackvars(argc - optind, argv + optind);
	optind++;
	while ((opt = getopt(argc, argv, "brt:T:n:w:i:Sf:")) != -1) {
		switch (opt) {
		case 'b': f.backlog = true; break;
		case 'f': f.input = optarg; break;
		case 'r': f.raw = true; break;
		case 'T': f.subscribed = true; /* fall through */
		case 't': snprintf(f.types, sizeof(f.types), "%s", optarg); break;
		case 'n': f.count = atol(optarg); break;
		case 'w': f.stall_s = atoi(optarg); break;
		case 'i': f.idle_s = atoi(optarg); break;
		case 'S': f.summary = true; break;
		default: usage(); return 2;
		}
	}
	if (strcmp(cmd, "summary") == 0)
		return summary(f.input ? f.input : optind < argc ? argv[optind] : "-");
	if (f.input && strcmp(cmd, "follow") == 0) {
		f.subscribed = false;	/* a file: -T is -t */
		fd = strcmp(f.input, "-") == 0 ? STDIN_FILENO : open(f.input, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "kwatchctl: %s: %m\n", f.input);
			return 1;
		}
		follow(fd, &f);
		if (fd != STDIN_FILENO)
			close(fd);
		return 0;
	}
	fd = connect_to(sock);
	if (fd < 0) {
		fprintf(stderr, "kwatchctl: %s: %s\n", sock, strerror(-fd));
		return 1;
	}
	if (strcmp(cmd, "follow") == 0) {
		char line[600];

		/* The reply comes in the stream: follow() reads a refusal. */
		snprintf(line, sizeof(line), "subscribe %s\n", f.types);
		r = f.subscribed && !f.input ? send_line(fd, line) : 0;
		if (r == 0 && f.backlog)
			r = send_line(fd, "backlog\n");
		if (r == 0)
			r = follow(fd, &f);
	} else if (strcmp(cmd, "status") == 0) {
		snprintf(f.types, sizeof(f.types), "status");
		f.count = 1;
		f.idle_s = 10;
		r = send_line(fd, "status\n");
		if (r == 0 && f.raw) {
			r = follow(fd, &f);
		} else if (r == 0) {
			json_object *o = NULL;

			/* pretty-print the one status record */
			r = read_record(fd, "status", &o);
			if (r == 0)
				puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								    JSON_C_TO_STRING_NOSLASHESCAPE));
			json_object_put(o);
		}
	} else if (strcmp(cmd, "reload") == 0) {
		raw_replies = f.raw;
		r = send_line(fd, "reload\n");
		if (r == 0)
			r = command_reply(fd, cmd);
	} else if (strcmp(cmd, "bench") == 0 && optind < argc) {
		char line[64];

		raw_replies = f.raw;
		snprintf(line, sizeof(line), "bench %.20s %.20s\n", argv[optind],
			 optind + 1 < argc ? argv[optind + 1] : "");
		r = send_line(fd, line);
		if (r == 0)
			r = command_reply(fd, cmd);
	} else {
		usage();
		r = -EINVAL;
	}
	close(fd);
	if (r < 0 && r != -ECANCELED)
		fprintf(stderr, "kwatchctl: %s: %s\n", cmd, strerror(-r));
	return r < 0 ? 1 : 0;
}
