/* SPDX-License-Identifier: GPL-2.0 */
/* The event stream: a listening unix socket served to any number of
 * clients, plus one push target (a collector's unix stream socket or a
 * character device such as a virtio-serial port) reconnected with
 * backoff.  Each consumer has its own bounded queue (queue.h); sends are
 * non-blocking, so a consumer that does not read only loses its own
 * events.  Clients may send one-line commands (command.h), at most
 * SERVER_CMD_PER_SEC a second each; the server records each peer's
 * credentials, and the command handler decides what it may do. */
#ifndef KW_SERVER_H
#define KW_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "event.h"
#include "queue.h"

struct server;
struct client;

/* Called for each command line a client sends. */
typedef void (*server_cmd_fn)(struct server *srv, struct client *c, const char *line,
			      void *userdata);

struct client {
	struct client *next;
	struct server *srv;
	int fd;
	unsigned int id;
	sd_event_source *io;
	struct cq q;
	char in[256];
	size_t in_len;
	bool push;		/* the push target, not a socket client */
	uint64_t first_seq;	/* of the first event broadcast to it, 0: none yet */
	bool had_backlog;	/* the backlog is sent once */
	bool dead;		/* freed by the reaper, outside callbacks */
	bool eof;		/* the client shut its side: it only reads now */
	bool skip_line;		/* in an over-long line: drop up to its newline */
	bool flush;		/* has events for the end of this loop iteration */
	bool stalled;		/* the kernel had no memory for a send: retried */
	bool cred;		/* uid and pid are the peer's (SO_PEERCRED) */
	uid_t uid;
	pid_t pid;
	uint64_t types;		/* subscribed types (kw_journal_types mask), 0: all */
	uint64_t cmd_window;	/* start of the current one-second window, usec */
	unsigned int cmd_count;	/* commands in it */
};

/* Events kept for clients that connect later and ask ("backlog"). */
#define SERVER_BACKLOG 512
#define SERVER_BACKLOG_BYTES (2 << 20)	/* older events go first past this */

/* Clients at once; one more is told so and closed. */
#define SERVER_MAX_CLIENTS 64
/* Commands one client may send a second; more are refused (and counted). */
#define SERVER_CMD_PER_SEC 10
/* After accept() ran out of descriptors, wait this long before the next. */
#define SERVER_ACCEPT_PAUSE_USEC 200000
/* After a send failed for want of kernel memory (ENOMEM, ENOBUFS), wait
 * this long before the next try: the client keeps its queue. */
#define SERVER_WRITE_RETRY_USEC 20000

struct server {
	sd_event *ev;
	struct kw_event_ctx *ectx;
	int listen_fd;
	bool own_socket;	/* we bound it (not socket-activated) */
	char path[PATH_MAX];
	sd_event_source *listen_io;
	sd_event_source *accept_pause;	/* re-enables listen_io after EMFILE */
	sd_event_source *write_retry;	/* sends again to stalled clients */
	uint64_t refused;		/* connections closed: too many clients */
	uint64_t cmds_refused;		/* commands over a client's rate, or too long */
	sd_event_source *reap;
	sd_event_source *flush;		/* writes what this iteration queued */
	struct client *clients;
	unsigned int n_clients, next_id;
	unsigned int q_events;
	size_t q_bytes;
	/* push target */
	char push_path[PATH_MAX];
	struct client *push;
	sd_event_source *push_timer;
	sd_event_source *push_ack_timer;	/* reads SIOCOUTQ again while idle */
	mode_t push_mode;		/* S_IFSOCK, S_IFIFO or S_IFCHR: how to ask what is unread */
	uint64_t push_backoff_us;
	uint64_t push_connects;
	uint64_t push_failures;		/* connection attempts that failed */
	int push_err;			/* the last failure, 0: connected or none */
	bool push_told;			/* this failure streak was reported */
	uint64_t push_dropped;		/* queued for a push target that was removed */
	uint64_t dropped_closed;	/* drops counted by clients that left */
	server_cmd_fn cmd;
	void *userdata;
	struct ev_buf *backlog[SERVER_BACKLOG];	/* a ring of the last events */
	unsigned int bl_next, bl_n;
	size_t bl_bytes;
};

int server_start(struct server *srv, sd_event *ev, struct kw_event_ctx *ectx,
		 const char *path, const char *push_path, unsigned int q_events,
		 size_t q_bytes, server_cmd_fn cmd, void *userdata);
void server_stop(struct server *srv);
/* Push to another target ("" or NULL: none).  What the old one had queued
 * goes to the new one; with none, it is dropped and counted.  A target
 * that fails is reported once per streak (a push_failed event and a
 * journal warning; a regular file or directory is never a target), its
 * recovery too (push_recovered), and retried with backoff. */
int server_set_push(struct server *srv, const char *push_path);
/* The push target for status: path, connected, error, connects,
 * failures, queued, dropped. */
json_object *server_push_status(const struct server *srv);
/* Queue an encoded event for every consumer (takes no ownership). */
void server_broadcast(struct server *srv, struct ev_buf *b);
/* The same, for an event not kept in the backlog (synthetic load must not
 * push real events out of it). */
void server_broadcast_transient(struct server *srv, struct ev_buf *b);
/* Queue an encoded event for one client. */
void server_send(struct client *c, struct ev_buf *b);
/* Answer a client's command: {"type":"reply","command","ok"[,"error",
 * "reason"]}; err 0 or -errno.  A reply reuses the last seq, as status. */
void server_reply(struct client *c, const char *command, int err, const char *reason);
/* Send one client an answer (ev, owned) that reuses the last seq: a
 * reply or a status record, not a stream position. */
void server_send_reply(struct client *c, json_object *ev);
/* The peer is root (or the daemon's own user). */
bool server_client_privileged(const struct client *c);
/* Queue the kept events older than the first one the client got live,
 * oldest first: what happened before it connected (e.g. a blob found in
 * flight at start-up).  Should a live event have reached it before the
 * request, the backlog follows that event: seq orders them. */
void server_send_backlog(struct server *srv, struct client *c);
/* Write out now what consumers were sent since their last write, which
 * the end of the loop iteration would otherwise do: for a handler that
 * made many events and has more work waiting. */
void server_flush_queued(struct server *srv);
/* Send client c only events of these types from now on (a mask of
 * kw_journal_types indexes; 0: all), the backlog too.  Per-client
 * records and events of no known type always go. */
void server_subscribe(struct client *c, uint64_t types);
/* Try to write out everything queued (used at shutdown). */
void server_flush(struct server *srv, int timeout_ms);
uint64_t server_dropped(const struct server *srv);

/* The bytes a push target has not read (SIOCOUTQ or FIONREAD);
 * -EPIPE when it is gone, whatever the count said. */
int server_push_unread(int fd, mode_t mode, int *unread);

#endif
