// SPDX-License-Identifier: GPL-2.0
/*
 * A wprobe (wprobe.d/), its whole life but its text: its apply steps
 * (kwatchd-reconcile.c's execute()), its kernel I/O in tracefs
 * (dynamic_events, the triggers, the daemon's instance), its hits (the instance's trace_pipe, read as the kernel
 * writes it: each line a wprobe_hit event, or a wprobe_storm when the
 * kernel's hit-storm guard disarmed a wprobe, or a lost record when hits
 * were lost on the way), its part of the status reply, and its runtime
 * (struct kwd_wprobes).  The [wprobe] keys (called by config.c's drop-in
 * parser) and the lines themselves are tracefs-text.c's, with no daemon
 * state, for the host tests, the fuzz harnesses and the library.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kwatchd.h"
#include "kwatch-loader.h"
#include "log.h"
#include "util.h"
#include "kwatchd-wprobe.h"
#include "kwatchd-module.h"
#include "module.h"

/* --- the kernel's side, in tracefs ---------------------------------------- */

/* tracefs/README holds @a or @b (NULL: only @a). */
static bool readme_says(const char *tracefs, const char *a, const char *b)
{
	_cleanup_free_ char *readme = NULL;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/README", tracefs);
	if (kw_read_file(path, 1 << 20, &readme, NULL) < 0)
		return false;
	return strstr(readme, a) || (b && strstr(readme, b));
}

bool wprobe_supported(const char *tracefs)
{
	/* "w[maxrate][:" since the hit-storm guard, "w[:" before it */
	return readme_says(tracefs, "w[:", "w[maxrate][:");
}

bool wprobe_module_supported(const char *tracefs)
{
	/* the wprobe's "addr:" line since MODULE:SYMBOL */
	return readme_says(tracefs, "addr: [<module>:]<symbol>[+|-<offset>]", NULL);
}

int wprobe_instance_open(const char *tracefs, const char *instance, char *pipe, size_t n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/instances/%s", tracefs, instance);
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return neg_errno();
	if ((size_t)snprintf(pipe, n, "%s/trace_pipe", path) >= n)
		return -ENAMETOOLONG;
	return 0;
}

static int append(const char *path, const char *line)
{
	_cleanup_close_ int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	size_t len = strlen(line);

	if (fd < 0)
		return neg_errno();
	if (write(fd, line, len) != (ssize_t)len)
		return neg_errno();
	return 0;
}

/* The last "error:" line of tracefs error_log, or "" if there is none. */
static void last_error(const char *tracefs, char *reason, size_t n)
{
	_cleanup_free_ char *log = NULL;
	char path[PATH_MAX], *last = NULL, *p;

	if (!reason || !n)
		return;
	reason[0] = '\0';
	snprintf(path, sizeof(path), "%s/error_log", tracefs);
	if (kw_read_file(path, 65536, &log, NULL) < 0)
		return;
	for (p = strtok(log, "\n"); p; p = strtok(NULL, "\n"))
		if (strstr(p, "error:"))
			last = p;
	if (last)
		snprintf(reason, n, "%s", last);
}

/* The kernel's reason for a failure, if error_log gained one since @before
 * was taken: an older entry is about something else. */
static void new_error(const char *tracefs, const char *before, char *reason, size_t n)
{
	last_error(tracefs, reason, n);
	if (reason && n && strcmp(reason, before) == 0)
		reason[0] = '\0';
}

static int trigger(const char *tracefs, const char *instance, const struct kw_trigger *t,
		   const char *name, bool remove)
{
	char path[PATH_MAX], line[320], wprobe[sizeof(KW_WPROBE_GROUP) + KW_NAME_MAX + 1];
	int r;

	/* GROUP/NAME: a bare name is refused when another group has one too. */
	snprintf(wprobe, sizeof(wprobe), "%s/%s", KW_WPROBE_GROUP, name);
	r = kw_trigger_line(t, wprobe, line + 1, sizeof(line) - 2);
	if (r < 0)
		return r;
	line[0] = '!';
	strcat(line, "\n");
	snprintf(path, sizeof(path), "%s/instances/%s/events/%s/%s/trigger", tracefs, instance,
		 t->system, t->event);
	return append(path, remove ? line : line + 1);
}

static int enable(const char *tracefs, const char *instance, const char *sys,
		  const char *event, bool on)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/instances/%s/events/%s/%s/enable", tracefs, instance,
		 sys, event);
	return kw_write_once(path, on ? "1\n" : "0\n", 2);
}

int wprobe_storm_enable(const char *tracefs, const char *instance)
{
	return enable(tracefs, instance, "wprobe", "wprobe_storm", true);
}

