// SPDX-License-Identifier: GPL-2.0
/* The event socket's edges: more clients than it serves, and accept()
 * out of descriptors, on a real unix socket and event loop. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "journal.h"
#include "kwatchd-server.h"
#include "util.h"
#include "tmpdir.h"

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Run the loop for @usec; returns how many iterations dispatched work. */
static unsigned int run_for(sd_event *ev, uint64_t usec)
{
	uint64_t end = now_usec() + usec;
	unsigned int n = 0;

	while (now_usec() < end)
		if (sd_event_run(ev, 10000) > 0)
			n++;
	return n;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* What the command handler saw. */
struct seen {
	unsigned int n;
	char last[256];
	bool privileged;
};

static void on_cmd(struct server *srv, struct client *c, const char *line, void *userdata)
{
	struct seen *seen = userdata;

	(void)srv;
	seen->n++;
	snprintf(seen->last, sizeof(seen->last), "%s", line);
	seen->privileged = server_client_privileged(c);
}

static void start_cmd(sd_event **ev, struct server *srv, struct kw_event_ctx *ectx, char *path,
		      size_t n, struct seen *seen)
{
	snprintf(path, n, "%s/sock", root);
	kw_event_ctx_init(ectx);
	assert_int_equal(sd_event_new(ev), 0);
	assert_int_equal(server_start(srv, *ev, ectx, path, "", 64, 1 << 16,
				      seen ? on_cmd : NULL, seen), 0);
}

static void start(sd_event **ev, struct server *srv, struct kw_event_ctx *ectx, char *path,
		  size_t n)
{
	start_cmd(ev, srv, ectx, path, n, NULL);
}

static void stop(sd_event *ev, struct server *srv)
{
	server_stop(srv);
	sd_event_unref(ev);
}

/* Everything the client can read within 0.1 s. */
static size_t read_all(int fd, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t got;

	while (len < n - 1) {
		struct timeval tv = { .tv_usec = 100000 };

		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		got = read(fd, buf + len, n - 1 - len);
		if (got <= 0)
			break;
		len += got;
	}
	buf[len] = '\0';
	return len;
}

static void too_many_clients(void **state)
{
	int fds[SERVER_MAX_CLIENTS + 2], i;
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], buf[1024];
	sd_event *ev;
	ssize_t got;

	(void)state;
	start(&ev, &srv, &ectx, path, sizeof(path));
	/* One at a time: a full listen backlog would block connect(). */
	for (i = 0; i < SERVER_MAX_CLIENTS + 2; i++) {
		fds[i] = connect_to(path);
		run_for(ev, 5000);
	}
	run_for(ev, 200000);
	assert_int_equal(srv.n_clients, SERVER_MAX_CLIENTS);
	assert_int_equal(srv.refused, 2);
	/* The one refused is told why, then closed. */
	got = read(fds[SERVER_MAX_CLIENTS + 1], buf, sizeof(buf) - 1);
	assert_true(got > 0);
	buf[got] = '\0';
	assert_non_null(strstr(buf, "\"type\":\"refused\""));
	/* A record like any other: the envelope, a whole line. */
	assert_non_null(strstr(buf, "{\"schema\":1,"));
	assert_non_null(strstr(buf, "\"error\":\"EUSERS\""));
	assert_int_equal(buf[got - 1], '\n');
	assert_int_equal(read(fds[SERVER_MAX_CLIENTS + 1], buf, sizeof(buf)), 0);
	for (i = 0; i < SERVER_MAX_CLIENTS + 2; i++)
		close(fds[i]);
	run_for(ev, 100000);
	assert_int_equal(srv.n_clients, 0);
	server_stop(&srv);
	sd_event_unref(ev);
}

/* With no descriptor left, a pending connection keeps the listening
 * socket readable: the loop must not spin on it, and the client gets in
 * once descriptors are back. */
