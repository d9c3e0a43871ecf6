// SPDX-License-Identifier: GPL-2.0
/* Crash capture: /dev/kmsg read in the event loop (and drained right after
 * each fuzz blob's write), split into whole reports by kmsg.c, one "crash"
 * event per distinct report; a report seen again (same kind and top
 * frames) is a "crash_repeat" with its count.  A report read while a blob
 * is in flight is tied to it: the blob is copied to
 * <crash_dir>/<target>/<blob>, the report beside it as <blob>.report.
 *
 * The position in the log is kept in <state>/kmsg.pos with the boot id,
 * so that a restarted daemon goes on where it stopped in the same boot
 * instead of reporting again (or missing) what the kernel logged. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kwatchd-crash.h"
#include "fuzzpanic.h"
#include "keep.h"
#include "kmsg.h"
#include "ksym.h"
#include "kwatchd-triage.h"
#include "kwatchd.h"
#include "log.h"
#include "pstore.h"
#include "spool.h"
#include "util.h"

#define KMSG_REC_MAX 8192

#define POS_SAVE_USEC 5000000ULL
/* /dev/kmsg records read at one wakeup. */
#define CRASH_DRAIN_MAX 4096

struct crash_rt {
	struct kwd *d;
	int fd;
	sd_event_source *io;
	struct kmsg_parser parser;
	struct kmsg_dedup dedup;
	uint64_t last_seq, skip_to;
	bool have_seq;
	char pos_path[PATH_MAX];
	char prev_boot[40];		/* the boot kmsg.pos was saved in, if not this one */
	sd_event_source *pos_timer;	/* a deferred save of the position */
	bool pos_dirty, pos_failing;
	uint64_t reports, repeats, tied, overruns, pstore;
};

/* Where a report was read, when not from this boot's /dev/kmsg: a panic
 * record of the previous boot in pstore, kept whole beside its blob. */
struct crash_origin {
	const struct pstore_record *rec;
	const char *panic;		/* the panic's first line */
};

/* --- frames ----------------------------------------------------------------- */

/* A frame printed at its symbol's end is a return trampoline standing in
 * for the real caller when the symbol after it is one: kallsyms says (the
 * daemon's table, shared with the BPF stacks).  Without it, it is kept. */
static bool trampoline_after(const char *sym, void *ud)
{
	struct crash_rt *c = ud;
	struct kwd *d = c->d;
	uint64_t now = kw_now_usec();
	const char *next = NULL;
	const struct ksym *k;
	bool warn;

	k = ksym_cache_get(&d->syms, d->set.kallsyms, now, false, &warn);
	if (k)
		next = ksym_after(k, sym);
	if (!next) {
		/* Not known: a module loaded since the table was read. */
		k = ksym_cache_get(&d->syms, d->set.kallsyms, now, true, &warn);
		if (k)
			next = ksym_after(k, sym);
	}
	if (warn)
		log_warning("no symbols from %s: frames at a symbol's end are kept",
			    d->set.kallsyms);
	return next && ksym_is_return_trampoline(next);
}

/* --- position ------------------------------------------------------------- */

static void pos_save(struct crash_rt *c)
{
	char buf[96];
	int n, r;

	c->pos_dirty = false;
	if (!c->have_seq || !c->pos_path[0])
		return;
	n = snprintf(buf, sizeof(buf), "%s %" PRIu64 "\n", c->d->ectx.boot_id, c->last_seq);
	r = kw_replace_file(c->pos_path, buf, n);
	kwd_state_saved(c->d, &c->pos_failing, c->pos_path, r);
}

static int on_pos_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct crash_rt *c = userdata;

	(void)s;
	(void)usec;
	if (c->pos_dirty && !c->parser.open)
		pos_save(c);
	return 0;
}

/*
 * Read up to here.  After a report the position is saved at once (a
 * restart must not report it again); lines that made no report cost two
 * fsyncs at most every POS_SAVE_USEC (a restart reads them again, and
 * finds nothing in them).
 */
static void pos_mark(struct crash_rt *c, bool reported)
{
	int on = SD_EVENT_OFF;

	c->pos_dirty = true;
	if (reported || !c->pos_timer) {
		pos_save(c);
		return;
	}
	sd_event_source_get_enabled(c->pos_timer, &on);
	if (on != SD_EVENT_OFF)
		return;
	sd_event_source_set_time_relative(c->pos_timer, POS_SAVE_USEC);
	sd_event_source_set_enabled(c->pos_timer, SD_EVENT_ONESHOT);
}

