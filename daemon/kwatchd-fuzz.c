// SPDX-License-Identifier: GPL-2.0
/* A fuzz source in the daemon (kwatchd-fuzz.h): one spool runtime per fuzz target
 * (recover what was in flight, then replay queued blobs as they arrive,
 * by inotify, at the configured rate), the ties of inputs to kernel
 * reports, the apply steps, the status part and the daemon's fuzz state.
 * generate = yes and guided run in kwatchd-fuzzgen.c instead. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "kwatchd-fuzz.h"
#include "kwatchd.h"
#include "kwatchd-crash.h"
#include "kwatch-loader.h"
#include "log.h"
#include "util.h"

#define FUZZ_BATCH 64
/* A batch's or a pack's blobs run at most this many, and for at most this
 * long, to a turn of the loop: the rest wait for the next turn, after the
 * clients, status requests and the watchdog that came meanwhile.  A slow
 * target (a write of milliseconds) must not hold the loop for 256 of
 * them. */
#define FUZZ_SLICE 16
#define FUZZ_SLICE_USEC 10000

/* A slice that began at @t0 and ran @i blobs has room for one more. */
static bool slice_room(unsigned int i, unsigned int slice, uint64_t t0)
{
	return i < slice && (i == 0 || kw_now_usec() - t0 < FUZZ_SLICE_USEC);
}

static void result_event(struct kwd *d, struct fuzz_rt *z, const struct spool_result *res)
{
	static const char *const type[_SPOOL_STATE_MAX] = {
		[SPOOL_DONE] = "fuzz_exec",
		[SPOOL_REJECTED] = "fuzz_rejected",
		[SPOOL_INTERRUPTED] = "fuzz_interrupted",
	};
	json_object *ev = kw_event_new(type[res->state] ? type[res->state] : "fuzz_unknown");
	char moved[PATH_MAX + NAME_MAX + 32];
	/* A pack's blobs that ran are in the pack, in done/. */
	enum spool_state st = res->packed && res->state != SPOOL_INTERRUPTED ? SPOOL_DONE :
			      res->state;

	if (!ev)
		return;
	snprintf(moved, sizeof(moved), "%s/%s/%s", z->spool.dir, spool_dir_name[st],
		 res->final_name);
	kw_event_add_str(ev, "target", z->file.fuzz.target);
	kw_event_add_str(ev, "blob", res->name);
	if (res->packed)
		kw_event_add_u64(ev, "index", res->index);
	kw_event_add_u64(ev, "size", res->size);
	kw_event_add_str(ev, "moved_to", moved);
	if (res->state == SPOOL_REJECTED) {
		kw_event_add_errno(ev, res->err);
		if (!res->why[0]) {
			kw_event_add_str(ev, "reason", strerror(-res->err));
		} else {
			/* Never written to the kernel: no blob, or not a whole one. */
			kw_event_add_str(ev, "reason", res->why);
			log_warning("fuzz %s: %s is %s; moved to %s", z->file.fuzz.target,
				    res->name, res->why, moved);
		}
		z->rejected++;
	} else if (res->state == SPOOL_INTERRUPTED) {
		/* Claimed in an earlier boot: the kernel died in its write. */
		kw_event_add_str(ev, "reason", res->prev_boot ?
				 "in flight when the kernel stopped; set aside, not replayed" :
				 "in flight when the daemon stopped; set aside, not replayed");
		if (res->prev_boot)
			kw_event_add_str(ev, "boot", "previous");
		z->interrupted++;
		log_warning("fuzz %s: blob %s was in flight at the last stop, moved to %s",
			    z->file.fuzz.target, res->name, moved);
	} else {
		kw_event_add_u64(ev, "repeat", z->spool.repeat);
		z->execs++;
	}
	kwd_emit(d, ev);
}

