// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "kwatchd-server.h"
#include "util.h"

/* Events a push target may not have read yet, kept to be sent again if
 * it goes (a collector restarted loses what was in its socket). */
#define PUSH_WINDOW 4096
/* Events written by one writev()/sendmsg(). */
#define CLIENT_IOV 64
#define PUSH_ACK_USEC 200000ULL
/* A collector stopped loses what it had read but not yet written out (a
 * syslog-ng killed lost two lines it had read some 80 ms before): events
 * stay in the window this long after the socket says they were read. */
#define PUSH_READ_GRACE_USEC 2000000ULL
#define PUSH_BACKOFF_MIN_US 100000ULL
#define PUSH_BACKOFF_MAX_US 5000000ULL
/* Bytes a push target sent (it should send none), read and dropped a wakeup. */
#define PUSH_INPUT_MAX 4096

static struct ev_buf *make_lost(uint64_t count, uint64_t first, uint64_t last, void *userdata)
{
	struct client *c = userdata;
	struct ev_buf *b = NULL;
	json_object *ev = kw_event_lost(c->push ? "push_queue" : "client_queue", count,
					c->q.dropped_total, first, last, c->id);

	if (!ev)
		return NULL;
	/* Stands in for the gap: it carries the last lost seq. */
	if (kw_event_encode(c->srv->ectx, ev, last, &b) < 0)
		return NULL;
	return b;
}

static int client_io(sd_event_source *s, int fd, uint32_t revents, void *userdata);

