// SPDX-License-Identifier: GPL-2.0
/* wprobe hits: the daemon's tracefs instance's trace_pipe, read as the
 * kernel writes it; each line a wprobe_hit event, or a wprobe_storm when
 * the kernel's hit-storm guard disarmed a wprobe, or a lost record when
 * hits were lost on the way. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "wprobe.h"

/* A trace line's time ("SECONDS.FRACTION", since boot) in ns. */
static bool trace_time_ns(const char *ts, uint64_t *ns)
{
	unsigned long long sec = 0, frac = 0;
	const char *dot = strchr(ts, '.');
	size_t digits = 0;

	if (sscanf(ts, "%llu", &sec) != 1)
		return false;
	if (dot) {
		for (dot++; *dot >= '0' && *dot <= '9' && digits < 9; dot++, digits++)
			frac = frac * 10 + (unsigned long long)(*dot - '0');
	}
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return true;
}

static void add_trace_time(json_object *ev, const char *ts)
{
	uint64_t ns;

	if (trace_time_ns(ts, &ns))
		kw_event_add_u64(ev, "kernel_ns", ns);
}

/* The kernel disarmed a wprobe that trapped or moved too often. */
static bool storm_line(struct kwd *d, const struct wprobe_hit *h)
{
	struct wprobe_storm s;
	json_object *ev;

	if (wprobe_storm_from_hit(h, &s) < 0)
		return false;
	log_warning("wprobe %s/%s disarmed by the kernel: %u %s in a second on CPU %d, limit %u; "
		    "change its file (max_rate=) to re-arm it", s.group, s.name, s.count,
		    s.repoints ? "re-points" : "hits", s.cpu, s.limit);
	ev = kw_event_new("wprobe_storm");
	if (!ev)
		return true;
	kw_event_add_str(ev, "wprobe", s.name);
	kw_event_add_str(ev, "group", s.group);
	kw_event_add_str(ev, "reason", s.repoints ? "re-points" : "hits");
	kw_event_add_int(ev, "count", s.count);
	kw_event_add_int(ev, "limit", s.limit);
	kw_event_add_int(ev, "cpu", s.cpu);
	add_trace_time(ev, s.ts);
	kwd_emit(d, ev);
	return true;
}

/* Hits lost before they were read: the instance's ring buffer overwrote
 * them ("trace_buffer"), or their line did not fit in pipe_lines
 * ("trace_line"). */
static void lost(struct kwd *d, const char *source, uint64_t count, uint64_t total)
{
	json_object *ev = kw_event_lost(source, count, total, 0, 0, -1);

	if (ev)
		kwd_emit(d, ev);
}

/* One line of trace_pipe; NULL: one too long to keep was dropped. */
static void hit_line(const char *line, void *userdata)
{
	struct kwd *d = userdata;
	struct kw_evtext t;
	struct wprobe_hit h;
	uint64_t ns, n;
	int cpu;

	if (!line) {
		d->pipe_too_long++;
		log_warning("trace_pipe: a line of %zu bytes or more dropped",
			    sizeof(d->pipe_lines.buf) - 1);
		lost(d, "trace_line", 1, d->pipe_too_long);
		return;
	}
	if (wprobe_parse_lost(line, &cpu, &n) == 0) {
		d->pipe_lost += n;
		log_warning("trace_pipe: %" PRIu64 " events lost on CPU %d, the trace buffer "
			    "was full", n, cpu);
		lost(d, "trace_buffer", n, d->pipe_lost);
		return;
	}
	/* One parse per line: the storm report reads like a hit. */
	if (wprobe_parse_hit(line, &h) < 0 || storm_line(d, &h))
		return;
	d->wprobe_hits++;
	/* One per hit: written as text, not built as a json-c object. */
	kw_evtext_begin(&t, "wprobe_hit");
	kw_evtext_str(&t, "wprobe", h.event);
	kw_evtext_str(&t, "comm", h.comm);
	kw_evtext_int(&t, "pid", h.pid);
	kw_evtext_int(&t, "cpu", h.cpu);
	if (trace_time_ns(h.ts, &ns))
		kw_evtext_u64(&t, "kernel_ns", ns);
	kw_evtext_str(&t, "location", h.ip);
	kw_evtext_str(&t, "args", h.args);
	kwd_emit_text(d, &t);
}

static int on_pipe(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct kwd *d = userdata;
	size_t room;
	char *buf;
	ssize_t n;

	(void)s;
	(void)revents;
	buf = wprobe_lines_room(&d->pipe_lines, &room);
	n = read(fd, buf, room);
	if (n <= 0)
		return 0;
	wprobe_lines_feed(&d->pipe_lines, n, hit_line, d);
	server_flush_queued(&d->srv);
	return 0;
}

int kwd_pipe_open(struct kwd *d)
{
	int r;

	if (d->pipe_fd >= 0)
		return 0;
	r = wprobe_instance_open(d->set.tracefs, d->set.instance, d->trace_pipe,
				 sizeof(d->trace_pipe));
	if (r < 0)
		return log_warning_errno(r, "tracefs instance %s: %m", d->set.instance);
	d->pipe_fd = open(d->trace_pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (d->pipe_fd < 0)
		return log_warning_errno(neg_errno(), "%s: %m", d->trace_pipe);
	/* The hit-storm guard's reports come through the same pipe. */
	r = wprobe_storm_enable(d->set.tracefs, d->set.instance);
	if (r < 0 && r != -ENOENT)
		log_warning_errno(r, "enabling wprobe:wprobe_storm: %m, ignoring");
	r = sd_event_add_io(d->ev, &d->pipe_io, d->pipe_fd, EPOLLIN, on_pipe, d);
	if (r < 0)
		goto fail;
	return 0;
fail:
	/* Not polled, not kept: the next call tries again rather than
	 * take a descriptor nobody reads for an open pipe. */
	close(d->pipe_fd);
	d->pipe_fd = -1;
	return log_warning_errno(r, "%s: cannot poll: %m", d->trace_pipe);
}