static void pos_load(struct crash_rt *c)
{
	_cleanup_free_ char *text = NULL;
	char boot[40];
	uint64_t seq;

	if (kw_read_file(c->pos_path, 128, &text, NULL) < 0)
		return;
	if (sscanf(text, "%39s %" SCNu64, boot, &seq) != 2)
		return;
	if (strcmp(boot, c->d->ectx.boot_id) == 0)
		c->skip_to = seq + 1;
	else
		snprintf(c->prev_boot, sizeof(c->prev_boot), "%s", boot);
}

void crash_pos_sync(struct kwd *d)
{
	if (d->crash)
		pos_save(d->crash);
}

/* --- reports -------------------------------------------------------------- */

static int copy_file(const char *from, int dfd, const char *to)
{
	_cleanup_free_ char *data = NULL;
	size_t len = 0;
	int r;

	r = kw_read_file(from, KW_BLOB_MAX, &data, &len);
	if (r < 0)
		return r;
	return kw_write_file_at(dfd, to, data, len);
}

/* <crash_dir>/<target>, opened without following links: the crash
 * directory must be the daemon's own (kw_check_dir_owner). */
static int open_crash_dir(struct kwd *d, const char *target, char *dir, size_t n)
{
	_cleanup_close_ int top = -1;
	char why[160];
	int fd, r;

	snprintf(dir, n, "%.2000s/%s", d->set.crash_dir, target);
	r = kw_mkdir_p(d->set.crash_dir, 0700);
	if (r < 0)
		return r;
	top = open(d->set.crash_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (top < 0)
		return neg_errno();
	r = kw_check_dir_owner(top, (gid_t)-1, why, sizeof(why));
	if (r < 0) {
		log_warning("%s: %s; not keeping crashes there", d->set.crash_dir, why);
		return r;
	}
	if (mkdirat(top, target, 0700) < 0 && errno != EEXIST)
		return neg_errno();
	fd = openat(top, target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return neg_errno();
	r = kw_check_dir_owner(fd, (gid_t)-1, why, sizeof(why));
	if (r < 0) {
		log_warning("%s: %s; not keeping crashes there", dir, why);
		close(fd);
		return r;
	}
	return fd;
}

/* Keep the blob and the report in <crash_dir>/<target>/. */
static int keep_crash(struct crash_rt *c, const char *text, size_t len,
		      const struct kwd_tie *t, char *dir, size_t n)
{
	const char *blob = t->blob;
	struct kwd *d = c->d;
	_cleanup_close_ int dfd = -1;
	char to[NAME_MAX + 1];
	unsigned int i;
	int ret;

	dfd = open_crash_dir(d, t->target, dir, n);
	if (dfd < 0)
		return dfd;
	if (faccessat(dfd, blob, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		/* A pack's blob is in memory; any other, a file of its own. */
		if (t->data)
			ret = kw_write_file_at(dfd, blob, t->data, t->data_len);
		else
			ret = copy_file(t->path, dfd, blob);
		if (ret < 0)
			return ret;
	}
	/* One run can make several distinct reports: <blob>.report, then
	 * <blob>.2.report, ... */
	for (i = 1; i < 100; i++) {
		if (i == 1)
			snprintf(to, sizeof(to), "%.240s.report", blob);
		else
			snprintf(to, sizeof(to), "%.240s.%u.report", blob, i);
		if (faccessat(dfd, to, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
			break;
	}
	ret = kw_write_file_at(dfd, to, text, len);
	if (ret < 0)
		return ret;
	ret = kw_fsync_dirfd(dfd);
	if (ret == 0 && d->set.keep_crashes) {
		unsigned int removed;
		int r = kw_keep_newest_blobs(dfd, d->set.keep_crashes, &removed);

		if (r < 0)
			log_warning_errno(r, "%s: cannot remove old crashes: %m", dir);
		else if (removed)
			log_info("%s: %u old crashes removed (keep_crashes = %u)", dir, removed,
				 d->set.keep_crashes);
	}
	return ret;
}

static void add_frames(json_object *ev, const struct kmsg_report *r)
{
	json_object *arr = json_object_new_array();
	unsigned int i;

	if (!arr)
		return;
	for (i = 0; i < r->nframes; i++)
		json_object_array_add(arr, json_object_new_string(r->frames[i]));
	json_object_object_add(ev, "frames", arr);
}

static void report_event(struct crash_rt *c, const struct kmsg_report *r,
			 const struct crash_origin *o)
{
	struct kwd *d = c->d;
	const char *target = NULL, *blob = NULL;
	const struct kwd_tie *t;
	char dir[PATH_MAX], addr[24];
	int count = kmsg_dedup_seen(&c->dedup, r->key);
	json_object *ev;
	int ret;

	/* A previous boot's report goes to what start-up found in flight
	 * then, never to a run started in this boot; one of this boot to the
	 * input its task was writing. */
	t = o ? kwd_tie_own(d) : kwd_tie_of(d, fuzz_panic_pid(r->text));
	if (t) {
		target = t->target;
		blob = t->blob;
	}
	c->reports++;
	c->tied += blob != NULL;
	if (count > 1) {
		c->repeats++;
		ev = kw_event_new("crash_repeat");
		if (!ev)
			return;
		kw_event_add_str(ev, "kind", r->kind_name);
		kw_event_add_str(ev, "function", r->function);
		kw_event_add_str(ev, "key", r->key);
		kw_event_add_int(ev, "count", count);
		if (blob) {
			kw_event_add_str(ev, "target", target);
			kw_event_add_str(ev, "blob", blob);
		}
		kwd_emit(d, ev);
		return;
	}
	ev = kw_event_new("crash");
	if (!ev)
		return;
	kw_event_add_str(ev, "kind", r->kind_name);
	kw_event_add_str(ev, "title", r->title);
	kw_event_add_str(ev, "function", r->function);
	kw_event_add_str(ev, "location", r->location);
	if (r->module[0])
		kw_event_add_str(ev, "module", r->module);
	if (r->watched[0])
		kw_event_add_str(ev, "watched", r->watched);
	kwd_watch_fields(d, ev, r->watch_line);
	kw_event_add_str(ev, "access", kmsg_access_name[r->access]);
	if (r->size)
		kw_event_add_u64(ev, "access_size", r->size);
	if (r->has_address) {
		snprintf(addr, sizeof(addr), "0x%" PRIx64, r->address);
		kw_event_add_str(ev, "address", addr);
	}
	add_frames(ev, r);
	kw_event_add_str(ev, "key", r->key);
	kw_event_add_int(ev, "count", count > 0 ? count : 1);
	kw_event_add_u64(ev, "kernel_ns", r->ts_usec * 1000);
	kw_event_add_bool(ev, "complete", r->complete);
	kw_event_add_str(ev, "report_source", o ? "pstore" : "kmsg");
	if (o) {
		kw_event_add_str(ev, "boot", "previous");
		kw_event_add_str(ev, "record", o->rec->path);
		if (o->panic)
			kw_event_add_str(ev, "panic", o->panic);
	}
	if (blob) {
		kw_event_add_str(ev, "target", target);
		kw_event_add_str(ev, "blob", blob);
		/* From pstore, the whole record: what led to the panic too. */
		ret = keep_crash(c, o ? o->rec->text : r->text, o ? o->rec->len : r->text_len,
				 t, dir, sizeof(dir));
		if (ret < 0)
			log_error_errno(ret, "cannot keep blob %s of %s in %s: %m", blob, target, dir);
		else
			kw_event_add_str(ev, "crash_dir", dir);
	}
	kw_event_add_str(ev, "text", r->text);
	log_warning("crash%s: %s in %s%s%s", o ? " in the previous boot" : "", r->kind_name,
		    r->function[0] ? r->function : "?", blob ? ", blob " : "", blob ? blob : "");
	kwd_emit(d, ev);
	kwd_triage_report(d, r->title, r->text, o ? o->panic : NULL, o != NULL);
}

static int on_report(const struct kmsg_report *r, void *userdata)
{
	report_event(userdata, r, NULL);
	return 0;
}

/* --- the previous boot's panic ---------------------------------------------- */

/* The panic records of one scan, kept until it ends. */
struct panics {
	struct pstore_record *v;
	size_t n;
};

static int on_record(const struct pstore_record *rec, void *userdata)
{
	struct panics *p = userdata;
	struct pstore_record *v, *mine;

	/* An oops that did not panic was read live from /dev/kmsg. */
	if (strcmp(rec->reason, "Panic") != 0 || rec->part != 1) {
		log_debug("pstore: %s (%s part %u) is not a panic's last part, skipped",
			  rec->path, rec->reason[0] ? rec->reason : "no header", rec->part);
		return 0;
	}
	v = realloc(p->v, (p->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->v = v;
	mine = &v[p->n];
	*mine = *rec;
	mine->path = strdup(rec->path);
	mine->text = strndup(rec->text, rec->len);
	if (!mine->path || !mine->text) {
		free((char *)mine->path);
		free((char *)mine->text);
		return -ENOMEM;
	}
	p->n++;
	return 0;
}

/*
 * The input a generated or guided run had in flight at the panic, from
 * the previous boot's pmsg (fuzzpanic.h): the last line of the task the
 * report names.  Written to @path and tied; false if there is none.
 */
static bool tie_pmsg_input(struct crash_rt *c, const struct kmsg_report *r, char *path,
			   size_t n)
{
	struct kwd *d = c->d;
	struct fuzz_panic_input in;
	_cleanup_free_ char *pmsg = NULL;
	long pid = fuzz_panic_pid(r->text);
	int ret;

	if (pid < 0 || !c->prev_boot[0] || !d->set.pmsg[0] || !d->state_dir[0])
		return false;
	pmsg = spool_pmsg_read(d->set.pstore);
	ret = fuzz_panic_find(pmsg, c->prev_boot, pid, &in);
	if (ret == -E2BIG)
		log_warning("pstore: the panic came in input %llu of fuzz run %s of %s, which was "
			    "too large for pmsg: not kept", in.seq, in.name, in.target);
	if (ret < 0)
		return false;
	snprintf(path, n, "%.4000s/panic-input", d->state_dir);
	ret = kw_replace_file(path, (const char *)in.data, in.len);
	free(in.data);
	if (ret < 0) {
		log_warning_errno(ret, "%s: %m; the input in flight at the panic is not kept", path);
		return false;
	}
	/* A harness run without a kept file names no run: "-". */
	if (strcmp(in.name, "-") == 0)
		snprintf(in.name, sizeof(in.name), "pmsg-input-%llu", in.seq);
	log_info("pstore: the panic came in input %llu of fuzz run %s of %s (pmsg)", in.seq,
		 in.name, in.target);
	kwd_tie_found(d, in.target, in.name, path, true);
	return true;
}

static void panic_event(struct crash_rt *c, const struct pstore_record *rec, bool alone)
{
	_cleanup_free_ struct kmsg_report *cause = NULL, *panic = NULL;
	struct crash_origin o = { .rec = rec };
	const struct kmsg_report *r;
	char path[PATH_MAX];
	bool ours = false;

	if (pstore_reports(rec->text, &cause, &panic) < 0 || (!cause && !panic)) {
		log_warning("pstore: no report in %s", rec->path);
		return;
	}
	c->pstore++;
	o.panic = panic ? panic->title : NULL;
	r = cause ? cause : panic;
	/* No spool blob in flight: perhaps a generated input was. */
	if (alone && !kwd_tie_own(c->d))
		ours = tie_pmsg_input(c, r, path, sizeof(path));
	report_event(c, r, &o);
	if (ours) {
		kwd_untie(c->d);
		unlink(path);
	}
}

void crash_pstore(struct kwd *d)
{
	struct crash_rt *c = d->crash;
	struct panics p = { .n = 0 };
	char seen[PATH_MAX];
	size_t i;
	int r;

	if (!c || !d->set.pstore[0] || !d->state_dir[0])
		return;
	snprintf(seen, sizeof(seen), "%.4000s/pstore.seen", d->state_dir);
	r = pstore_scan(d->set.pstore, seen, on_record, &p);
	if (r < 0)
		log_warning_errno(r, "pstore: %m");
	/* Which of several panics the blob made cannot be told. */
	if (p.n > 1 && kwd_tie_own(d)) {
		log_warning("pstore: %zu new panic records, none tied to blob %s", p.n,
			    kwd_tie_own(d)->blob);
		kwd_untie(d);
	}
	for (i = 0; i < p.n; i++) {
		panic_event(c, &p.v[i], p.n == 1);
		free((char *)p.v[i].path);
		free((char *)p.v[i].text);
	}
	free(p.v);
	if (p.n)
		log_info("pstore: %zu panic record(s) of an earlier boot read", p.n);
}

/* --- reading ---------------------------------------------------------------- */

/* Records were overwritten before we read them: say so, and end the open
 * report there rather than glue lines from both sides of the gap. */
static void kmsg_gap(struct crash_rt *c, uint64_t n)
{
	json_object *ev;

	c->overruns += n;
	kmsg_flush(&c->parser, on_report, c);
	ev = kw_event_lost("kmsg", n, c->overruns, 0, 0, -1);
	if (ev)
		kwd_emit(c->d, ev);
}

bool crash_drain(struct kwd *d)
{
	struct crash_rt *c = d->crash;
	char rec[KMSG_REC_MAX + 1];
	uint64_t reports;
	bool got = false;
	unsigned int i;

	if (!c)
		return false;
	reports = c->reports;
	/* Bounded: a log flood must not hold the loop; /dev/kmsg stays
	 * readable and the rest is read in the next iteration. */
	for (i = 0; i < CRASH_DRAIN_MAX; i++) {
		uint64_t ts, seq;
		const char *msg;
		ssize_t n = read(c->fd, rec, KMSG_REC_MAX);

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before we read it: the seq jumps */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = kmsg_strip(rec, &ts, &seq);
		if (seq != KMSG_SEQ_NONE) {
			/* The seq we read next; 0 at a boot's first start: any. */
			uint64_t expect = c->have_seq ? c->last_seq + 1 : c->skip_to;

			if (seq < c->skip_to)
				continue;
			if (expect && seq > expect)
				kmsg_gap(c, seq - expect);	/* overwritten, maybe while we were away */
			c->last_seq = seq;
			c->have_seq = got = true;
		}
		if (msg)
			kmsg_feed(&c->parser, msg, ts, on_report, c);
	}
	if (got && !c->parser.open)
		pos_mark(c, c->reports != reports);
	return i == CRASH_DRAIN_MAX;
}

void crash_drain_all(struct kwd *d)
{
	while (crash_drain(d))
		;
}

static int on_kmsg(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	(void)s;
	(void)fd;
	(void)revents;
	crash_drain(userdata);
	return 0;
}

int crash_open(struct kwd *d)
{
	struct crash_rt *c;
	int r;

	if (!d->set.kmsg)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	/* From here on, crash_close() undoes whatever was done. */
	c->d = d;
	d->crash = c;
	c->fd = open(d->set.kmsg_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (c->fd < 0) {
		r = log_error_errno(neg_errno(), "crash capture: cannot open %s: %m",
				    d->set.kmsg_path);
		goto fail;
	}
	r = kmsg_parser_init(&c->parser);
	if (r < 0)
		goto fail;
	c->parser.at_end_is_trampoline = trampoline_after;
	c->parser.at_end_ud = c;
	kmsg_dedup_init(&c->dedup);
	if (d->state_dir[0])
		snprintf(c->pos_path, sizeof(c->pos_path), "%.4000s/kmsg.pos", d->state_dir);
	pos_load(c);
	r = sd_event_add_io(d->ev, &c->io, c->fd, EPOLLIN, on_kmsg, d);
	if (r < 0)
		goto fail;
	r = sd_event_add_time_relative(d->ev, &c->pos_timer, CLOCK_MONOTONIC, POS_SAVE_USEC, 0,
				       on_pos_timer, c);
	if (r < 0)
		goto fail;
	sd_event_source_set_enabled(c->pos_timer, SD_EVENT_OFF);
	log_info("crash capture: reading %s from seq %" PRIu64, d->set.kmsg_path, c->skip_to);
	return 0;
fail:
	crash_close(d);
	return r;
}

void crash_close(struct kwd *d)
{
	struct crash_rt *c = d->crash;

	if (!c)
		return;
	/* A report still open is read again, whole, by the next start. */
	if (!c->parser.open && c->pos_dirty)
		pos_save(c);
	sd_event_source_disable_unref(c->pos_timer);
	sd_event_source_disable_unref(c->io);
	if (c->fd >= 0)
		close(c->fd);
	kmsg_parser_free(&c->parser);
	kmsg_dedup_free(&c->dedup);
	free(c);
	d->crash = NULL;
}

void crash_status(struct kwd *d, json_object *st)
{
	struct crash_rt *c = d->crash;
	json_object *o;

	o = json_object_new_object();
	if (!o)
		return;
	kw_event_add_bool(o, "enabled", c != NULL);
	json_object_object_add(st, "crashes", o);
	if (!c)
		return;
	kw_event_add_u64(o, "reports", c->reports);
	kw_event_add_u64(o, "distinct", c->reports - c->repeats);
	kw_event_add_u64(o, "repeats", c->repeats);
	kw_event_add_u64(o, "tied_to_blobs", c->tied);
	kw_event_add_u64(o, "kmsg_overruns", c->overruns);
	kw_event_add_u64(o, "previous_boot_panics", c->pstore);
	kw_event_add_u64(o, "kmsg_seq", c->last_seq);
}