static void on_recover(const struct spool_result *res, void *ud)
{
	void **p = ud;
	struct kwd *d = p[0];
	struct fuzz_rt *z = p[1];
	char path[PATH_MAX * 2];

	result_event(d, z, res);
	if (res->state != SPOOL_INTERRUPTED)
		return;		/* it ran, in a batch the daemon left */
	/* At start-up (the first apply), the daemon may have died in this
	 * blob's write (a GPF or BUG in the target kills the writer): the
	 * report, read after recovery, is tied to it.  Only one such blob can
	 * be told apart.  A spool started later recovers what an earlier
	 * configuration left: no report of ours to tie. */
	if (d->applies)
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", z->spool.dir,
		 spool_dir_name[SPOOL_INTERRUPTED], res->final_name);
	if (d->fuzz->n_recovered++ == 0) {
		/* Claimed in an earlier boot: the kernel panicked in its write,
		 * and the report is in pstore, not in this boot's log. */
		kwd_tie_found(d, z->file.fuzz.target, res->final_name, path, res->prev_boot);
	} else {
		kwd_untie(d);
	}
}

static void schedule(struct fuzz_rt *z, uint64_t delay_us)
{
	sd_event_source_set_time_relative(z->timer, delay_us);
	sd_event_source_set_enabled(z->timer, SD_EVENT_ONESHOT);
}

/* The daemon could not write a blob for a reason of its own (out of
 * descriptors): the blob stays queued; said once per streak. */
static void deferred_event(struct kwd *d, struct fuzz_rt *z, const char *name, int err)
{
	json_object *ev;

	if (z->deferred++)
		return;
	log_warning_errno(err, "fuzz %s: cannot replay %s: %m; it stays queued, retrying",
			  z->file.fuzz.target, name);
	ev = kw_event_new("fuzz_deferred");
	if (!ev)
		return;
	kw_event_add_str(ev, "target", z->file.fuzz.target);
	kw_event_add_str(ev, "blob", name);
	kw_event_add_errno(ev, err);
	kw_event_add_str(ev, "reason", strerror(-err));
	kwd_emit(d, ev);
}

/* One blob: claim it, write it, then read what its run produced (the BPF
 * records of its entry and completion) while it is still the blob in
 * flight, and move it to its final place. */
static int replay_one(struct fuzz_rt *z, struct spool_result *res)
{
	struct kwd *d = z->d;
	char name[NAME_MAX + 1], path[PATH_MAX * 2];
	const char *unfit;
	size_t size = 0;
	int r, result;
	bool ours;

	r = spool_next(&z->spool, name, sizeof(name), &unfit);
	if (r < 0)
		return r;
	if (unfit) {
		r = spool_refuse(&z->spool, name, unfit, res);
		if (r < 0 && res->moved) {
			z->res = *res;
			z->unfinished = true;
		}
		return r;
	}
	r = spool_claim_blob(&z->spool, name, res);
	if (r != 0) {
		/* Made in place (found before its event was read): refused. */
		if (r < 0 && res->moved) {
			z->res = *res;
			z->unfinished = true;
		}
		return r < 0 ? r : 0;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", z->spool.dir, spool_dir_name[SPOOL_INFLIGHT],
		 name);
	kwd_tie(d, z->file.fuzz.target, name, path);
	result = spool_exec(&z->spool, name, &size, &ours);
	kwbpf_poll(d);
	crash_drain(d);
	kwd_untie(d);
	if (result < 0 && ours) {
		/* Not the blob's fault: back in the queue, retried later. */
		deferred_event(d, z, name, result);
		r = spool_unclaim(&z->spool, name);
		return r < 0 ? r : -EAGAIN;
	}
	r = spool_finish(&z->spool, name, result, res);
	res->size = size;
	if (r < 0) {
		/* It ran: keep its result until the disk lets us record it. */
		z->res = *res;
		z->unfinished = true;
	}
	return r;
}

/* --- ties: which input a kernel report (or BPF record) is of ------------------ */

static void tie_set(struct kwd_tie *t, pid_t pid, const char *target, const char *blob,
		    const char *path)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(t->target, sizeof(t->target), "%s", target);
	snprintf(t->blob, sizeof(t->blob), "%s", blob);
	snprintf(t->path, sizeof(t->path), "%s", path);
	t->pid = pid;
	t->t0_ns = (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	t->prev_boot = false;
	t->data = NULL;
	t->data_len = 0;
	t->set = true;
}