int wprobe_create(const char *tracefs, const char *instance, const struct kw_wprobe *p,
		  char *reason, size_t n)
{
	char path[PATH_MAX], line[512], before[256];
	unsigned int i, done = 0;
	int r;

	r = kw_wprobe_line(p, KW_WPROBE_GROUP, line, sizeof(line) - 1);
	if (r < 0)
		return r;
	strcat(line, "\n");
	last_error(tracefs, before, sizeof(before));
	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs);
	r = append(path, line);
	if (r < 0) {
		new_error(tracefs, before, reason, n);
		return r;
	}
	/* Triggers attach to the triggering events in our instance; a trigger
	 * runs on an event that is not enabled too (the kernel soft-enables
	 * it), so only the wprobe itself is enabled, and only its hits reach
	 * the instance's buffer. */
	for (i = 0; i < p->n_trig; i++, done++) {
		r = trigger(tracefs, instance, &p->trig[i], p->name, false);
		if (r < 0)
			goto fail;
	}
	r = enable(tracefs, instance, KW_WPROBE_GROUP, p->name, true);
	if (r < 0)
		goto fail;
	return 0;
fail:
	new_error(tracefs, before, reason, n);
	enable(tracefs, instance, KW_WPROBE_GROUP, p->name, false);
	while (done--)
		trigger(tracefs, instance, &p->trig[done], p->name, true);
	snprintf(line, sizeof(line), "-:%s/%s\n", KW_WPROBE_GROUP, p->name);
	append(path, line);
	return r;
}

int wprobe_remove(const char *tracefs, const char *instance, const struct kw_wprobe *p)
{
	char path[PATH_MAX], line[160];
	unsigned int i;

	enable(tracefs, instance, KW_WPROBE_GROUP, p->name, false);
	for (i = 0; i < p->n_trig; i++)
		trigger(tracefs, instance, &p->trig[i], p->name, true);
	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs);
	snprintf(line, sizeof(line), "-:%s/%s\n", KW_WPROBE_GROUP, p->name);
	return append(path, line);
}

/*
 * What a kwatchd killed before it could clean up left in tracefs: its
 * instance (removing it drops the instance's triggers and enables, which
 * hold the wprobes) and the wprobes of group KW_WPROBE_GROUP, each still
 * holding a debug register.  @removed is called with each wprobe's name.
 * Returns how many were removed, or a negative errno.
 */
int wprobe_remove_stale(const char *tracefs, const char *instance,
			void (*removed)(const char *name, void *data), void *data)
{
	_cleanup_free_ char *defs = NULL;
	char path[PATH_MAX], line[KW_NAME_MAX + 16], name[KW_NAME_MAX + 1];
	char *p, *save = NULL;
	const char *g;
	int r, n = 0;

	snprintf(path, sizeof(path), "%s/instances/%s", tracefs, instance);
	if (rmdir(path) < 0 && errno != ENOENT)
		return neg_errno();
	snprintf(path, sizeof(path), "%s/dynamic_events", tracefs);
	r = kw_read_file(path, 1 << 20, &defs, NULL);
	if (r < 0)
		return r;
	for (p = strtok_r(defs, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		/* w[MAXRATE]:GROUP/NAME SPEC ... */
		if (p[0] != 'w')
			continue;
		g = strchr(p, ':');
		if (!g || strncmp(g + 1, KW_WPROBE_GROUP "/", strlen(KW_WPROBE_GROUP) + 1))
			continue;
		g += strlen(KW_WPROBE_GROUP) + 2;
		if (sscanf(g, "%63[A-Za-z0-9_]", name) != 1)
			continue;
		snprintf(line, sizeof(line), "-:%s/%s\n", KW_WPROBE_GROUP, name);
		r = append(path, line);
		if (r < 0)
			return r;
		if (removed)
			removed(name, data);
		n++;
	}
	return n;
}

/* --- a module's symbol: the kernel follows it into each load --------------- */

/* wprobe_armed (@loaded) or wprobe_waiting for @f: its module @why (was
 * loaded, is not loaded, ...); @why NULL: loaded, but without the symbol. */
static void module_state(struct kwd *d, const struct kw_file *f, bool loaded, const char *why)
{
	json_object *ev = kw_event_new(loaded ? "wprobe_armed" : "wprobe_waiting");
	char reason[KW_MODULE_MAX + KW_SYM_MAX + 160];

	if (loaded)
		snprintf(reason, sizeof(reason), "module %s %s: watching %s in it",
			 f->wprobe.module, why, f->wprobe.symbol);
	else if (why)
		snprintf(reason, sizeof(reason), "module %s %s: %s is watched when it is loaded",
			 f->wprobe.module, why, f->wprobe.symbol);
	else
		snprintf(reason, sizeof(reason), "module %s was loaded, but the kernel found no "
			 "%s in it (or it is not aligned to its length): watched in a load that "
			 "has it", f->wprobe.module, f->wprobe.symbol);
	log_info("%s: %s", f->name, reason);
	if (!ev)
		return;
	kwd_file_fields(ev, f);
	kw_event_add_str(ev, "wprobe", f->wprobe.name);
	kw_event_add_str(ev, "module", f->wprobe.module);
	kw_event_add_str(ev, "symbol", f->wprobe.symbol);
	kw_event_add_str(ev, "reason", reason);
	kwd_emit(d, ev);
}

/*
 * The kernel's state of wprobe @name (wprobe_profile's last column:
 * armed, off, waiting, disarmed:...) into @buf; "" if not found.
 */
static void profile_state(const char *tracefs, const char *name, char *buf, size_t n)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX], *line, *save = NULL, *first, *last;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/wprobe_profile", tracefs);
	if (kw_read_file(path, 1 << 20, &text, NULL) < 0)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		first = line + strspn(line, " ");
		if (strncmp(first, name, strlen(name)) || first[strlen(name)] != ' ')
			continue;
		last = strrchr(line, ' ');
		if (last)
			kw_strlcpy(buf, last + 1, n);
		return;
	}
}

