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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "server.h"
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

static void start(sd_event **ev, struct server *srv, struct kw_event_ctx *ectx, char *path,
		  size_t n)
{
	snprintf(path, n, "%s/sock", root);
	kw_event_ctx_init(ectx);
	assert_int_equal(sd_event_new(ev), 0);
	assert_int_equal(server_start(srv, *ev, ectx, path, "", 64, 1 << 16, NULL, NULL), 0);
}

static void too_many_clients(void **state)
{
	int fds[SERVER_MAX_CLIENTS + 2], i;
	struct kw_event_ctx ectx;
	struct server srv;
	char path[128], buf[256];
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(too_many_clients, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(half_closed_client_still_reads, tmpdir_setup,
						tmpdir_teardown),
		cmocka_unit_test_setup_teardown(out_of_descriptors_does_not_spin, tmpdir_setup,
						tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