/* The connection goes; the client (its queue) stays. */
static void client_close(struct client *c)
{
	c->io = sd_event_source_disable_unref(c->io);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* The one way a consumer ends: connection, queue, memory.  What its queue
 * dropped stays counted. */
static void client_destroy(struct client *c)
{
	c->srv->dropped_closed += c->q.dropped_total;
	client_close(c);
	cq_done(&c->q);
	free(c);
}

static void client_free(struct client *c)
{
	struct server *srv = c->srv;
	struct client **pp;

	for (pp = &srv->clients; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			srv->n_clients--;
			break;
		}
	client_destroy(c);
}

static void push_ack_arm(struct client *c);

/**
 * server_push_unread() - the bytes a push target has not read yet
 * @fd: the connection
 * @mode: S_IFSOCK or S_IFIFO (anything else cannot say)
 * @unread: set to the count
 *
 * A socket's is SIOCOUTQ (its buffers, so never less than the bytes), a
 * FIFO's FIONREAD.  A unix stream peer that closes frees what it had not
 * read, and SIOCOUTQ drops to 0 as if it had read it all; but it marks
 * this end hung up first, so a hang-up seen after the count voids it.
 *
 * Return: 0, -EPIPE when the peer is gone (the count says nothing then),
 * -EOPNOTSUPP when @mode cannot say, or another -errno.
 */
int server_push_unread(int fd, mode_t mode, int *unread)
{
	struct pollfd pfd = { .fd = fd, .events = 0 };
	int r;

	*unread = 0;
	if (mode == S_IFSOCK)
		r = ioctl(fd, SIOCOUTQ, unread);
	else if (mode == S_IFIFO)
		r = ioctl(fd, FIONREAD, unread);
	else
		return -EOPNOTSUPP;
	if (r < 0)
		return neg_errno();
	if (mode == S_IFSOCK && poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		return -EPIPE;
	return 0;
}

/* What the push target read PUSH_READ_GRACE_USEC ago leaves the window.
 * A character device cannot say: what was written counts as read.  A
 * peer gone acks nothing: push_io() sends the window again. */
static void push_ack(struct client *c)
{
	int unread = 0, r;

	if (c->fd < 0)
		return;
	r = server_push_unread(c->fd, c->srv->push_mode, &unread);
	if (r == -EOPNOTSUPP) {
		cq_ack_all(&c->q);
		return;
	}
	if (r < 0)
		return;
	cq_ack(&c->q, unread > 0 ? (uint64_t)unread : 0, kw_now_usec());
}

/* Its input is polled: a client's commands until it shuts its side, and
 * what a push target's socket sends, to be dropped (push_input()).  A
 * FIFO or a character device opened write-only is never read (a
 * virtio-serial port says EPOLLIN for what the host sends even so). */
static bool client_reads(const struct client *c)
{
	return !c->eof && (!c->push || c->srv->push_mode == S_IFSOCK);
}

/* Write what the queue holds until EAGAIN; -errno if the peer is gone. */
static void write_stall(struct client *c, int err);

/* A one-shot timer made at start fires @usec from now: arming it needs no
 * memory, so it works when the failure it answers is the lack of it. */
static int timer_arm(sd_event_source *s, uint64_t usec)
{
	int r = sd_event_source_set_time_relative(s, usec);

	return r < 0 ? r : sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

static int client_write(struct client *c)
{
	struct iovec iov[CLIENT_IOV];
	const char *p;
	unsigned int n;

	cq_flush_lost(&c->q);
	/* Many queued events in one call: a syscall per event is what a
	 * busy stream would otherwise cost (and under TCG, dearly). */
	while ((n = cq_peek_iov(&c->q, iov, CLIENT_IOV)) > 0) {
		struct msghdr mh = { .msg_iov = iov, .msg_iovlen = n };
		ssize_t w = c->push ? writev(c->fd, iov, (int)n) :
			sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			/* No kernel memory for it now: not the client's fault,
			 * and EPOLLOUT would fire at once; try again shortly. */
			if (errno == ENOMEM || errno == ENOBUFS) {
				write_stall(c, neg_errno());
				return 0;
			}
			return neg_errno();
		}
		cq_advance(&c->q, w);
		cq_flush_lost(&c->q);
	}
	if (c->push) {
		push_ack(c);
		push_ack_arm(c);
	}
	if (c->io)
		sd_event_source_set_io_events(c->io, (client_reads(c) ? EPOLLIN : 0) |
					      (cq_peek(&c->q, &p) ? EPOLLOUT : 0));
	return 0;
}

static void push_lost(struct server *srv, int r);

static int on_reap(sd_event_source *s, void *userdata)
{
	struct server *srv = userdata;
	struct client *c, *next;

	(void)s;
	for (c = srv->clients; c; c = next) {
		next = c->next;
		if (c->dead)
			client_free(c);
	}
	return 0;
}

/* Clients die here and are freed later, so no caller holds a stale one. */
static void client_kill(struct client *c)
{
	if (c->dead)
		return;
	c->dead = true;
	c->io = sd_event_source_disable_unref(c->io);
	sd_event_source_set_enabled(c->srv->reap, SD_EVENT_ONESHOT);
}

static void client_flush(struct client *c)
{
	int r;

	c->flush = false;
	if (c->fd < 0 || c->dead)
		return;
	r = client_write(c);
	if (r < 0) {
		if (c->push)
			push_lost(c->srv, r);
		else
			client_kill(c);
	}
}

static void write_stall(struct client *c, int err)
{
	struct server *srv = c->srv;
	int r;

	if (!c->stalled)
		log_warning_errno(err, "client %u: send: %m; trying again in %u ms", c->id,
				  SERVER_WRITE_RETRY_USEC / 1000);
	c->stalled = true;
	if (c->io)
		sd_event_source_set_io_events(c->io, client_reads(c) ? EPOLLIN : 0);
	r = timer_arm(srv->write_retry, SERVER_WRITE_RETRY_USEC);
	if (r < 0 && c->io)	/* no timer: EPOLLOUT, even if it spins, beats a stuck queue */
		sd_event_source_set_io_events(c->io, EPOLLOUT | (client_reads(c) ? EPOLLIN : 0));
}

static int on_write_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct server *srv = userdata;
	struct client *c;

	(void)s;
	(void)usec;
	for (c = srv->clients; c; c = c->next)
		if (c->stalled) {
			c->stalled = false;
			client_flush(c);
		}
	if (srv->push && srv->push->stalled) {
		srv->push->stalled = false;
		client_flush(srv->push);
	}
	return 0;
}

/* The end of a loop iteration: what each consumer was sent in it goes out
 * in one write (a batch of ring buffer records, a burst of bench events),
 * not a write and a reader's wake-up per event. */
void server_flush_queued(struct server *srv)
{
	struct client *c;

	for (c = srv->clients; c; c = c->next)
		if (c->flush)
			client_flush(c);
	if (srv->push && srv->push->flush)
		client_flush(srv->push);
	sd_event_source_set_enabled(srv->flush, SD_EVENT_OFF);
}

static int on_flush(sd_event_source *s, void *userdata)
{
	(void)s;
	server_flush_queued(userdata);
	return 0;
}

void server_send(struct client *c, struct ev_buf *b)
{
	const char *p;
	bool idle = cq_peek(&c->q, &p) == 0;

	cq_push(&c->q, b);
	if (c->fd < 0 || !idle || c->dead || c->flush)
		return;	/* EPOLLOUT is armed, the push target is down, or queued */
	c->flush = true;
	sd_event_source_set_enabled(c->srv->flush, SD_EVENT_ONESHOT);
}

static void backlog_drop_oldest(struct server *srv, bool drop)
{
	unsigned int first = (srv->bl_next + SERVER_BACKLOG - srv->bl_n) % SERVER_BACKLOG;

	if (!drop || !srv->bl_n)
		return;
	srv->bl_bytes -= srv->backlog[first]->len;
	srv->backlog[first] = ev_buf_unref(srv->backlog[first]);
	srv->bl_n--;
}

static bool subscribed(const struct client *c, const struct ev_buf *b)
{
	return !c->types || b->type_index < 0 || (c->types & (1ULL << b->type_index));
}

void server_subscribe(struct client *c, uint64_t types)
{
	c->types = types;
}

static void broadcast(struct server *srv, struct ev_buf *b, bool keep)
{
	struct client *c, *next;

	for (c = srv->clients; c; c = next) {
		next = c->next;
		if (!c->first_seq)
			c->first_seq = b->seq;
		if (subscribed(c, b))
			server_send(c, b);
	}
	if (srv->push)
		server_send(srv->push, b);
	if (!keep)
		return;
	backlog_drop_oldest(srv, srv->bl_n == SERVER_BACKLOG);
	srv->backlog[srv->bl_next] = ev_buf_ref(b);
	srv->bl_next = (srv->bl_next + 1) % SERVER_BACKLOG;
	srv->bl_n++;
	srv->bl_bytes += b->len;
	while (srv->bl_bytes > SERVER_BACKLOG_BYTES && srv->bl_n > 1)
		backlog_drop_oldest(srv, true);
}

void server_broadcast(struct server *srv, struct ev_buf *b)
{
	broadcast(srv, b, true);
}

void server_broadcast_transient(struct server *srv, struct ev_buf *b)
{
	broadcast(srv, b, false);
}

void server_reply(struct client *c, const char *command, int err, const char *reason)
{
	json_object *ev = kw_event_new("reply");

	if (!ev)
		return;
	kw_event_add_str(ev, "command", command);
	kw_event_add_bool(ev, "ok", err == 0);
	if (err)
		kw_event_add_errno(ev, err);
	if (reason && *reason)
		kw_event_add_str(ev, "reason", reason);
	server_send_reply(c, ev);
}

void server_send_reply(struct client *c, json_object *ev)
{
	struct kw_event_ctx *ectx = c->srv->ectx;
	struct ev_buf *b = NULL;

	if (kw_event_encode(ectx, ev, ectx->seq ? ectx->seq : 1, &b) < 0)
		return;
	server_send(c, b);
	ev_buf_unref(b);
}

bool server_client_privileged(const struct client *c)
{
	return c->cred && (c->uid == 0 || c->uid == geteuid());
}

/* One command line: within the client's rate, to the handler. */
static void client_command(struct client *c, const char *line)
{
	struct server *srv = c->srv;
	uint64_t now = kw_now_usec();

	if (now - c->cmd_window >= 1000000) {
		c->cmd_window = now;
		c->cmd_count = 0;
	}
	if (++c->cmd_count > SERVER_CMD_PER_SEC) {
		srv->cmds_refused++;
		/* Told once a window: refusals must not cost more than commands. */
		if (c->cmd_count == SERVER_CMD_PER_SEC + 1) {
			char why[96];

			snprintf(why, sizeof(why), "too many commands: at most %d a second, %s",
				 SERVER_CMD_PER_SEC, "the rest of this second's are dropped");
			server_reply(c, "", -EBUSY, why);
		}
		return;
	}
	if (srv->cmd)
		srv->cmd(srv, c, line, srv->userdata);
}

void server_send_backlog(struct server *srv, struct client *c)
{
	unsigned int i, first = (srv->bl_next + SERVER_BACKLOG - srv->bl_n) % SERVER_BACKLOG;

	if (c->had_backlog)
		return;
	c->had_backlog = true;
	for (i = 0; i < srv->bl_n; i++) {
		struct ev_buf *b = srv->backlog[(first + i) % SERVER_BACKLOG];

		if (c->first_seq && b->seq >= c->first_seq)
			break;
		if (subscribed(c, b))
			server_send(c, b);
	}
}

static void client_input(struct client *c)
{
	char *nl;

	while (!c->dead) {
		ssize_t n = recv(c->fd, c->in + c->in_len, sizeof(c->in) - 1 - c->in_len,
				 MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n == 0 && !c->push) {
			/*
			 * The client shut its sending side (shutdown(SHUT_WR),
			 * `kwatchctl ... </dev/null`): it may still read.  Stop
			 * reading; a full close shows as EPOLLHUP.
			 */
			const char *p;

			c->eof = true;
			sd_event_source_set_io_events(c->io, cq_peek(&c->q, &p) ? EPOLLOUT : 0);
			return;
		}
		if (n <= 0) {
			client_kill(c);
			return;
		}
		c->in_len += n;
		c->in[c->in_len] = '\0';
		while (!c->dead && (nl = strchr(c->in, '\n'))) {
			*nl = '\0';
			if (c->skip_line)
				c->skip_line = false;	/* the tail of an over-long one */
			else
				client_command(c, c->in);
			memmove(c->in, nl + 1, c->in_len - (nl + 1 - c->in) + 1);
			c->in_len -= nl + 1 - c->in;
		}
		if (c->in_len == sizeof(c->in) - 1) {
			/* No command is this long: drop it whole, up to its newline. */
			if (!c->skip_line) {
				c->srv->cmds_refused++;
				server_reply(c, "", -EINVAL, "command line too long");
			}
			c->skip_line = true;
			c->in_len = 0;
		}
	}
}

static int client_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;

	(void)s;
	(void)fd;
	if (revents & EPOLLOUT) {
		if (client_write(c) < 0) {
			client_kill(c);
			return 0;
		}
	}
	if (revents & EPOLLIN || (c->push && revents & (EPOLLHUP | EPOLLERR)))
		client_input(c);
	/* Gone for good: the lines it sent before are handled above. */
	if (!c->dead && !c->push && revents & (EPOLLHUP | EPOLLERR))
		client_kill(c);
	return 0;
}

