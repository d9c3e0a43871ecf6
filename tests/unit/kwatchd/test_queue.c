// SPDX-License-Identifier: GPL-2.0
/* The client queue policy: bounded, never blocks, drops counted and
 * announced in order by one lost record. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <cmocka.h>

#include "queue.h"

static struct ev_buf *lost(uint64_t count, uint64_t first, uint64_t last, void *ud)
{
	char buf[128];

	(void)ud;
	snprintf(buf, sizeof(buf), "lost %llu %llu-%llu\n", (unsigned long long)count,
		 (unsigned long long)first, (unsigned long long)last);
	return ev_buf_new(last, buf, strlen(buf));
}

static struct ev_buf *ev(uint64_t seq)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "ev %llu\n", (unsigned long long)seq);
	return ev_buf_new(seq, buf, strlen(buf));
}

static void drain_one(struct cq *q, char *out, size_t n)
{
	const char *p;
	size_t len = cq_peek(q, &p);

	snprintf(out, n, "%.*s", (int)len, p);
	cq_advance(q, len);
}

static void drops_and_lost_record(void **state)
{
	struct cq q;
	char line[128];
	uint64_t s;

	(void)state;
	assert_int_equal(cq_init(&q, 4, 1 << 20, lost, NULL), 0);
	for (s = 1; s <= 4; s++) {
		struct ev_buf *b = ev(s);

		assert_int_equal(cq_push(&q, b), 0);
		ev_buf_unref(b);
	}
	for (s = 5; s <= 9; s++) {
		struct ev_buf *b = ev(s);

		assert_int_equal(cq_push(&q, b), -ENOBUFS);
		ev_buf_unref(b);
	}
	assert_int_equal(q.dropped_total, 5);
	assert_int_equal(q.count, 4);
	/* Draining one event leaves room for the event but not for the
	 * notice and the next event: still dropped, never reordered. */
	drain_one(&q, line, sizeof(line));
	assert_string_equal(line, "ev 1\n");
	{
		struct ev_buf *b = ev(10);

		assert_int_equal(cq_push(&q, b), -ENOBUFS);
		ev_buf_unref(b);
	}
	drain_one(&q, line, sizeof(line));
	drain_one(&q, line, sizeof(line));
	drain_one(&q, line, sizeof(line));
	assert_string_equal(line, "ev 4\n");
	/* Room now: the lost record goes in ahead of event 11. */
	{
		struct ev_buf *b = ev(11);

		assert_int_equal(cq_push(&q, b), 0);
		ev_buf_unref(b);
	}
	drain_one(&q, line, sizeof(line));
	assert_string_equal(line, "lost 6 5-10\n");
	drain_one(&q, line, sizeof(line));
	assert_string_equal(line, "ev 11\n");
	assert_int_equal(q.count, 0);
	assert_int_equal(q.dropped_total, 6);
	cq_done(&q);
}

static void partial_writes(void **state)
{
	struct cq q;
	const char *p;
	struct ev_buf *b = ev(1);

	(void)state;
	assert_int_equal(cq_init(&q, 4, 1 << 20, lost, NULL), 0);
	cq_push(&q, b);
	assert_int_equal(b->refs, 2);	/* shared, not copied */
	ev_buf_unref(b);
	assert_int_equal(cq_peek(&q, &p), 5);
	cq_advance(&q, 2);
	assert_int_equal(cq_peek(&q, &p), 3);
	assert_memory_equal(p, " 1\n", 3);
	cq_advance(&q, 3);
	assert_int_equal(cq_peek(&q, &p), 0);
	assert_int_equal(q.sent_total, 1);
	cq_done(&q);
}

static void byte_bound_and_flush(void **state)
{
	struct cq q;
	char big[40000];
	struct ev_buf *b;
	const char *p;

	(void)state;
	memset(big, 'x', sizeof(big));
	assert_int_equal(cq_init(&q, 100, 2 * KW_EVENT_MAX, lost, NULL), 0);
	b = ev_buf_new(1, big, 30000);
	assert_int_equal(cq_push(&q, b), 0);
	ev_buf_unref(b);
	b = ev_buf_new(2, big, 30000);
	assert_int_equal(cq_push(&q, b), 0);
	ev_buf_unref(b);
	b = ev_buf_new(3, big, 30000);
	assert_int_equal(cq_push(&q, b), -ENOBUFS);	/* over the byte bound */
	ev_buf_unref(b);
	cq_advance(&q, cq_peek(&q, &p));
	cq_advance(&q, cq_peek(&q, &p));
	/* Drained and idle: the notice is queued without waiting for an event. */
	cq_flush_lost(&q);
	assert_int_equal(q.count, 1);
	assert_memory_equal(q.ring[q.head]->data, "lost 1 3-3\n", 11);
	cq_done(&q);
	assert_int_equal(cq_init(&q, 1, 1 << 20, lost, NULL), -EINVAL);
}