const struct kwd_tie *kwd_tie_of(struct kwd *d, long pid)
{
	const struct kwd_tie *t;

	if (d->fuzz->tie.set && (pid < 0 || !d->fuzz->tie.pid || d->fuzz->tie.pid == pid))
		return &d->fuzz->tie;
	if (pid >= 0) {
		for (t = d->fuzz->runs; t; t = t->next)
			if (t->pid == pid)
				return t;
		return NULL;
	}
	/* No task named: which of several runs made it cannot be told. */
	return !d->fuzz->tie.set && d->fuzz->runs && !d->fuzz->runs->next ? d->fuzz->runs : NULL;
}

const struct kwd_tie *kwd_tie_own(struct kwd *d)
{
	return d->fuzz->tie.set ? &d->fuzz->tie : NULL;
}

const char *kwd_tied_blob(struct kwd *d, const char **target)
{
	const struct kwd_tie *t = kwd_tie_of(d, -1);

	if (!t)
		return NULL;
	if (target)
		*target = t->target;
	return t->blob;
}

const char *kwd_tied_path(struct kwd *d)
{
	const struct kwd_tie *t = kwd_tie_of(d, -1);

	return t ? t->path : NULL;
}

void kwd_tie(struct kwd *d, const char *target, const char *blob, const char *path)
{
	tie_set(&d->fuzz->tie, getpid(), target, blob, path);
}

void kwd_tie_data(struct kwd *d, const char *target, const char *blob, const char *path,
		  const void *data, size_t len)
{
	kwd_tie(d, target, blob, path);
	d->fuzz->tie.data = data;
	d->fuzz->tie.data_len = len;
}

void kwd_tie_found(struct kwd *d, const char *target, const char *blob, const char *path,
		   bool prev_boot)
{
	/* Written by a daemon that is gone: its report names that one. */
	tie_set(&d->fuzz->tie, 0, target, blob, path);
	d->fuzz->tie.prev_boot = prev_boot;
}

bool kwd_tie_found_now(struct kwd *d)
{
	return d->fuzz->tie.set && !d->fuzz->tie.pid && !d->fuzz->tie.prev_boot;
}

void kwd_untie(struct kwd *d)
{
	d->fuzz->tie.set = false;
}

void kwd_tie_run(struct kwd *d, struct kwd_tie *t, pid_t pid, const char *target,
		 const char *blob, const char *path)
{
	bool linked = t->set;

	tie_set(t, pid, target, blob, path);
	if (!linked) {
		t->next = d->fuzz->runs;
		d->fuzz->runs = t;
	}
}

void kwd_untie_run(struct kwd *d, struct kwd_tie *t)
{
	struct kwd_tie **p;

	if (!t->set)
		return;
	for (p = &d->fuzz->runs; *p; p = &(*p)->next) {
		if (*p == t) {
			*p = t->next;
			break;
		}
	}
	t->next = NULL;
	t->set = false;
}

/* The spool cannot go on (a full or failing disk): said once a streak,
 * retried every second; a result already run is kept in memory. */
static void stall(struct fuzz_rt *z, int err)
{
	json_object *ev;

	z->stalls++;
	if (z->stalled)
		return;
	z->stalled = true;
	log_warning_errno(err, "fuzz %s: spool %s: %m; replay paused, retrying every second%s",
			  z->file.fuzz.target, z->spool.dir,
			  z->unfinished ? ", the last result kept until it can be recorded" : "");
	ev = kw_event_new("fuzz_stalled");
	if (!ev)
		return;
	kw_event_add_str(ev, "target", z->file.fuzz.target);
	kw_event_add_str(ev, "spool", z->spool.dir);
	if (z->unfinished)
		kw_event_add_str(ev, "blob", z->res.name);
	kw_event_add_errno(ev, err);
	kw_event_add_str(ev, "reason", strerror(-err));
	kwd_emit(z->d, ev);
}

static void unstall(struct fuzz_rt *z)
{
	json_object *ev;

	if (!z->stalled)
		return;
	z->stalled = false;
	log_info("fuzz %s: spool works again", z->file.fuzz.target);
	ev = kw_event_new("fuzz_resumed");
	if (!ev)
		return;
	kw_event_add_str(ev, "target", z->file.fuzz.target);
	kw_event_add_str(ev, "spool", z->spool.dir);
	kwd_emit(z->d, ev);
}