static struct client *client_new(struct server *srv, int fd, bool push)
{
	struct client *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->srv = srv;
	c->fd = fd;
	c->push = push;
	c->id = push ? 0 : ++srv->next_id;	/* the push target is client 0 */
	if (cq_init(&c->q, srv->q_events, srv->q_bytes, make_lost, c) < 0) {
		free(c);
		return NULL;
	}
	if (push && cq_keep_sent(&c->q, PUSH_WINDOW, PUSH_READ_GRACE_USEC) < 0) {
		cq_done(&c->q);
		free(c);
		return NULL;
	}
	return c;
}

static int on_accept_resume(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct server *srv = userdata;

	(void)s;
	(void)usec;
	sd_event_source_set_enabled(srv->listen_io, SD_EVENT_ON);
	return 0;
}

/*
 * Out of descriptors (or kernel memory), a pending connection stays
 * pending and the listening socket stays readable: stop listening for a
 * moment rather than spin.
 */
static void accept_pause(struct server *srv, int err)
{
	int r;

	log_warning_errno(err, "accept: %m; not accepting clients for %u ms",
			  SERVER_ACCEPT_PAUSE_USEC / 1000);
	sd_event_source_set_enabled(srv->listen_io, SD_EVENT_OFF);
	r = timer_arm(srv->accept_pause, SERVER_ACCEPT_PAUSE_USEC);
	if (r < 0)	/* no timer: listening again at once beats never */
		sd_event_source_set_enabled(srv->listen_io, SD_EVENT_ON);
}