static void out_of_descriptors_does_not_spin(void **state)
{
	struct kw_event_ctx ectx;
	struct rlimit rl, low;
	struct server srv;
	char path[128];
	unsigned int n;
	sd_event *ev;
	int cfd, fd;

	(void)state;
	start(&ev, &srv, &ectx, path, sizeof(path));
	cfd = connect_to(path);
	fd = dup(0);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	low = rl;
	low.rlim_cur = fd;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	n = run_for(ev, 500000);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	print_message("loop iterations with work in 0.5 s out of descriptors: %u\n", n);
	assert_true(n < 20);
	assert_int_equal(srv.n_clients, 0);
	run_for(ev, 400000);
	assert_int_equal(srv.n_clients, 1);
	close(cfd);
	run_for(ev, 50000);
	server_stop(&srv);
	sd_event_unref(ev);
}

/* A client that shuts its sending side still gets the stream; one that
 * closes is dropped. */
static void half_closed_client_still_reads(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], buf[64];
	struct ev_buf *b;
	sd_event *ev;
	ssize_t got;
	int cfd;

	(void)state;
	start(&ev, &srv, &ectx, path, sizeof(path));
	cfd = connect_to(path);
	run_for(ev, 50000);
	assert_int_equal(srv.n_clients, 1);
	assert_int_equal(shutdown(cfd, SHUT_WR), 0);
	run_for(ev, 100000);
	assert_int_equal(srv.n_clients, 1);
	b = ev_buf_new(1, "{\"seq\":1}\n", 11);
	assert_non_null(b);
	server_broadcast(&srv, b);
	ev_buf_unref(b);
	run_for(ev, 50000);
	got = read(cfd, buf, sizeof(buf) - 1);
	assert_int_equal(got, 11);
	buf[got] = '\0';
	assert_string_equal(buf, "{\"seq\":1}\n");
	close(cfd);
	run_for(ev, 100000);
	assert_int_equal(srv.n_clients, 0);
	server_stop(&srv);
	sd_event_unref(ev);
}

/* The peer's credentials decide: root's commands are privileged, another
 * user's on the same socket are not. */
static void peer_credentials_decide(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	struct seen seen = { 0 };
	char path[128];
	sd_event *ev;
	pid_t pid;
	int cfd, st;

	(void)state;
	if (geteuid() != 0)
		skip();
	start_cmd(&ev, &srv, &ectx, path, sizeof(path), &seen);
	cfd = connect_to(path);
	assert_int_equal(write(cfd, "reload\n", 7), 7);
	run_for(ev, 100000);
	assert_int_equal(seen.n, 1);
	assert_true(seen.privileged);
	close(cfd);
	assert_int_equal(chmod(root, 0755), 0);
	assert_int_equal(chmod(path, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec ts = { .tv_nsec = 500000000 };

		if (setgid(65534) || setuid(65534))
			_exit(2);
		cfd = connect_to(path);
		if (write(cfd, "reload\n", 7) != 7)
			_exit(3);
		nanosleep(&ts, NULL);
		_exit(0);
	}
	run_for(ev, 300000);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_int_equal(seen.n, 2);
	assert_string_equal(seen.last, "reload");
	assert_false(seen.privileged);
	stop(ev, &srv);
}

/* A client's commands past its rate are dropped and counted; it is told
 * once, not once each. */
static void commands_over_the_rate_dropped(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	struct seen seen = { 0 };
	char path[128], buf[4096], lines[30 * 7 + 1] = "";
	sd_event *ev;
	int cfd, i;

	(void)state;
	start_cmd(&ev, &srv, &ectx, path, sizeof(path), &seen);
	cfd = connect_to(path);
	for (i = 0; i < 30; i++)
		strcat(lines, "status\n");
	assert_int_equal(write(cfd, lines, strlen(lines)), (ssize_t)strlen(lines));
	run_for(ev, 100000);
	assert_int_equal(seen.n, SERVER_CMD_PER_SEC);
	assert_int_equal(srv.cmds_refused, 30 - SERVER_CMD_PER_SEC);
	read_all(cfd, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"type\":\"reply\""));
	assert_non_null(strstr(buf, "\"error\":\"EBUSY\""));
	assert_non_null(strstr(buf, "too many commands"));
	assert_null(strstr(strstr(buf, "too many commands") + 1, "too many commands"));
	close(cfd);
	stop(ev, &srv);
}