/* done/, rejected/ and interrupted/ keep the newest `keep` entries,
 * pruned back to that when the spool starts and when one may hold a
 * tenth more (a prune stats every entry: not per result). */
static void prune(struct fuzz_rt *z)
{
	static const enum spool_state kept[] = {
		SPOOL_DONE, SPOOL_REJECTED, SPOOL_INTERRUPTED,
	};
	unsigned int i, removed, left;
	int r;

	if (!z->file.fuzz.keep)
		return;
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		left = 0;
		r = spool_prune(&z->spool, kept[i], z->file.fuzz.keep, &removed, &left);
		z->pruned += removed;
		/* Unknown after a failure: looked at again on the next result. */
		z->held[kept[i]] = r < 0 ? UINT_MAX : left;
		if (r < 0)
			log_warning_errno(r, "fuzz %s: cannot prune %s/: %m", z->file.fuzz.target,
					  spool_dir_name[kept[i]]);
		else if (removed)
			log_debug("fuzz %s: %u old entries of %s/ removed (keep = %u)",
				  z->file.fuzz.target, removed, spool_dir_name[kept[i]],
				  z->file.fuzz.keep);
	}
}

/* One more entry in a state's directory: pruned when it may hold a tenth
 * more than it keeps. */
static void held_one(struct fuzz_rt *z, enum spool_state st)
{
	unsigned int keep = z->file.fuzz.keep;

	if (z->held[st] < UINT_MAX)
		z->held[st]++;
	if (keep && z->held[st] > keep + keep / 10)
		prune(z);
}

static void finished(struct fuzz_rt *z, const struct spool_result *res)
{
	result_event(z->d, z, res);
	held_one(z, res->state);
}

/* A slice of the pack in flight (claimed first if there is none): each
 * blob written in turn, its BPF records and any report read while it is
 * the blob in flight; when all have run the pack moves to done/ and each
 * blob's verdict is an event.  -ENOENT: no pack queued. */