/* Who connected decides what it may command (command.h); unknown: nothing. */
static void peer_cred(struct client *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0 && len == sizeof(uc)) {
		c->cred = true;
		c->uid = uc.uid;
		c->pid = uc.pid;
	}
}

/* One "refused" record to a client that is not taken on (@err a positive
 * errno, @reason why).  Best effort: the socket is new and its buffer
 * empty. */
static void refuse_client(struct server *srv, int fd, int err, const char *reason)
{
	json_object *ev = kw_event_new("refused");
	struct ev_buf *b = NULL;

	if (!ev)
		return;
	kw_event_add_errno(ev, err);
	kw_event_add_str(ev, "reason", reason);
	kw_event_add_u64(ev, "clients", srv->n_clients);
	if (kw_event_encode(srv->ectx, ev, srv->ectx->seq ? srv->ectx->seq : 1, &b) < 0)
		return;
	if (write(fd, b->data, b->len) < 0)
		log_full_errno(LOG_DEBUG, neg_errno(), "refusing a client: %m");
	ev_buf_unref(b);
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct server *srv = userdata;
	struct client *c;
	int cfd, r;

	(void)s;
	(void)revents;
	cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (cfd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			accept_pause(srv, neg_errno());
		return 0;
	}
	if (srv->n_clients >= SERVER_MAX_CLIENTS) {
		refuse_client(srv, cfd, EUSERS, "too many clients");
		close(cfd);
		if (srv->refused++ == 0)
			log_warning("%u clients connected: refusing more", SERVER_MAX_CLIENTS);
		return 0;
	}
	/* A client not taken on is told why before it is closed, as one
	 * beyond the limit is. */
	c = client_new(srv, cfd, false);
	if (!c) {
		log_warning("a client not taken on: out of memory");
		refuse_client(srv, cfd, ENOMEM, "out of memory");
		close(cfd);
		return 0;
	}
	peer_cred(c);
	r = sd_event_add_io(srv->ev, &c->io, cfd, EPOLLIN, client_io, c);
	if (r < 0) {
		log_warning_errno(r, "a client not taken on: watching its socket: %m");
		refuse_client(srv, cfd, -r, "cannot watch the connection");
		client_destroy(c);
		return 0;
	}
	c->next = srv->clients;
	srv->clients = c;
	srv->n_clients++;
	log_debug("client %u connected (pid %d uid %d)", c->id, c->cred ? (int)c->pid : -1,
		  c->cred ? (int)c->uid : -1);
	return 0;
}

