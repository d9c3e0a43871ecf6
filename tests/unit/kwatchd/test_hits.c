// SPDX-License-Identifier: GPL-2.0
/* wprobe hits (kwatchd-wprobe.c) read from a stand-in tracefs whose instance's
 * trace_pipe is a FIFO the test writes trace lines into, on a real sd-event
 * loop; the events are collected (fake_kwd.h). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#define FAKE_KWD_WPROBE
#include "fake_kwd.h"

/* The events of a type that hold every one of the texts (up to NULL). */
static unsigned int count(const char *type, ...)
{
	char want[64];
	unsigned int i, n = 0;
	const char *text;
	va_list ap;
	bool all;

	snprintf(want, sizeof(want), "\"type\":\"%s\"", type);
	for (i = 0; i < n_events; i++) {
		all = strstr(events[i], want);
		va_start(ap, type);
		while ((text = va_arg(ap, const char *)))
			all = all && strstr(events[i], text);
		va_end(ap);
		n += all;
	}
	return n;
}

struct pipe_kwd {
	struct kwd *d;
	int wfd;		/* the kernel's end of trace_pipe */
};

static void open_pipe(struct pipe_kwd *p)
{
	char path[PATH_MAX];
	struct kwd *d;

	d = p->d = fake_kwd_new();
	d->wprobes = kwd_wprobes_new();
	assert_non_null(d->wprobes);
	snprintf(d->set.tracefs, sizeof(d->set.tracefs), "%s/tracefs", root);
	strcpy(d->set.instance, "kwatchd");
	snprintf(path, sizeof(path), "%s/tracefs/instances/kwatchd", root);
	assert_int_equal(kw_mkdir_p(path, 0700), 0);
	strcat(path, "/trace_pipe");
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(kwd_pipe_open(d), 0);
	p->wfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(p->wfd >= 0);
}

static void close_pipe(struct pipe_kwd *p)
{
	close(p->wfd);
	kwd_wprobes_free(p->d->wprobes);
	sd_event_unref(p->d->ev);
	free(p->d);
}

/* Write s to trace_pipe and let the daemon read all of it. */
static void feed(struct pipe_kwd *p, const char *s)
{
	size_t len = strlen(s);
	unsigned int i;

	assert_int_equal(write(p->wfd, s, len), (ssize_t)len);
	for (i = 0; i < 64; i++)
		if (sd_event_run(p->d->ev, 0) <= 0)
			break;
}

/* A hit line as the kernel prints it: "%16s-%-7d [%03d] flags ts: event: (ip) args". */
static void hit_line(char *buf, size_t n, const char *comm, int pid, int cpu, const char *args)
{
	snprintf(buf, n, "%16s-%-7d [%03d] d.h2. %5u.%06u: kwv: (kwt_write_var+0xc/0x10) %s\n",
		 comm, pid, cpu, 812, 123, args);
}

/* The kernel's "CPU:N [LOST K EVENTS]": K hits overwritten before they
 * were read, each one a lost record with count K. */
static void lost_lines(void **state)
{
	struct pipe_kwd p;
	char line[256];

	(void)state;
	open_pipe(&p);
	feed(&p, "CPU:1 [LOST 42 EVENTS]\n");
	hit_line(line, sizeof(line), "cat", 5, 1, "value=0x1");
	feed(&p, line);
	/* An unknown number: at least one. */
	feed(&p, "CPU:0 [LOST EVENTS]\n");
	assert_int_equal(count("lost", NULL), 2);
	assert_int_equal(count("lost", "\"source\":\"trace_buffer\"", "\"count\":42,",
			       "\"total\":42,", "\"client\":-1", NULL), 1);
	assert_int_equal(count("lost", "\"source\":\"trace_buffer\"", "\"count\":1,",
			       "\"total\":43,", NULL), 1);
	assert_int_equal(count("wprobe_hit", "\"comm\":\"cat\"", "\"pid\":5,", NULL), 1);
	close_pipe(&p);
}

/* A line longer than the daemon's buffer: dropped whole, counted once, and
 * the line after it read as usual; its tail is not taken for a line. */
static void long_line(void **state)
{
	static char big[9472];
	struct pipe_kwd p;
	char line[256];
	size_t n;

	(void)state;
	open_pipe(&p);
	n = snprintf(big, sizeof(big), "%16s-%-7d [%03d] d.h2. %5u.%06u: kwv: (f+0x1/0x2) value=",
		     "big", 7, 0, 1, 0);
	memset(big + n, 'a', 9216 - n);
	/* The tail reads like a hit of its own. */
	hit_line(line, sizeof(line), "evil", 666, 0, "value=0x2");
	strcpy(big + 9216, line);
	feed(&p, big);
	hit_line(line, sizeof(line), "cat", 5, 1, "value=0x1");
	feed(&p, line);
	assert_int_equal(count("lost", NULL), 1);
	assert_int_equal(count("lost", "\"source\":\"trace_line\"", "\"count\":1,", "\"total\":1,",
			       NULL), 1);
	assert_int_equal(count("wprobe_hit", NULL), 1);
	assert_int_equal(count("wprobe_hit", "\"comm\":\"cat\"", "\"pid\":5,", "\"cpu\":1,",
			       "\"args\":\"value=0x1\"", NULL), 1);
	/* A second long line, its newline its last byte. */
	memcpy(big + 9216 - 1, "\n", 2);
	feed(&p, big);
	feed(&p, line);
	assert_int_equal(count("lost", "\"source\":\"trace_line\"", "\"total\":2,", NULL), 1);
	assert_int_equal(count("wprobe_hit", NULL), 2);
	close_pipe(&p);
}

/* comm is the task's to choose: it may look like the rest of the line. */
static void hostile_comm(void **state)
{
	static const char *const comms[] = {
		"a [001] b", "x-1 [000] y", "kworker/0:1", "-1 [000] . 5: w", "a-", "", "<idle>",
	};
	struct pipe_kwd p;
	char line[256], comm[64];
	unsigned int i;

	(void)state;
	open_pipe(&p);
	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		hit_line(line, sizeof(line), comms[i], 1000 + i, 3, "value=0x1");
		feed(&p, line);
		assert_int_equal(n_events, i + 1);
		snprintf(comm, sizeof(comm), "\"comm\":\"%s\"", comms[i]);
		snprintf(line, sizeof(line), "\"pid\":%u,", 1000 + i);
		assert_int_equal(count("wprobe_hit", comm, line, "\"cpu\":3,",
				       "\"wprobe\":\"kwv\"", "\"args\":\"value=0x1\"", NULL), 1);
	}
	close_pipe(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(lost_lines, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(long_line, tmpdir_setup, tmpdir_teardown),
		cmocka_unit_test_setup_teardown(hostile_comm, tmpdir_setup, tmpdir_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