static int run_pack(struct fuzz_rt *z, unsigned int slice)
{
	struct spool_pack *p = z->pack;
	char name[NAME_MAX + 1], path[PATH_MAX * 2], blob[NAME_MAX + 1];
	struct spool_result res;
	struct kwd *d = z->d;
	uint64_t t0 = kw_now_usec();
	unsigned int i;
	int r;

	if (!p->name[0]) {
		r = spool_pack_next(&z->spool, name, sizeof(name));
		if (r < 0)
			return r;
		r = spool_pack_claim(&z->spool, p, name, &res);
		if (r == -ENOENT)
			return 0;	/* taken back by its producer */
		if (r < 0 && res.moved) {
			/* Rejected, its .errno not written yet. */
			z->res = res;
			z->unfinished = true;
		}
		if (r > 0)
			finished(z, &res);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	snprintf(path, sizeof(path), "%s/%s/%s", z->spool.dir, spool_dir_name[SPOOL_INFLIGHT],
		 p->name);
	for (i = 0; slice_room(i, slice, t0) && p->next < p->n; i++) {
		unsigned int k = p->next;
		bool ours;

		snprintf(blob, sizeof(blob), "%.240s#%u", p->name, k);
		kwd_tie_data(d, z->file.fuzz.target, blob, path, p->data + p->off[k], p->size[k]);
		r = spool_pack_exec(&z->spool, p, &ours);
		kwbpf_poll(d);
		crash_drain(d);
		kwd_untie(d);
		if (r < 0 && ours) {
			/* Not the blob's fault: it stays next, retried later. */
			deferred_event(d, z, blob, r);
			return -EAGAIN;
		}
	}
	if (p->next < p->n)
		return 0;
	r = spool_pack_finish(&z->spool, p, &res);
	if (r < 0)
		return r;	/* what ran is kept; finished on the next try */
	for (i = 0; i < p->n; i++) {
		struct spool_result b;

		if (spool_pack_blob(p, i, &b))
			result_event(d, z, &b);
	}
	spool_pack_release(&z->spool, p);
	held_one(z, SPOOL_DONE);
	return 0;
}

/* A batch: claimed with one round of syncs, its blobs written in turn, a
 * slice to a turn of the loop (each blob's BPF records and any report read
 * while it is the blob in flight), then all moved on with one more round;
 * a batch whose moves failed is finished first.  0 with blobs left for
 * the next turn.  *unfit counts queue entries that are no blob, for
 * replay_one(). */
static int run_batch(struct fuzz_rt *z, unsigned int slice, unsigned int *unfit)
{
	struct spool_batch *b = z->batch;
	char path[PATH_MAX * 2];
	uint64_t t0 = kw_now_usec();
	struct kwd *d = z->d;
	bool put_back;
	unsigned int i;
	int r;

	*unfit = 0;
	if (!b->n) {
		r = spool_batch_claim(&z->spool, b, SPOOL_BATCH_MAX, unfit);
		if (r < 0)
			return r;
		if (!b->n)
			return -ENOENT;
		z->batch_put_back = false;
	}
	for (i = 0; !z->batch_put_back && b->ran < b->n && slice_room(i, slice, t0); i++) {
		unsigned int k = b->ran;
		bool ours;

		snprintf(path, sizeof(path), "%s/%s/%s", z->spool.dir,
			 spool_dir_name[SPOOL_INFLIGHT], b->name[k]);
		kwd_tie(d, z->file.fuzz.target, b->name[k], path);
		r = spool_batch_exec(&z->spool, b, k, &ours);
		kwbpf_poll(d);
		crash_drain(d);
		kwd_untie(d);
		if (r < 0 && ours) {
			/* Not the blob's fault: it and the rest go back to
			 * the queue, retried later. */
			deferred_event(d, z, b->name[k], r);
			z->batch_put_back = true;
		}
	}
	if (!z->batch_put_back && b->ran < b->n)
		return 0;
	r = spool_batch_finish(&z->spool, b);
	if (r < 0)
		return r;	/* what ran is kept; finished on the next try */
	for (i = 0; i < b->ran; i++)
		finished(z, &b->res[i]);
	b->n = 0;
	put_back = z->batch_put_back;
	z->batch_put_back = false;
	return put_back ? -EAGAIN : 0;
}

/* What a replay step returned: 0 (unstalled, and the next step in
 * @next_us), -ENOENT (empty: wait for inotify), -EAGAIN (put back by a
 * failure of ours: again in a second) or a spool failure (stalled). */
static void timer_result(struct fuzz_rt *z, int r, uint64_t next_us)
{
	if (r == -ENOENT) {
		unstall(z);
		return;
	}
	if (r == -EAGAIN) {
		schedule(z, 1000000);
		return;
	}
	z->deferred = 0;
	if (r < 0) {
		stall(z, r);
		schedule(z, 1000000);
		return;
	}
	unstall(z);
	schedule(z, next_us);
}

/* Loose blobs: a batch, or one at a time up to FUZZ_BATCH or the slice's
 * time (one with a rate).  0, -ENOENT (none queued) or as timer_result()
 * takes. */
static int run_loose(struct fuzz_rt *z, unsigned int slice)
{
	unsigned int i, batch = z->file.fuzz.rate ? 1 : FUZZ_BATCH;
	uint64_t t0 = kw_now_usec();
	struct spool_result res;
	int r;

	if (z->batch) {
		unsigned int unfit;

		r = run_batch(z, slice, &unfit);
		/* An entry that is no blob: refused the way one at a time
		 * refuses it (the smallest name first). */
		if ((r == 0 || r == -ENOENT) && unfit) {
			int r1 = replay_one(z, &res);

			if (r1 == 0)
				finished(z, &res);
			if (r1 != -ENOENT)
				r = r1;
		}
		return r;
	}
	for (i = 0; slice_room(i, batch, t0); i++) {
		r = replay_one(z, &res);
		if (r < 0)
			return i && r == -ENOENT ? 0 : r;
		z->deferred = 0;
		unstall(z);
		finished(z, &res);
	}
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct fuzz_rt *z = userdata;
	unsigned int slice = z->file.fuzz.rate ? 1 : FUZZ_SLICE;
	uint64_t next = z->file.fuzz.rate ? 1000000 / z->file.fuzz.rate : 0;
	int r;

	(void)s;
	(void)usec;
	if (z->unfinished) {
		r = spool_finish_again(&z->spool, &z->res);
		if (r < 0) {
			stall(z, r);
			schedule(z, 1000000);
			return 0;
		}
		z->unfinished = false;
		finished(z, &z->res);
	}
	/* Packs and loose blobs take turns: a whole pack (in slices, the
	 * loop free between them), then a whole batch (the same) or a few
	 * blobs.  A batch half-way keeps the turn: a pack's records must not
	 * come between its own. */
	if (!(z->batch && z->batch->n) && (z->pack->name[0] || z->pack_turn)) {
		z->pack_turn = false;
		r = run_pack(z, slice);
		if (r != -ENOENT) {
			timer_result(z, r, next);
			return 0;
		}
	}
	r = run_loose(z, slice);
	z->pack_turn = true;
	if (r == -ENOENT) {
		z->pack_turn = false;
		r = run_pack(z, slice);
	}
	timer_result(z, r, next);
	return 0;
}

/* A file the spool refused as written in place (set aside, if not its
 * .errno). */
static void on_refused(const struct spool_result *res, void *ud)
{
	struct fuzz_rt *z = ud;

	result_event(z->d, z, res);
}

/* A rename (or link) into the spool queues a blob; a file created there
 * is refused at once, before anything can read it half-written (and, if
 * a scan finds it first, at its claim: spool_settle() either way). */
static int on_spool_change(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct fuzz_rt *z = userdata;
	int enabled = SD_EVENT_OFF;
	int r;

	(void)s;
	(void)fd;
	(void)revents;
	r = spool_settle(&z->spool);
	if (r < 0) {
		log_warning_errno(r, "fuzz %s: cannot set aside a file written in place: %m",
				  z->file.fuzz.target);
		stall(z, r);
	}
	sd_event_source_get_enabled(z->timer, &enabled);
	if (enabled == SD_EVENT_OFF)
		schedule(z, 0);
	return 0;
}

/* A runtime whose spool holds no descriptor yet: freed at any point of
 * fuzz_start(), it closes none (not 0, a live descriptor of the daemon). */
static struct fuzz_rt *rt_new(void)
{
	struct fuzz_rt *z = calloc(1, sizeof(*z));

	if (z)
		spool_init(&z->spool);
	return z;
}

static void rt_free(struct fuzz_rt *z)
{
	sd_event_source_disable_unref(z->inotify);
	sd_event_source_disable_unref(z->timer);
	/* Stopped between the slices of a batch: what ran moves on, what did
	 * not goes back to the queue, as a finished batch's would. */
	if (z->batch && z->batch->n) {
		int r = spool_batch_finish(&z->spool, z->batch);
		unsigned int i;

		if (r < 0)
			log_warning_errno(r, "fuzz %s: a batch stopped half-way: %m; the next start recovers it",
					  z->file.fuzz.target);
		else
			for (i = 0; i < z->batch->ran; i++)
				finished(z, &z->batch->res[i]);
		z->batch->n = 0;
	}
	if (z->pack)
		spool_pack_release(&z->spool, z->pack);
	spool_close(&z->spool);
	free(z->pack);
	free(z->batch);
	free(z);
}

/*
 * The daemon consumes every file in a spool and makes directories in it:
 * one inside its own configuration, state or runtime directories (or the
 * crash directory) would eat the files kept there.
 */
static const char *spool_dir_refused(struct kwd *d, const char *dir)
{
	const char *run = getenv("RUNTIME_DIRECTORY");
	char sock_dir[PATH_MAX], *slash;

	if (kw_path_within(dir, d->confdir))
		return "the configuration directory";
	/* The default spool root is in the state directory. */
	if (d->state_dir[0] && kw_path_within(dir, d->state_dir) &&
	    !(d->set.spool_root[0] && kw_path_within(dir, d->set.spool_root) &&
	      strcmp(dir, d->set.spool_root)))
		return "the state directory";
	if (d->set.crash_dir[0] && kw_path_within(dir, d->set.crash_dir))
		return "the crash directory";
	if (run && *run && kw_path_within(dir, run))
		return "the runtime directory";
	snprintf(sock_dir, sizeof(sock_dir), "%s", d->set.socket_path);
	slash = strrchr(sock_dir, '/');
	if (slash && slash != sock_dir) {
		*slash = '\0';
		if (kw_path_within(dir, sock_dir))
			return "the socket's directory";
	}
	return NULL;
}

int fuzz_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n)
{
	char dir[PATH_MAX], input[PATH_MAX], why[160];
	struct fuzz_rt *z, **tmp;
	gid_t group = (gid_t)-1;
	const char *inside;
	char *pmsg = NULL;
	void *ud[2];
	int r;

	if (!f->fuzz.enabled)
		return 0;
	if (f->fuzz.generate)
		return fuzzgen_start(d, f, reason, n);
	if (f->fuzz.spool[0])
		snprintf(dir, sizeof(dir), "%s", f->fuzz.spool);
	else
		snprintf(dir, sizeof(dir), "%.2000s/%s", d->set.spool_root, f->fuzz.target);
	inside = spool_dir_refused(d, dir);
	if (inside) {
		snprintf(reason, n, "spool %s is inside %s", dir, inside);
		return -EINVAL;
	}
	z = rt_new();
	if (!z)
		return -ENOMEM;
	z->d = d;
	z->file = *f;
	snprintf(input, sizeof(input), "%.2000s/%s/%s", d->set.kfuzztest, f->fuzz.target,
		 f->fuzz.simple ? "input_simple" : "input");
	if (f->fuzz.producer_group[0]) {
		struct group *g = getgrnam(f->fuzz.producer_group);

		if (!g) {
			snprintf(reason, n, "producer_group %s: no such group", f->fuzz.producer_group);
			r = -ENOENT;
			goto fail;
		}
		group = g->gr_gid;
	}
	r = spool_open_group(&z->spool, dir, input, f->fuzz.repeat, group, why, sizeof(why));
	if (r < 0) {
		snprintf(reason, n, "spool %s: %s", dir, why[0] ? why : strerror(-r));
		goto fail;
	}
	ud[0] = d;
	ud[1] = z;
	/* At start-up, pmsg says which blob of a batch a kernel crash
	 * stopped in. */
	if (!d->applies && d->set.pmsg[0])
		pmsg = spool_pmsg_read(d->set.pstore);
	r = spool_recover_pmsg(&z->spool, d->ectx.boot_id, pmsg, on_recover, ud);
	free(pmsg);
	if (r < 0)
		goto fail;
	if (d->set.pmsg[0] && !f->fuzz.rate) {
		z->batch = calloc(1, sizeof(*z->batch));
		r = z->batch ? spool_batch_enable(&z->spool, d->set.pmsg) : -ENOMEM;
		if (r < 0) {
			log_full_errno(LOG_INFO, r, "fuzz %s: %s: %m; a blob at a time, each with its own syncs",
				       f->fuzz.target, d->set.pmsg);
			free(z->batch);
			z->batch = NULL;
		}
	}
	/* A pack recovery left in inflight/ goes on first. */
	z->pack = calloc(1, sizeof(*z->pack));
	if (!z->pack) {
		r = -ENOMEM;
		goto fail;
	}
	z->pack->fd = -1;
	r = spool_pack_resume(&z->spool, z->pack);
	if (r < 0)
		log_warning_errno(r, "fuzz %s: cannot go on with the pack in %s/inflight: %m",
				  f->fuzz.target, dir);
	prune(z);
	r = sd_event_add_time_relative(d->ev, &z->timer, CLOCK_MONOTONIC, 0, 1000, on_timer, z);
	if (r < 0)
		goto fail;
	z->spool.on_refused = on_refused;
	z->spool.refused_ud = z;
	r = sd_event_add_io(d->ev, &z->inotify, z->spool.ino_fd, EPOLLIN, on_spool_change, z);
	if (r < 0)
		goto fail;
	tmp = realloc(d->fuzz->fuzz, (d->fuzz->n_fuzz + 1) * sizeof(*tmp));
	if (!tmp) {
		r = -ENOMEM;
		goto fail;
	}
	d->fuzz->fuzz = tmp;
	d->fuzz->fuzz[d->fuzz->n_fuzz++] = z;
	return 0;
fail:
	rt_free(z);
	return r;
}