void kwd_wprobes_module(struct kwd *d, const char *name, bool loaded)
{
	char state[32];
	size_t i;

	for (i = 0; i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];

		if (f->kind != KW_WPROBE || !f->wprobe.enabled || strcmp(f->wprobe.module, name))
			continue;
		/* Loaded, the kernel says whether it found the symbol in it. */
		if (loaded) {
			profile_state(d->set.tracefs, f->wprobe.name, state, sizeof(state));
			if (!strcmp(state, "waiting")) {
				module_state(d, f, false, NULL);
				continue;
			}
		}
		module_state(d, f, loaded, loaded ? "was loaded" : "was unloaded");
	}
}

void kwd_wprobes_resync(struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];

		if (f->kind == KW_WPROBE && f->wprobe.enabled && f->wprobe.module[0])
			module_state(d, f, kw_module_live(KW_SYSFS_MODULE, f->wprobe.module),
				     "is loaded or not (uevents were lost)");
	}
}

/* --- the apply steps ------------------------------------------------------ */

int wp_create(struct kwd *d, const struct kw_file *f, char *reason, size_t n)
{
	json_object *ev;
	char line[512];
	int r;

	if (!f->wprobe.enabled)
		return 0;
	if (!d->wprobes->ok)
		return -EOPNOTSUPP;
	if (f->wprobe.module[0] && !d->wprobes->module_ok) {
		snprintf(reason, n, "this kernel's wprobes take no MODULE:SYMBOL (the series' "
			 "\"tracing: Follow a wprobe's module symbol across unload and reload\")");
		return -EOPNOTSUPP;
	}
	/* Before the wprobe: a load meanwhile is heard. */
	if (f->wprobe.module[0])
		kwd_modules_follow(d);
	/* The wprobe is enabled in our instance: it must exist first. */
	r = kwd_pipe_open(d);
	if (r < 0)
		return r;
	r = wprobe_create(d->set.tracefs, d->set.instance, &f->wprobe, reason, n);
	if (r < 0)
		return r;
	kw_wprobe_line(&f->wprobe, KW_WPROBE_GROUP, line, sizeof(line));
	ev = kw_event_new("wprobe_created");
	if (ev) {
		kwd_file_fields(ev, f);
		kw_event_add_str(ev, "wprobe", f->wprobe.name);
		kw_event_add_str(ev, "definition", line);
		kwd_emit(d, ev);
	}
	if (f->wprobe.module[0] && !kw_module_live(KW_SYSFS_MODULE, f->wprobe.module))
		module_state(d, f, false, "is not loaded");
	return 0;
}

void wp_remove(struct kwd *d, const struct kw_file *f)
{
	json_object *ev;

	if (!f->wprobe.enabled || !d->wprobes->ok)
		return;
	/* A perf event with our program holds the event: let go first. */
	kwbpf_wprobe_detach(d, f->wprobe.name);
	wprobe_remove(d->set.tracefs, d->set.instance, &f->wprobe);
	ev = kw_event_new("wprobe_removed");
	if (!ev)
		return;
	kwd_file_fields(ev, f);
	kw_event_add_str(ev, "wprobe", f->wprobe.name);
	kw_event_add_str(ev, "reason", "its file changed, was disabled or went");
	kwd_emit(d, ev);
}

/* A wprobe that a killed kwatchd left in tracefs, removed at start. */
static void stale_wprobe(const char *name, void *data)
{
	struct kwd *d = data;
	json_object *ev = kw_event_new("wprobe_removed");

	log_info("removed wprobe %s/%s, left by a previous kwatchd", KW_WPROBE_GROUP, name);
	if (!ev)
		return;
	kw_event_add_str(ev, "wprobe", name);
	kw_event_add_str(ev, "reason", "left by a previous kwatchd");
	kwd_emit(d, ev);
}