/* A line longer than any command is dropped whole: its tail is not
 * taken for a command of its own. */
static void overlong_line_dropped_whole(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	struct seen seen = { 0 };
	char path[128], buf[4096], line[400];
	sd_event *ev;
	int cfd;

	(void)state;
	start_cmd(&ev, &srv, &ectx, path, sizeof(path), &seen);
	cfd = connect_to(path);
	memset(line, 'a', 300);
	strcpy(line + 300, "reload\nstatus\n");
	assert_int_equal(write(cfd, line, strlen(line)), (ssize_t)strlen(line));
	run_for(ev, 100000);
	assert_int_equal(seen.n, 1);
	assert_string_equal(seen.last, "status");
	read_all(cfd, buf, sizeof(buf));
	assert_non_null(strstr(buf, "command line too long"));
	close(cfd);
	stop(ev, &srv);
}

/* Synthetic load (bench) does not push real events out of the backlog. */
static void transient_events_not_kept(void **state)
{
	static const char kept[] = "{\"seq\":1,\"type\":\"crash\"}\n";
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], line[64];
	static char buf[1 << 16];
	struct ev_buf *b;
	sd_event *ev;
	int cfd, i;

	(void)state;
	start(&ev, &srv, &ectx, path, sizeof(path));
	b = ev_buf_new(1, kept, strlen(kept));
	assert_non_null(b);
	server_broadcast(&srv, b);
	ev_buf_unref(b);
	for (i = 2; i < SERVER_BACKLOG + 100; i++) {
		snprintf(line, sizeof(line), "{\"seq\":%d,\"type\":\"bench\"}\n", i);
		b = ev_buf_new(i, line, strlen(line));
		assert_non_null(b);
		server_broadcast_transient(&srv, b);
		ev_buf_unref(b);
	}
	assert_int_equal(srv.bl_n, 1);
	cfd = connect_to(path);
	run_for(ev, 50000);
	server_send_backlog(&srv, srv.clients);
	run_for(ev, 50000);
	read_all(cfd, buf, sizeof(buf));
	assert_string_equal(buf, kept);
	close(cfd);
	stop(ev, &srv);
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static void broadcast_n(struct server *srv, struct kw_event_ctx *ectx, int n)
{
	struct ev_buf *b = NULL;
	int i;

	for (i = 0; i < n; i++) {
		json_object *ev = kw_event_new("probe");

		kw_event_add_int(ev, "i", i);
		assert_int_equal(kw_event_encode(ectx, ev, 0, &b), 0);
		server_broadcast(srv, b);
		ev_buf_unref(b);
	}
}

static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static struct ev_buf *typed(uint64_t seq, const char *type)
{
	char line[64];
	struct ev_buf *b;

	snprintf(line, sizeof(line), "{\"seq\":%llu,\"type\":\"%s\"}\n",
		 (unsigned long long)seq, type);
	b = ev_buf_new(seq, line, strlen(line));
	assert_non_null(b);
	b->type_index = kw_journal_index(type);
	return b;
}

/* A subscribed client gets its types, every lost record and what has no
 * type, from the backlog too; another client still gets everything. */
