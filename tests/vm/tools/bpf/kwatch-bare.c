// SPDX-License-Identifier: GPL-2.0
/*
 * kwatch-bare: the reference that kwatchd's event path is measured against,
 * in the same boot (the kwatchd-bpf suite, `make bench`).
 *
 *   kwatch-bare ring SOCKET CLIENTS EVENT_ID_FILE COUNT [BATCH]
 *   kwatch-bare synth SOCKET CLIENTS COUNT [BATCH]
 *   kwatch-bare count SOCKET TYPE COUNT IDLE_S [subscribe]
 *
 * ring: a minimal libbpf ring-buffer consumer.  It loads kwatchd's own BPF
 * object (the skeleton), attaches its wprobe program to the perf event of
 * the wprobe whose tracefs id file is EVENT_ID_FILE, waits for CLIENTS
 * connections on SOCKET, says "ready" on stdout, and writes each record to
 * every client as one line of wprobe_sample's fields and envelope, one
 * blocking write per client (a slow client slows the reader; nothing is
 * dropped in userspace).  The address is not symbolised.  With BATCH above
 * 1 (at most 256) the lines are gathered and written BATCH at a time, and
 * at the end of each ring buffer poll: the batching kwatchd does, with
 * nothing else of kwatchd's work.  It stops after COUNT records, or 5 s
 * without one, and prints records= and lost= (records the programs had no
 * room for in the ring).
 *
 * synth: the same, the lines made in a loop: the counterpart of kwatchd's
 * `bench COUNT` events.
 *
 * count: the client used for both kwatchd and this reader.  It counts the
 * lines of type TYPE and the "lost" records (and the events they announce),
 * until COUNT lines of TYPE or IDLE_S seconds without a line, and prints
 * matched= lost_records= lost_events= seconds= rate=/s, the rate taken from
 * its first line to its last.  It looks for the fields with strstr: cheap
 * enough that the server, not this client, sets the pace.  With
 * "subscribe" it first asks kwatchd for TYPE only (and lost records).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kwatch.h"
#include "kwatch.skel.h"

#define MAX_CLIENTS 16
#define LINE_MAX_LEN 1024
#define MAX_BATCH 256
#define IDLE_MS 5000

struct bare {
	int fd[MAX_CLIENTS];
	int n;
	uint64_t seq, count;
	char host[256], boot_id[64], start_id[40];
	unsigned int batch, in_buf;	/* lines per write, lines gathered */
	size_t len;
	char buf[MAX_BATCH * LINE_MAX_LEN];
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int read_line(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "re");
	int r = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)n, f))
		r = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return r;
}

/* A unix stream socket and the address of path, for bind or connect. */
static int unix_socket(const char *path, struct sockaddr_un *sa)
{
	int fd;

	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	strcpy(sa->sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

static int listen_on(const char *path)
{
	struct sockaddr_un sa;
	int fd;

	unlink(path);
	fd = unix_socket(path, &sa);
	if (fd < 0)
		return fd;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, MAX_CLIENTS) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

static int accept_clients(struct bare *b, const char *path, int want)
{
	int lfd = listen_on(path);

	if (lfd < 0)
		return lfd;
	while (b->n < want) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			int r = -errno;

			close(lfd);
			return r;
		}
		b->fd[b->n++] = fd;
	}
	close(lfd);
	unlink(path);
	return 0;
}

static int setup(struct bare *b, const char *sock, const char *clients, const char *batch)
{
	int want = atoi(clients), r;

	b->batch = batch ? (unsigned int)atoi(batch) : 1;
	if (want < 1 || want > MAX_CLIENTS || b->batch < 1 || b->batch > MAX_BATCH) {
		fprintf(stderr, "kwatch-bare: CLIENTS must be 1..%d, BATCH 1..%d\n", MAX_CLIENTS,
			MAX_BATCH);
		return -EINVAL;
	}
	if (gethostname(b->host, sizeof(b->host)) < 0)
		strcpy(b->host, "unknown");
	if (read_line("/proc/sys/kernel/random/boot_id", b->boot_id, sizeof(b->boot_id)) < 0)
		strcpy(b->boot_id, "unknown");
	if (read_line("/proc/sys/kernel/random/uuid", b->start_id, sizeof(b->start_id)) < 0)
		strcpy(b->start_id, "unknown");
	r = accept_clients(b, sock, want);
	if (r < 0)
		fprintf(stderr, "kwatch-bare: %s: %s\n", sock, strerror(-r));
	return r;
}