bool fuzz_stop(struct kwd *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->fuzz->n_fuzz; i++) {
		if (strcmp(d->fuzz->fuzz[i]->file.name, name) != 0)
			continue;
		rt_free(d->fuzz->fuzz[i]);
		d->fuzz->fuzz[i] = d->fuzz->fuzz[--d->fuzz->n_fuzz];
		return true;
	}
	return fuzzgen_stop(d, name);
}

void fuzz_stop_all(struct kwd *d)
{
	while (d->fuzz->n_fuzz)
		fuzz_stop(d, d->fuzz->fuzz[0]->file.name);
	free(d->fuzz->fuzz);
	d->fuzz->fuzz = NULL;
	fuzzgen_stop_all(d);
}

/* --- the apply steps ------------------------------------------------------- */

static void fuzz_event(struct kwd *d, const char *type, const struct kw_file *f)
{
	json_object *ev = kw_event_new(type);

	if (!ev)
		return;
	kwd_file_fields(ev, f);
	kw_event_add_str(ev, "target", f->fuzz.target);
	kwd_emit(d, ev);
}

int fuzz_apply_start(struct kwd *d, const struct kw_file *f, char *reason, size_t n,
		     const char **what)
{
	int r = fuzz_start(d, f, reason, n);

	if (r != 0) {
		*what = f->fuzz.generate ? "starting the generator" : "starting the spool";
		return r;
	}
	if (f->fuzz.enabled)
		fuzz_event(d, "fuzz_started", f);
	return 0;
}