/* --- push target ------------------------------------------------------------ */

static int push_connect(struct server *srv);

static int on_push_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	push_connect(userdata);
	return 0;
}

static void push_retry(struct server *srv)
{
	uint64_t now;
	int r;

	srv->push_backoff_us = srv->push_backoff_us ?
		srv->push_backoff_us * 2 : PUSH_BACKOFF_MIN_US;
	if (srv->push_backoff_us > PUSH_BACKOFF_MAX_US)
		srv->push_backoff_us = PUSH_BACKOFF_MAX_US;
	sd_event_now(srv->ev, CLOCK_MONOTONIC, &now);
	/* Made once, armed again after: no allocation to fail on a retry. */
	if (srv->push_timer) {
		r = sd_event_source_set_time(srv->push_timer, now + srv->push_backoff_us);
		if (r >= 0)
			r = sd_event_source_set_enabled(srv->push_timer, SD_EVENT_ONESHOT);
	} else {
		r = sd_event_add_time(srv->ev, &srv->push_timer, CLOCK_MONOTONIC,
				      now + srv->push_backoff_us, 10000, on_push_timer, srv);
	}
	if (r < 0)
		log_warning_errno(r, "push target %s: cannot arm the retry timer: %m; "
				  "retrying when it is set again", srv->push_path);
}

/* A lifecycle event of the push target, to every consumer (the target
 * itself gets it queued, to read once it works). */
static void push_event(struct server *srv, const char *type, int err, const char *reason)
{
	json_object *ev = kw_event_new(type);
	struct ev_buf *b = NULL;

	if (!ev)
		return;
	kw_event_add_str(ev, "path", srv->push_path);
	if (err)
		kw_event_add_errno(ev, err);
	if (reason)
		kw_event_add_str(ev, "reason", reason);
	kw_event_add_u64(ev, "queued", srv->push ? srv->push->q.count : 0);
	if (kw_event_encode(srv->ectx, ev, 0, &b) < 0)
		return;
	server_broadcast(srv, b);
	ev_buf_unref(b);
}