/* The envelope kwatchd puts before every event's own fields. */
static int envelope(struct bare *b, char *buf, size_t n, const char *type)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	b->seq++;
	return snprintf(buf, n, "{\"schema\":1,\"start_id\":\"%s\",\"seq\":%" PRIu64
			",\"id\":\"%s-%" PRIu64 "\",\"timestamp\":\"%s.%09ldZ\",\"host\":\"%s\","
			"\"boot_id\":\"%s\",\"type\":\"%s\"", b->start_id, b->seq, b->start_id,
			b->seq, when, ts.tv_nsec, b->host, b->boot_id, type);
}

/* Bytes to every client, blocking; a client that went away is dropped. */
static void send_all(struct bare *b, const char *line, size_t len)
{
	int i;

	for (i = 0; i < b->n; i++) {
		size_t off = 0;

		while (b->fd[i] >= 0 && off < len) {
			ssize_t w = send(b->fd[i], line + off, len - off, MSG_NOSIGNAL);

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(b->fd[i]);
				b->fd[i] = -1;
				break;
			}
			off += (size_t)w;
		}
	}
}

static void flush(struct bare *b)
{
	if (b->len)
		send_all(b, b->buf, b->len);
	b->len = 0;
	b->in_buf = 0;
}

/* A line: written now, or gathered for the batch's write. */
static void put_line(struct bare *b, const char *line, size_t len)
{
	if (b->batch == 1) {
		send_all(b, line, len);
		return;
	}
	memcpy(b->buf + b->len, line, len);
	b->len += len;
	if (++b->in_buf == b->batch)
		flush(b);
}

static int on_record(void *ctx, void *data, size_t size)
{
	const struct kwb_wprobe *w = data;
	struct bare *b = ctx;
	char line[LINE_MAX_LEN];
	int len;

	if (size < sizeof(*w) || w->h.kind != KWB_WPROBE)
		return 0;
	len = envelope(b, line, sizeof(line), "wprobe_sample");
	len += snprintf(line + len, sizeof(line) - len,
			",\"wprobe\":\"bare\",\"ip\":\"0x%llx\",\"location\":\"0x%llx\","
			"\"pid\":%u,\"tid\":%u,\"comm\":\"%.*s\",\"cpu\":%u,\"kernel_ns\":%llu}\n",
			(unsigned long long)w->ip, (unsigned long long)w->ip, w->h.pid, w->h.tid,
			(int)strnlen(w->h.comm, KWB_COMM_LEN), w->h.comm, w->h.cpu,
			(unsigned long long)w->h.ktime_ns);
	if (len >= (int)sizeof(line))
		return 0;
	put_line(b, line, (size_t)len);
	b->count++;
	return 0;
}

static uint64_t lost_total(struct kwatch_bpf *skel)
{
	return __atomic_load_n(&skel->bss->lost_records, __ATOMIC_RELAXED);
}

static int attach_wprobe(struct kwatch_bpf *skel, const char *id_file, struct bpf_link **link)
{
	LIBBPF_OPTS(bpf_perf_event_opts, opts, .bpf_cookie = 1);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	char id[32];
	int fd, r;

	r = read_line(id_file, id, sizeof(id));
	if (r < 0)
		return r;
	attr.config = strtoull(id, NULL, 10);
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	*link = bpf_program__attach_perf_event_opts(skel->progs.kw_wprobe, fd, &opts);
	r = (int)libbpf_get_error(*link);
	if (r) {
		*link = NULL;
		close(fd);
	}
	return r;
}

static int ring(struct bare *b, char **argv)
{
	uint64_t want = strtoull(argv[4], NULL, 10);
	struct bpf_link *link = NULL;
	struct ring_buffer *rb = NULL;
	struct kwatch_bpf *skel;
	double t_last;
	int r;

	skel = kwatch_bpf__open();
	if (!skel)
		return -errno;
	/* Only the wprobe program: the others' trace events do not matter. */
	bpf_program__set_autoload(skel->progs.kw_catch, false);
	bpf_program__set_autoload(skel->progs.kw_fuzz_entry, false);
	bpf_program__set_autoload(skel->progs.kw_fuzz_done, false);
	r = kwatch_bpf__load(skel);
	if (r < 0)
		goto out;
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, b, NULL);
	if (!rb) {
		r = -errno;
		goto out;
	}
	r = attach_wprobe(skel, argv[3], &link);
	if (r < 0)
		goto out;
	r = setup(b, argv[1], argv[2], argv[5]);
	if (r < 0)
		goto out;
	printf("ready\n");
	fflush(stdout);
	t_last = now_s();
	while (b->count < want && now_s() - t_last < IDLE_MS / 1000.0) {
		uint64_t before = b->count;

		r = ring_buffer__poll(rb, 100);
		flush(b);
		if (r < 0 && r != -EINTR)
			goto out;
		if (b->count != before)
			t_last = now_s();
	}
	r = 0;
	printf("records=%" PRIu64 " lost=%" PRIu64 "\n", b->count, lost_total(skel));