void fuzz_apply_stop(struct kwd *d, const struct kw_file *f)
{
	if (fuzz_stop(d, f->name))
		fuzz_event(d, "fuzz_stopped", f);
}

/* --- status ------------------------------------------------------------------ */

/* A spool directory's count; one that cannot be read (spool_count()'s
 * -errno) counts no file, not a negative number of them. */
static void add_count(json_object *o, const char *key, struct spool *s, enum spool_state st)
{
	long n = spool_count(s, st);

	kw_event_add_int(o, key, n < 0 ? 0 : n);
}

void fuzz_status(struct kwd *d, json_object *st)
{
	json_object *spools = json_object_new_array(), *gens, *o;
	size_t i;

	for (i = 0; i < d->fuzz->n_fuzz; i++) {
		struct fuzz_rt *z = d->fuzz->fuzz[i];

		o = json_object_new_object();
		kw_event_add_str(o, "target", z->file.fuzz.target);
		kw_event_add_str(o, "spool", z->spool.dir);
		add_count(o, "queued", &z->spool, SPOOL_QUEUED);
		add_count(o, "done", &z->spool, SPOOL_DONE);
		add_count(o, "rejected", &z->spool, SPOOL_REJECTED);
		add_count(o, "interrupted", &z->spool, SPOOL_INTERRUPTED);
		kw_event_add_u64(o, "execs", z->execs);
		kw_event_add_bool(o, "stalled", z->stalled);
		kw_event_add_u64(o, "pruned", z->pruned);
		kw_event_add_u64(o, "keep", z->file.fuzz.keep);
		kw_event_add_u64(o, "batch", z->batch ? SPOOL_BATCH_MAX : 1);
		json_object_array_add(spools, o);
	}
	json_object_object_add(st, "spools", spools);
	gens = json_object_new_array();
	if (gens) {
		fuzzgen_status(d, gens);
		json_object_object_add(st, "generators", gens);
	}
}

/* --- the daemon's fuzz state ---------------------------------------------- */

struct kwd_fuzz *kwd_fuzz_new(void)
{
	return calloc(1, sizeof(struct kwd_fuzz));
}

void kwd_fuzz_free(struct kwd_fuzz *zf)
{
	if (!zf)
		return;
	free(zf->fuzz);
	free(zf->gen);
	free(zf);
}