static void subscribed_client_gets_its_types(void **state)
{
	static const char *live[] = { "crash", "bench", "lost", "catch", NULL };
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128];
	static char buf[1 << 16], all[1 << 16];
	struct client *sub;
	struct ev_buf *b;
	sd_event *ev;
	int cfd, afd, i;

	(void)state;
	start(&ev, &srv, &ectx, path, sizeof(path));
	b = typed(1, "catch");
	server_broadcast(&srv, b);
	ev_buf_unref(b);
	cfd = connect_to(path);
	run_for(ev, 50000);
	assert_int_equal(srv.n_clients, 1);
	sub = srv.clients;
	server_subscribe(sub, 1ULL << kw_journal_index("crash") | 1ULL << kw_journal_index("lost"));
	afd = connect_to(path);
	run_for(ev, 50000);
	for (i = 0; live[i]; i++) {
		b = typed(2 + i, live[i]);
		server_broadcast(&srv, b);
		ev_buf_unref(b);
	}
	b = ev_buf_new(9, "{\"seq\":9}\n", 11);
	server_broadcast(&srv, b);
	ev_buf_unref(b);
	run_for(ev, 50000);
	read_all(cfd, buf, sizeof(buf));
	assert_string_equal(buf, "{\"seq\":2,\"type\":\"crash\"}\n{\"seq\":4,\"type\":\"lost\"}\n"
			    "{\"seq\":9}\n");
	read_all(afd, all, sizeof(all));
	assert_int_equal(count_of(all, "\"seq\""), 5);
	/* The backlog goes through the same filter: the catch stays out. */
	server_send_backlog(&srv, sub);
	run_for(ev, 50000);
	read_all(cfd, buf, sizeof(buf));
	assert_string_equal(buf, "");
	close(cfd);
	close(afd);
	stop(ev, &srv);
}

/* A push target that cannot work (a regular file) is reported once, not
 * retried in silence; once it is a socket, what was queued arrives after
 * a push_failed record, followed by push_recovered. */
static void failing_push_target_reported_once(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], push[128], buf[8192];
	json_object *st;
	sd_event *ev;
	int lfd, cfd;

	(void)state;
	snprintf(path, sizeof(path), "%s/sock", root);
	snprintf(push, sizeof(push), "%s/push", root);
	assert_int_equal(kw_write_file_at(AT_FDCWD, push, "", 0), 0);
	kw_event_ctx_init(&ectx);
	assert_int_equal(sd_event_new(&ev), 0);
	assert_int_equal(server_start(&srv, ev, &ectx, path, push, 64, 1 << 16, NULL, NULL), 0);
	run_for(ev, 800000);
	assert_int_equal(srv.push_err, -EBADF);
	assert_true(srv.push_failures >= 3);
	st = server_push_status(&srv);
	assert_string_equal(json_object_get_string(json_object_object_get(st, "error")), "EBADF");
	assert_false(json_object_get_boolean(json_object_object_get(st, "connected")));
	json_object_put(st);
	broadcast_n(&srv, &ectx, 3);
	assert_int_equal(unlink(push), 0);
	lfd = listen_at(push);
	run_for(ev, 3500000);
	assert_int_equal(srv.push_err, 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	run_for(ev, 100000);
	read_all(cfd, buf, sizeof(buf));
	assert_int_equal(count_of(buf, "\"type\":\"push_failed\""), 1);
	assert_non_null(strstr(buf, "not a unix stream socket"));
	assert_int_equal(count_of(buf, "\"type\":\"probe\""), 3);
	assert_true(strstr(buf, "push_failed") < strstr(buf, "\"probe\""));
	assert_true(strstr(buf, "\"i\":2") < strstr(buf, "push_recovered"));
	close(cfd);
	close(lfd);
	stop(ev, &srv);
}