void kwd_wprobe_clear_stale(struct kwd *d)
{
	int r;

	if (!d->wprobes->ok)
		return;
	r = wprobe_remove_stale(d->set.tracefs, d->set.instance, stale_wprobe, d);
	if (r < 0)
		log_warning_errno(r, "removing what a previous kwatchd left in %s: %m",
				  d->set.tracefs);
}

/* --- the hits: trace_pipe ------------------------------------------------- */

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
	struct kwd_wprobes *w = d->wprobes;
	struct kw_evtext t;
	struct wprobe_hit h;
	uint64_t ns, n;
	int cpu;

	if (!line) {
		w->pipe_too_long++;
		log_warning("trace_pipe: a line of %zu bytes or more dropped",
			    sizeof(w->pipe_lines.buf) - 1);
		lost(d, "trace_line", 1, w->pipe_too_long);
		return;
	}
	if (wprobe_parse_lost(line, &cpu, &n) == 0) {
		w->pipe_lost += n;
		log_warning("trace_pipe: %" PRIu64 " events lost on CPU %d, the trace buffer "
			    "was full", n, cpu);
		lost(d, "trace_buffer", n, w->pipe_lost);
		return;
	}
	/* One parse per line: the storm report reads like a hit. */
	if (wprobe_parse_hit(line, &h) < 0 || storm_line(d, &h))
		return;
	w->hits++;
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
	buf = wprobe_lines_room(&d->wprobes->pipe_lines, &room);
	n = read(fd, buf, room);
	if (n <= 0)
		return 0;
	wprobe_lines_feed(&d->wprobes->pipe_lines, n, hit_line, d);
	server_flush_queued(&d->srv);
	return 0;
}

int kwd_pipe_open(struct kwd *d)
{
	struct kwd_wprobes *w = d->wprobes;
	int r;

	if (w->pipe_fd >= 0)
		return 0;
	r = wprobe_instance_open(d->set.tracefs, d->set.instance, w->trace_pipe,
				 sizeof(w->trace_pipe));
	if (r < 0)
		return log_warning_errno(r, "tracefs instance %s: %m", d->set.instance);
	w->pipe_fd = open(w->trace_pipe, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (w->pipe_fd < 0)
		return log_warning_errno(neg_errno(), "%s: %m", w->trace_pipe);
	/* The hit-storm guard's reports come through the same pipe. */
	r = wprobe_storm_enable(d->set.tracefs, d->set.instance);
	if (r < 0 && r != -ENOENT)
		log_warning_errno(r, "enabling wprobe:wprobe_storm: %m, ignoring");
	r = sd_event_add_io(d->ev, &w->pipe_io, w->pipe_fd, EPOLLIN, on_pipe, d);
	if (r < 0)
		goto fail;
	return 0;
fail:
	/* Not polled, not kept: the next call tries again rather than
	 * take a descriptor nobody reads for an open pipe. */
	close(w->pipe_fd);
	w->pipe_fd = -1;
	return log_warning_errno(r, "%s: cannot poll: %m", w->trace_pipe);
}

void kwd_pipe_close(struct kwd *d)
{
	struct kwd_wprobes *w = d->wprobes;

	w->pipe_io = sd_event_source_disable_unref(w->pipe_io);
	if (w->pipe_fd >= 0)
		close(w->pipe_fd);
	w->pipe_fd = -1;
}

/* --- status --------------------------------------------------------------- */

void kwd_wprobes_status(struct kwd *d, json_object *st)
{
	json_object *wps = json_object_new_array(), *waiting = json_object_new_array();
	size_t i;

	for (i = 0; wps && waiting && i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];

		if (f->kind != KW_WPROBE || !f->wprobe.enabled)
			continue;
		json_object_array_add(wps, json_object_new_string(f->wprobe.name));
		if (f->wprobe.module[0] && !kw_module_live(KW_SYSFS_MODULE, f->wprobe.module))
			json_object_array_add(waiting, json_object_new_string(f->wprobe.name));
	}
	json_object_object_add(st, "wprobes", wps);
	/* Those on a module's symbol whose module is not loaded. */
	json_object_object_add(st, "wprobes_waiting", waiting);
	kw_event_add_bool(st, "wprobe_support", d->wprobes->ok);
}

/* --- the runtime ---------------------------------------------------------- */

struct kwd_wprobes *kwd_wprobes_new(void)
{
	struct kwd_wprobes *w = calloc(1, sizeof(*w));

	if (w)
		w->pipe_fd = -1;
	return w;
}

void kwd_wprobes_free(struct kwd_wprobes *w)
{
	if (!w)
		return;
	sd_event_source_disable_unref(w->pipe_io);
	if (w->pipe_fd >= 0)
		close(w->pipe_fd);
	free(w);
}