static void push_ev(struct cq *q, uint64_t seq)
{
	struct ev_buf *b = ev(seq);

	assert_int_equal(cq_push(q, b), 0);
	ev_buf_unref(b);
}

/* The sent window: what the reader may not have read goes back to the
 * front, in order and whole; what it read (by the byte count the kernel
 * gives) leaves; a full window lets the oldest go, counted. */
static void sent_window(void **state)
{
	struct cq q;
	char out[64];
	const char *p;
	uint64_t i;

	(void)state;
	assert_int_equal(cq_init(&q, 8, 1 << 20, lost, NULL), 0);
	assert_int_equal(cq_keep_sent(&q, 4, 0), 0);
	for (i = 1; i <= 3; i++)
		push_ev(&q, i);
	for (i = 1; i <= 3; i++)
		drain_one(&q, out, sizeof(out));
	assert_int_equal(q.win_count, 3);
	/* "ev N\n" is 5 bytes: 15 written; 6 unread means ev 1 was read and
	 * ev 2 (bytes 5..9) maybe not. */
	cq_ack(&q, 6, 1);
	assert_int_equal(q.win_count, 2);
	/* ev 4 half written when the reader goes. */
	push_ev(&q, 4);
	assert_int_equal(cq_peek(&q, &p), 5);
	cq_advance(&q, 2);
	assert_int_equal(cq_requeue_sent(&q), 2);
	assert_int_equal(q.resent_total, 2);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 2\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 3\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 4\n");
	assert_int_equal(cq_peek(&q, &p), 0);
	/* Everything read: the window empties. */
	cq_ack(&q, 0, 2);
	assert_int_equal(q.win_count, 0);
	/* More than the window holds: the oldest go unprotected. */
	for (i = 5; i <= 10; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	assert_int_equal(q.win_count, 4);
	assert_int_equal(q.unprotected_total, 2);
	/* We closed the connection: the reader reads what it holds. */
	cq_forget_sent(&q);
	assert_int_equal(q.win_count, 0);
	assert_int_equal(cq_requeue_sent(&q), 0);
	cq_done(&q);
}

/* A collector that dies loses what it had read but not written out yet:
 * an event read leaves the window only grace after it was seen read, so
 * the last ones read go out again on the next connection. */
static void read_grace(void **state)
{
	struct cq q;
	char out[64];
	uint64_t i;

	(void)state;
	assert_int_equal(cq_init(&q, 8, 1 << 20, lost, NULL), 0);
	assert_int_equal(cq_keep_sent(&q, 8, 100), 0);
	for (i = 1; i <= 3; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	/* At 1000, ev 1 and 2 are read (5 bytes unread): kept. */
	cq_ack(&q, 5, 1000);
	assert_int_equal(q.win_count, 3);
	assert_int_equal(q.win_read, 2);
	/* ev 3 read at 1050; at 1099 nothing is old enough yet. */
	cq_ack(&q, 0, 1050);
	cq_ack(&q, 0, 1099);
	assert_int_equal(q.win_count, 3);
	/* At 1100 ev 1 and 2 go, not ev 3 (read at 1050, not at 1000). */
	cq_ack(&q, 0, 1100);
	assert_int_equal(q.win_count, 1);
	assert_int_equal(q.win_read, 1);
	/* ev 4 written, the reader dies: ev 3, read but within the grace,
	 * and ev 4, unread, are sent again, in order. */
	push_ev(&q, 4);
	drain_one(&q, out, sizeof(out));
	cq_ack(&q, 5, 1120);
	assert_int_equal(cq_requeue_sent(&q), 2);
	assert_int_equal(q.win_read, 0);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 3\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 4\n");
	/* The new connection counts from 0: both are read at 2000 and stay
	 * until 2100.  A full window lets the oldest go, read or not. */
	cq_ack(&q, 0, 2000);
	assert_int_equal(q.win_read, 2);
	for (i = 5; i <= 11; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	assert_int_equal(q.win_count, 8);
	assert_int_equal(q.unprotected_total, 1);
	assert_int_equal(q.win_read, 1);
	cq_ack(&q, 0, 2050);
	assert_int_equal(q.win_read, 8);
	cq_ack(&q, 0, 2100);
	assert_int_equal(q.win_count, 7);
	cq_ack(&q, 0, 2150);
	assert_int_equal(q.win_count, 0);
	assert_int_equal(q.win_read, 0);
	/* A reader that cannot say (a character device): all counts read. */
	push_ev(&q, 12);
	drain_one(&q, out, sizeof(out));
	cq_ack_all(&q);
	assert_int_equal(q.win_count, 0);
	cq_done(&q);
}

/* One writev over the queued events, from the head's unsent bytes on. */
static void peek_iov_from_the_head(void **state)
{
	struct iovec iov[2];
	struct cq q;
	char out[64];

	(void)state;
	assert_int_equal(cq_init(&q, 8, 1 << 20, lost, NULL), 0);
	push_ev(&q, 1);
	push_ev(&q, 2);
	push_ev(&q, 3);
	cq_advance(&q, 2);
	assert_int_equal(cq_peek_iov(&q, iov, 2), 2);
	assert_int_equal(iov[0].iov_len, 3);
	assert_memory_equal(iov[0].iov_base, " 1\n", 3);
	assert_int_equal(iov[1].iov_len, 5);
	/* A write that ends inside the second event. */
	cq_advance(&q, 3 + 2);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, " 2\n");
	assert_int_equal(cq_peek_iov(&q, iov, 2), 1);
	cq_done(&q);
	assert_int_equal(cq_init(&q, 8, 1 << 20, lost, NULL), 0);
	assert_int_equal(cq_peek_iov(&q, iov, 2), 0);
	cq_done(&q);
}

/* Sent again into a full queue: the newest of the window are kept, and
 * those that are not are said lost ahead of them (the record takes a
 * slot), counted. */
static void requeue_into_full_queue(void **state)
{
	static const char *const want[] = { "lost 2 1-2\n", "ev 3\n", "ev 4\n", "ev 5\n" };
	struct cq q;
	char out[64];
	const char *p;
	uint64_t i;

	(void)state;
	assert_int_equal(cq_init(&q, 4, 1 << 20, lost, NULL), 0);
	assert_int_equal(cq_keep_sent(&q, 4, 0), 0);
	for (i = 1; i <= 3; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	push_ev(&q, 4);
	push_ev(&q, 5);
	/* Room for two slots: the lost record and the newest of the three. */
	assert_int_equal(cq_requeue_sent(&q), 1);
	assert_int_equal(q.unprotected_total, 2);
	assert_int_equal(q.dropped_total, 2);
	for (i = 0; i < 4; i++) {
		drain_one(&q, out, sizeof(out));
		assert_string_equal(out, want[i]);
	}
	assert_int_equal(cq_peek(&q, &p), 0);
	/* No room at all: the oldest queued event makes room for the
	 * record, and is in its count. */
	cq_ack(&q, 0, 1);
	for (i = 6; i <= 7; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	for (i = 8; i <= 11; i++)
		push_ev(&q, i);
	assert_int_equal(cq_requeue_sent(&q), 0);
	assert_int_equal(q.dropped_total, 2 + 3);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "lost 3 6-8\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 9\n");
	cq_done(&q);
}

/* A full window lets its oldest go: unread then, it cannot be sent again
 * should the reader go, and is said lost ahead of what is; read later
 * (the kernel's count says so), it is not. */
static void window_overflow_unread_said_lost(void **state)
{
	struct cq q;
	char out[64];
	const char *p;
	uint64_t i;

	(void)state;
	assert_int_equal(cq_init(&q, 8, 1 << 20, lost, NULL), 0);
	assert_int_equal(cq_keep_sent(&q, 2, 0), 0);
	for (i = 1; i <= 4; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	assert_int_equal(q.unprotected_total, 2);
	/* ev 1 and 2 left the window unread; the reader goes. */
	assert_int_equal(cq_requeue_sent(&q), 2);
	assert_int_equal(q.dropped_total, 2);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "lost 2 1-2\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 3\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 4\n");
	assert_int_equal(cq_peek(&q, &p), 0);
	/* On the next connection, the same overflow, then everything is
	 * read before the reader goes: nothing lost, nothing sent again. */
	cq_ack(&q, 0, 1);
	for (i = 5; i <= 8; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	cq_ack(&q, 0, 2);
	assert_int_equal(cq_requeue_sent(&q), 0);
	assert_int_equal(q.dropped_total, 2);
	assert_int_equal(cq_peek(&q, &p), 0);
	/* Partly read: ev 9 (bytes 0..4) read, ev 10 not, both out of the
	 * window: which of them was read is not kept, both may be lost. */
	for (i = 9; i <= 12; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	cq_ack(&q, 15, 3);
	assert_int_equal(cq_requeue_sent(&q), 2);
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "lost 2 9-10\n");
	drain_one(&q, out, sizeof(out));
	assert_string_equal(out, "ev 11\n");
	/* We closed it: the reader reads what it holds, nothing is lost. */
	drain_one(&q, out, sizeof(out));
	for (i = 13; i <= 16; i++) {
		push_ev(&q, i);
		drain_one(&q, out, sizeof(out));
	}
	cq_forget_sent(&q);
	assert_int_equal(cq_requeue_sent(&q), 0);
	assert_int_equal(cq_peek(&q, &p), 0);
	assert_int_equal(q.dropped_total, 4);
	cq_done(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drops_and_lost_record),
		cmocka_unit_test(partial_writes),
		cmocka_unit_test(read_grace),
		cmocka_unit_test(byte_bound_and_flush),
		cmocka_unit_test(sent_window),
		cmocka_unit_test(requeue_into_full_queue),
		cmocka_unit_test(window_overflow_unread_said_lost),
		cmocka_unit_test(peek_iov_from_the_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