/* Another target takes over what was queued; no target drops it, counted. */
static void push_queue_moves_or_is_counted(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], a[128], b[128], buf[8192];
	sd_event *ev;
	int lfd, cfd;

	(void)state;
	snprintf(path, sizeof(path), "%s/sock", root);
	snprintf(a, sizeof(a), "%s/missing", root);
	snprintf(b, sizeof(b), "%s/collector", root);
	kw_event_ctx_init(&ectx);
	assert_int_equal(sd_event_new(&ev), 0);
	assert_int_equal(server_start(&srv, ev, &ectx, path, a, 64, 1 << 16, NULL, NULL), 0);
	assert_int_equal(srv.push_err, -ENOENT);
	broadcast_n(&srv, &ectx, 2);
	lfd = listen_at(b);
	assert_int_equal(server_set_push(&srv, b), 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	run_for(ev, 100000);
	read_all(cfd, buf, sizeof(buf));
	assert_int_equal(count_of(buf, "\"type\":\"probe\""), 2);
	close(cfd);
	close(lfd);
	run_for(ev, 100000);
	/* The collector went away: events queue, then the target goes. */
	unlink(b);
	broadcast_n(&srv, &ectx, 4);
	run_for(ev, 100000);
	assert_true(srv.push->q.count >= 3);
	{
		uint64_t queued = srv.push->q.count;

		assert_int_equal(server_set_push(&srv, ""), 0);
		assert_int_equal(srv.push_dropped, queued);
		assert_true(server_dropped(&srv) >= queued);
	}
	stop(ev, &srv);
}

/* The collector listens again: kwatchd reconnects and sends the ten
 * events again, which it reads. */
static int collector_back(sd_event *ev, int lfd, char *buf, size_t n)
{
	int cfd;

	run_for(ev, 400000);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	run_for(ev, 100000);
	read_all(cfd, buf, n);
	assert_int_equal(count_of(buf, "\"type\":\"probe\""), 10);
	return cfd;
}

/* A collector that goes with events unread in its socket: they are sent
 * again, whole and in order, on the next connection; so are those it read
 * less than the grace before it went; events it read before that leave
 * the window and are not sent twice. */
static void collector_gone_unread_sent_again(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], push[128], buf[16384], want[16];
	sd_event *ev;
	int lfd, cfd, i;

	(void)state;
	snprintf(path, sizeof(path), "%s/sock", root);
	snprintf(push, sizeof(push), "%s/collector", root);
	lfd = listen_at(push);
	kw_event_ctx_init(&ectx);
	assert_int_equal(sd_event_new(&ev), 0);
	assert_int_equal(server_start(&srv, ev, &ectx, path, push, 64, 1 << 16, NULL, NULL), 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	broadcast_n(&srv, &ectx, 10);
	run_for(ev, 100000);
	/* Written, not read: all ten are still in the window. */
	assert_int_equal(srv.push->q.count, 0);
	assert_int_equal(srv.push->q.win_count, 10);
	close(cfd);
	run_for(ev, 100000);
	assert_int_equal(srv.push->q.resent_total, 10);
	/* The collector is back (the same listening socket). */
	cfd = collector_back(ev, lfd, buf, sizeof(buf));
	for (i = 0; i < 10; i++) {
		snprintf(want, sizeof(want), "\"i\":%d}", i);
		assert_non_null(strstr(buf, want));
		if (i)
			assert_true(strstr(buf, want) > strstr(buf, "\"i\":0}"));
	}
	/* Whole lines: the first byte is an event's start. */
	assert_int_equal(buf[0], '{');
	/* Read, but the collector goes within the grace (it may not have
	 * written them out): sent again. */
	run_for(ev, 400000);
	assert_int_equal(srv.push->q.win_count, 10);
	close(cfd);
	run_for(ev, 100000);
	assert_int_equal(srv.push->q.resent_total, 20);
	cfd = collector_back(ev, lfd, buf, sizeof(buf));
	/* Read more than the grace ago: the window empties (the idle check
	 * every 200 ms), nothing is sent again. */
	run_for(ev, 2400000);
	assert_int_equal(srv.push->q.win_count, 0);
	close(cfd);
	run_for(ev, 100000);
	assert_int_equal(srv.push->q.resent_total, 20);
	close(lfd);
	stop(ev, &srv);
}