/* Connecting failed: said once a streak (journal and event), then quiet. */
static void push_failed(struct server *srv, int r)
{
	char why[160];

	srv->push_failures++;
	srv->push_err = r;
	if (srv->push_told)
		return;
	srv->push_told = true;
	if (r == -EBADF)
		snprintf(why, sizeof(why), "%s",
			 "not a unix stream socket, FIFO or character device; retrying");
	else
		snprintf(why, sizeof(why), "%s; retrying every %llu s at most, events queue for it",
			 strerror(-r), PUSH_BACKOFF_MAX_US / 1000000);
	log_warning("push target %s: %s", srv->push_path, why);
	push_event(srv, "push_failed", r, why);
}

/* The connection went: what it may not have read goes out again on the
 * next one (at least once; the events' ids tell a repeat). */
static void push_requeue(struct server *srv)
{
	unsigned int n = cq_requeue_sent(&srv->push->q);

	srv->push_ack_timer = sd_event_source_disable_unref(srv->push_ack_timer);
	if (n)
		log_info("push target %s: %u events it may not have read will be sent again",
			 srv->push_path, n);
}

static void push_lost(struct server *srv, int r)
{
	struct client *c = srv->push;

	log_warning_errno(r, "push target %s: %m, reconnecting", srv->push_path);
	srv->push_err = r;
	client_close(c);
	push_requeue(srv);
	push_retry(srv);
}

static int on_push_ack(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct server *srv = userdata;

	(void)s;
	(void)usec;
	srv->push_ack_timer = sd_event_source_disable_unref(srv->push_ack_timer);
	if (srv->push && srv->push->fd >= 0) {
		push_ack(srv->push);
		push_ack_arm(srv->push);
	}
	return 0;
}

/* While the window holds events, look again in a while: an idle stream
 * has no writes to look after. */
static void push_ack_arm(struct client *c)
{
	struct server *srv = c->srv;
	uint64_t now;

	if (!c->q.win_count || srv->push_ack_timer || !srv->ev)
		return;
	sd_event_now(srv->ev, CLOCK_MONOTONIC, &now);
	sd_event_add_time(srv->ev, &srv->push_ack_timer, CLOCK_MONOTONIC, now + PUSH_ACK_USEC,
			  50000, on_push_ack, srv);
}

/*
 * A push target has nothing to say: what its socket sends is read and
 * dropped, PUSH_INPUT_MAX bytes a wakeup at most (the loop's other work
 * goes on), and once it has shut its sending side it is no longer polled
 * for input; it may still read, and its going shows as EPOLLHUP.  Left
 * unread, either kept the descriptor readable and the loop spinning.
 */
static int push_input(struct client *c)
{
	char buf[PUSH_INPUT_MAX];
	ssize_t n = read(c->fd, buf, sizeof(buf));
	const char *p;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : neg_errno();
	if (n > 0)
		return 0;
	c->eof = true;
	return sd_event_source_set_io_events(c->io, cq_peek(&c->q, &p) ? EPOLLOUT : 0);
}

static int push_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct server *srv = userdata;
	int r = 0;

	(void)s;
	(void)fd;
	if (revents & (EPOLLERR | EPOLLHUP))
		r = -EPIPE;
	if (r == 0 && revents & EPOLLIN)
		r = push_input(srv->push);
	if (r == 0 && revents & EPOLLOUT)
		r = client_write(srv->push);
	if (r < 0)
		push_lost(srv, r);
	return 0;
}

static int push_connect(struct server *srv)
{
	struct client *c = srv->push;
	struct stat st;
	int fd = -1, r;

	if (stat(srv->push_path, &st) < 0) {
		r = neg_errno();
		goto retry;
	}
	/* A regular file or a directory can never take the stream. */
	if (!S_ISSOCK(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
		r = -EBADF;
		goto retry;
	}
	if (S_ISSOCK(st.st_mode)) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };

		if (kw_strlcpy(sa.sun_path, srv->push_path, sizeof(sa.sun_path)) < 0) {
			r = -ENAMETOOLONG;
			goto retry;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			r = neg_errno();
			goto retry;
		}
	} else {
		fd = open(srv->push_path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			r = neg_errno();
			goto retry;
		}
	}
	c->fd = fd;
	c->eof = false;
	srv->push_mode = st.st_mode & S_IFMT;
	r = sd_event_add_io(srv->ev, &c->io, fd, EPOLLOUT, push_io, srv);
	if (r < 0)
		goto retry;
	srv->push_backoff_us = 0;
	srv->push_connects++;
	srv->push_err = 0;
	log_info("push target %s connected", srv->push_path);
	if (srv->push_told) {
		srv->push_told = false;
		push_event(srv, "push_recovered", 0, "connected; what was queued follows");
	}
	return client_write(c);