out:
	if (r < 0)
		fprintf(stderr, "kwatch-bare: ring: %s\n", strerror(-r));
	bpf_link__destroy(link);
	ring_buffer__free(rb);
	kwatch_bpf__destroy(skel);
	return r;
}

static int synth(struct bare *b, char **argv)
{
	uint64_t want = strtoull(argv[3], NULL, 10), i;
	char line[LINE_MAX_LEN];
	int r, len;

	r = setup(b, argv[1], argv[2], argv[4]);
	if (r < 0)
		return r;
	printf("ready\n");
	fflush(stdout);
	for (i = 0; i < want; i++) {
		len = envelope(b, line, sizeof(line), "bench");
		len += snprintf(line + len, sizeof(line) - len, ",\"left\":%" PRIu64
				",\"pad\":\"synthetic event for measuring the stream\"}\n",
				want - i - 1);
		put_line(b, line, (size_t)len);
	}
	flush(b);
	printf("records=%" PRIu64 "\n", want);
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa;
	int fd = unix_socket(path, &sa);

	if (fd < 0)
		return fd;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

static int count(char **argv)
{
	uint64_t want = strtoull(argv[3], NULL, 10), matched = 0, lost_rec = 0, lost_ev = 0;
	int idle_ms = atoi(argv[4]) * 1000, fd;
	static char buf[1 << 16];
	double t_first = 0, t_last = 0;
	char type[128], *nl, *start;
	size_t len = 0;

	snprintf(type, sizeof(type), "\"type\":\"%s\"", argv[2]);
	fd = connect_to(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "kwatch-bare: count: %s: %s\n", argv[1], strerror(-fd));
		return fd;
	}
	if (argv[5]) {
		char cmd[160];
		int n = snprintf(cmd, sizeof(cmd), "subscribe %s\n", argv[2]);

		if (send(fd, cmd, (size_t)n, MSG_NOSIGNAL) != n) {
			close(fd);
			return -EIO;
		}
	}
	while (matched < want) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, idle_ms) <= 0)
			break;
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
		for (start = buf; (nl = strchr(start, '\n')); start = nl + 1) {
			*nl = '\0';
			if (strstr(start, type)) {
				matched++;
			} else if (strstr(start, "\"type\":\"lost\"")) {
				const char *c = strstr(start, "\"count\":");

				lost_rec++;
				if (c)
					lost_ev += strtoull(c + 8, NULL, 10);
			} else {
				continue;
			}
			t_last = now_s();
			if (!t_first)
				t_first = t_last;
		}
		len -= (size_t)(start - buf);
		memmove(buf, start, len);
		if (len == sizeof(buf) - 1)
			len = 0;	/* a line longer than the buffer: not ours */
	}
	close(fd);
	printf("matched=%" PRIu64 " lost_records=%" PRIu64 " lost_events=%" PRIu64
	       " seconds=%.3f rate=%.0f/s\n", matched, lost_rec, lost_ev, t_last - t_first,
	       t_last > t_first ? (matched - 1) / (t_last - t_first) : 0.0);
	return 0;
}

int main(int argc, char **argv)
{
	static struct bare b;
	int r = -EINVAL, i;

	if ((argc == 6 || argc == 7) && strcmp(argv[1], "ring") == 0)
		r = ring(&b, argv + 1);
	else if ((argc == 5 || argc == 6) && strcmp(argv[1], "synth") == 0)
		r = synth(&b, argv + 1);
	else if ((argc == 6 || (argc == 7 && strcmp(argv[6], "subscribe") == 0)) &&
		 strcmp(argv[1], "count") == 0)
		r = count(argv + 1);
	else
		fprintf(stderr, "usage: kwatch-bare ring SOCKET CLIENTS EVENT_ID_FILE COUNT [BATCH]\n"
			"       kwatch-bare synth SOCKET CLIENTS COUNT [BATCH]\n"
			"       kwatch-bare count SOCKET TYPE COUNT IDLE_S [subscribe]\n");
	for (i = 0; i < b.n; i++)
		if (b.fd[i] >= 0)
			close(b.fd[i]);
	return r < 0 ? 1 : 0;
}