/* A collector only reads; one that sends a byte, then shuts its sending
 * side, must not keep the loop busy (its input was never read, its EOF
 * never seen): what it sends is dropped, it still gets the stream, and
 * once it closes it is reconnected. */
static void push_peer_input_does_not_spin(void **state)
{
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], push[128], buf[8192];
	unsigned int n;
	sd_event *ev;
	int lfd, cfd;

	(void)state;
	snprintf(path, sizeof(path), "%s/sock", root);
	snprintf(push, sizeof(push), "%s/collector", root);
	lfd = listen_at(push);
	kw_event_ctx_init(&ectx);
	assert_int_equal(sd_event_new(&ev), 0);
	assert_int_equal(server_start(&srv, ev, &ectx, path, push, 64, 1 << 16, NULL, NULL), 0);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	broadcast_n(&srv, &ectx, 1);
	run_for(ev, 50000);
	assert_int_equal(write(cfd, "x", 1), 1);
	assert_int_equal(shutdown(cfd, SHUT_WR), 0);
	n = run_for(ev, 200000);
	print_message("loop iterations with work in 0.2 s: %u\n", n);
	assert_true(n < 10);
	/* Still connected: it reads what follows. */
	assert_int_equal(srv.push_connects, 1);
	broadcast_n(&srv, &ectx, 2);
	run_for(ev, 50000);
	read_all(cfd, buf, sizeof(buf));
	assert_int_equal(count_of(buf, "\"type\":\"probe\""), 3);
	/* Gone: reconnected. */
	close(cfd);
	run_for(ev, 300000);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	assert_int_equal(srv.push_connects, 2);
	n = run_for(ev, 200000);
	assert_true(n < 10);
	close(cfd);
	close(lfd);
	stop(ev, &srv);
}

/* What a collector has not read, and a collector gone: a unix stream
 * peer that closes frees its unread bytes, and SIOCOUTQ then reads 0 as
 * if it had read them all (the CI run where rsyslog's restart lost two
 * events unannounced); the hang-up voids the count. */
static void unread_count_void_once_peer_gone(void **state)
{
	char push[128], buf[64];
	int lfd, fd, cfd, unread, outq;

	(void)state;
	snprintf(push, sizeof(push), "%s/collector", root);
	lfd = listen_at(push);
	fd = connect_to(push);
	cfd = accept(lfd, NULL, NULL);
	assert_true(cfd >= 0);
	assert_int_equal(write(fd, "{\"seq\":1}\n{\"seq\":2}\n", 20), 20);
	/* Half read: the rest is unread, and the peer is there. */
	assert_int_equal(read(cfd, buf, 15), 15);
	assert_int_equal(server_push_unread(fd, S_IFSOCK, &unread), 0);
	assert_true(unread > 0);
	close(cfd);
	/* The kernel's side of it: the count is gone with the peer... */
	assert_int_equal(ioctl(fd, SIOCOUTQ, &outq), 0);
	assert_int_equal(outq, 0);
	/* ...and the hang-up says so. */
	assert_int_equal(server_push_unread(fd, S_IFSOCK, &unread), -EPIPE);
	assert_int_equal(server_push_unread(fd, S_IFCHR, &unread), -EOPNOTSUPP);
	close(fd);
	close(lfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(too_many_clients, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(unread_count_void_once_peer_gone, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(half_closed_client_still_reads, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(out_of_descriptors_does_not_spin, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(peer_credentials_decide, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(commands_over_the_rate_dropped, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(overlong_line_dropped_whole, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(subscribed_client_gets_its_types, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(transient_events_not_kept, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(failing_push_target_reported_once, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(collector_gone_unread_sent_again, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(push_queue_moves_or_is_counted, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(push_peer_input_does_not_spin, tmpdir_setup,
						tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