retry:
	if (fd >= 0)
		close(fd);
	c->fd = -1;
	log_debug("push target %s: %s, retrying", srv->push_path, strerror(-r));
	push_failed(srv, r);
	push_retry(srv);
	return r;
}

/* --- lifecycle ----------------------------------------------------------- */

static int listen_socket(struct server *srv, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char **names = NULL;
	struct group *g;
	int n, i, fd, r;

	/* Socket activation: a unit's socket named "events" wins. */
	n = sd_listen_fds_with_names(true, &names);
	for (i = 0; i < n; i++) {
		if (names && strcmp(names[i], "events") == 0 && srv->listen_fd < 0)
			srv->listen_fd = SD_LISTEN_FDS_START + i;
		free(names ? names[i] : NULL);
	}
	free(names);
	if (srv->listen_fd >= 0) {
		if (fcntl(srv->listen_fd, F_SETFL, fcntl(srv->listen_fd, F_GETFL) | O_NONBLOCK) < 0)
			return neg_errno();
		return 0;
	}
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	r = kw_strlcpy(srv->path, path, sizeof(srv->path));
	if (r < 0)
		return r;
	{
		char dir[PATH_MAX], *slash;

		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (slash && slash != dir) {
			*slash = '\0';
			kw_mkdir_p(dir, 0755);
		}
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return neg_errno();
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		r = neg_errno();
		close(fd);
		return r;
	}
	g = getgrnam("kwatch");
	if (chown(path, -1, g ? g->gr_gid : (gid_t)-1) < 0 || chmod(path, 0660) < 0)
		log_warning_errno(neg_errno(), "cannot set owner/mode of %s: %m, ignoring", path);
	srv->listen_fd = fd;
	srv->own_socket = true;
	return 0;
}

int server_start(struct server *srv, sd_event *ev, struct kw_event_ctx *ectx,
		 const char *path, const char *push_path, unsigned int q_events,
		 size_t q_bytes, server_cmd_fn cmd, void *userdata)
{
	int r;

	memset(srv, 0, sizeof(*srv));
	srv->ev = ev;
	srv->ectx = ectx;
	srv->listen_fd = -1;
	srv->q_events = q_events;
	srv->q_bytes = q_bytes;
	srv->cmd = cmd;
	srv->userdata = userdata;
	r = listen_socket(srv, path);
	if (r < 0)
		return log_error_errno(r, "cannot listen on %s: %m", path);
	r = sd_event_add_io(ev, &srv->listen_io, srv->listen_fd, EPOLLIN, on_accept, srv);
	if (r < 0)
		return r;
	r = sd_event_add_time_relative(ev, &srv->accept_pause, CLOCK_MONOTONIC,
				       SERVER_ACCEPT_PAUSE_USEC, 0, on_accept_resume, srv);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(srv->accept_pause, SD_EVENT_OFF);
	r = sd_event_add_time_relative(ev, &srv->write_retry, CLOCK_MONOTONIC,
				       SERVER_WRITE_RETRY_USEC, 0, on_write_retry, srv);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(srv->write_retry, SD_EVENT_OFF);
	r = sd_event_add_defer(ev, &srv->reap, on_reap, srv);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(srv->reap, SD_EVENT_OFF);
	r = sd_event_add_defer(ev, &srv->flush, on_flush, srv);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(srv->flush, SD_EVENT_OFF);
	return server_set_push(srv, push_path);
}

/* Close the push target's connection, keeping its queue. */
static void push_close(struct server *srv)
{
	client_close(srv->push);
	/* We closed it: the target still reads what it holds. */
	cq_forget_sent(&srv->push->q);
	srv->push_ack_timer = sd_event_source_disable_unref(srv->push_ack_timer);
	srv->push_timer = sd_event_source_disable_unref(srv->push_timer);
	srv->push_backoff_us = 0;
	srv->push_told = false;
	srv->push_err = 0;
}

static void push_free(struct server *srv)
{
	uint64_t n;

	if (!srv->push)
		return;
	push_close(srv);
	/* Queued for a target nobody pushes to any more: counted, said. */
	n = srv->push->q.count;
	if (n)
		log_warning("push target %s removed: %" PRIu64 " events queued for it dropped",
			    srv->push_path, n);
	srv->push_dropped += srv->push->q.dropped_total + n;
	srv->dropped_closed += n;
	client_destroy(srv->push);
	srv->push = NULL;
}

int server_set_push(struct server *srv, const char *push_path)
{
	if (srv->push && push_path && push_path[0]) {
		/* Another target: what is queued goes there instead. */
		push_close(srv);
		snprintf(srv->push_path, sizeof(srv->push_path), "%s", push_path);
		push_connect(srv);
		return 0;
	}
	push_free(srv);
	srv->push_path[0] = '\0';
	if (!push_path || !push_path[0])
		return 0;
	snprintf(srv->push_path, sizeof(srv->push_path), "%s", push_path);
	srv->push = client_new(srv, -1, true);
	if (!srv->push)
		return -ENOMEM;
	push_connect(srv);
	return 0;
}

json_object *server_push_status(const struct server *srv)
{
	json_object *o = json_object_new_object();
	const char *err = srv->push_err ? kw_errno_name(srv->push_err) : NULL;

	if (!o)
		return NULL;
	kw_event_add_str(o, "path", srv->push_path);
	kw_event_add_bool(o, "connected", srv->push && srv->push->fd >= 0);
	if (err)
		kw_event_add_str(o, "error", err);
	kw_event_add_u64(o, "connects", srv->push_connects);
	kw_event_add_u64(o, "failures", srv->push_failures);
	kw_event_add_u64(o, "queued", srv->push ? srv->push->q.count : 0);
	kw_event_add_u64(o, "dropped", (srv->push ? srv->push->q.dropped_total : 0) +
			 srv->push_dropped);
	kw_event_add_u64(o, "resent", srv->push ? srv->push->q.resent_total : 0);
	kw_event_add_u64(o, "unprotected", srv->push ? srv->push->q.unprotected_total : 0);
	return o;
}

void server_flush(struct server *srv, int timeout_ms)
{
	struct timespec t0, t;
	struct client *c;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		bool pending = false;
		const char *p;

		for (c = srv->clients; c; c = c->next)
			if (!c->dead && client_write(c) == 0 && cq_peek(&c->q, &p))
				pending = true;
		if (srv->push && srv->push->fd >= 0 && client_write(srv->push) == 0 &&
		    cq_peek(&srv->push->q, &p))
			pending = true;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (!pending || (t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return;
		poll(NULL, 0, 10);
	}
}

void server_stop(struct server *srv)
{
	unsigned int i;

	for (i = 0; i < SERVER_BACKLOG; i++)
		srv->backlog[i] = ev_buf_unref(srv->backlog[i]);
	srv->bl_n = 0;
	srv->bl_bytes = 0;
	while (srv->clients)
		client_free(srv->clients);
	push_free(srv);
	srv->listen_io = sd_event_source_disable_unref(srv->listen_io);
	srv->accept_pause = sd_event_source_disable_unref(srv->accept_pause);
	srv->write_retry = sd_event_source_disable_unref(srv->write_retry);
	srv->reap = sd_event_source_disable_unref(srv->reap);
	srv->flush = sd_event_source_disable_unref(srv->flush);
	/* Our own socket goes with us; an activated one belongs to systemd. */
	if (srv->own_socket) {
		close(srv->listen_fd);
		unlink(srv->path);
	}
	srv->listen_fd = -1;
}

uint64_t server_dropped(const struct server *srv)
{
	const struct client *c;
	uint64_t n = srv->dropped_closed;

	for (c = srv->clients; c; c = c->next)
		n += c->q.dropped_total;
	if (srv->push)
		n += srv->push->q.dropped_total;
	return n;
}
