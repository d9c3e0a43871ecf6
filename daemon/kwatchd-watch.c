// SPDX-License-Identifier: GPL-2.0
/* A watch (watch.d/, KStackWatch) in the daemon: the watches
 * /proc/kstackwatch holds (struct kwd_watches), arming and disarming them
 * for kwatchd-reconcile.c's execute(), the retry while a reader holds the file,
 * the watches in the status reply and in catch and crash events.  The
 * [watch] keys, the line and the file's I/O are ksw.c's (pure: the host
 * tests link them without a daemon). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksw.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "kwatch-loader.h"
#include "kwatchd-watch.h"
#include "kwatchd-triage.h"
#include "kwatchd-module.h"

struct kwd_watches *kwd_watches_new(void)
{
	return calloc(1, sizeof(struct kwd_watches));
}

void kwd_watches_free(struct kwd_watches *w)
{
	if (!w)
		return;
	sd_event_source_disable_unref(w->ksw_retry);
	ksw_vars_free(&w->ksw_vars);
	free(w);
}

unsigned int kwd_watches_max(struct kwd *d)
{
	if (!d->watches->n_armed)
		d->watches->max_watches = ksw_max_watches(d->set.kstackwatch,
							  KSW_MAX_WATCHES_PARAM);
	return d->watches->max_watches;
}

#define KSW_RETRY_USEC 200000

/* The watch armed from file @f, or NULL; one whose disarm waits for a
 * reader is no longer the file's. */
struct kwd_armed *kwd_watch_armed_of(struct kwd *d, const struct kw_file *f)
{
	size_t i;

	for (i = 0; i < d->watches->n_armed; i++)
		if (!d->watches->armed[i].disarming &&
		    strcmp(d->watches->armed[i].path, f->path) == 0)
			return &d->watches->armed[i];
	return NULL;
}

static bool disarms_waiting(const struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->watches->n_armed; i++)
		if (d->watches->armed[i].disarming)
			return true;
	return false;
}

/* The watch @a is no longer in the kernel: say so, and forget it. */
static void watch_gone(struct kwd *d, struct kwd_armed *a)
{
	json_object *ev = kw_event_new("watch_disarmed");
	size_t i = a - d->watches->armed;

	if (ev) {
		kw_event_add_str(ev, "file_kind", kw_kind_name[KW_WATCH]);
		kw_event_add_str(ev, "file", a->path);
		kw_event_add_str(ev, "definition", a->line);
		kwd_emit(d, ev);
	}
	log_info("watch disarmed (%s)", kwd_armed_name(a));
	memmove(a, a + 1, (d->watches->n_armed - i - 1) * sizeof(*a));
	d->watches->n_armed--;
}

/* Take @a's watch out of the kernel: the one line where the kernel has
 * several, else the whole file. */
static int unarm(struct kwd *d, const struct kwd_armed *a)
{
	if (d->watches->max_watches > 1)
		return ksw_remove(d->set.kstackwatch, a->line);
	return ksw_disarm(d->set.kstackwatch);
}

/* Disarms a reader held up; -EBUSY if one still waits. */
static int finish_disarms(struct kwd *d)
{
	size_t i = 0;
	int r;

	while (i < d->watches->n_armed) {
		if (!d->watches->armed[i].disarming) {
			i++;
			continue;
		}
		r = unarm(d, &d->watches->armed[i]);
		if (r == -EBUSY)
			return r;
		if (r < 0) {
			log_warning_errno(r, "disarming %s: %m, giving up", d->set.kstackwatch);
			d->watches->armed[i].disarming = false;
			i++;
			continue;
		}
		watch_gone(d, &d->watches->armed[i]);
	}
	return 0;
}

/* A reader let go of /proc/kstackwatch: finish what it held up. */
static int on_ksw_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	struct kwd *d = userdata;

	(void)usec;
	if (finish_disarms(d) == -EBUSY) {
		sd_event_source_set_time_relative(s, KSW_RETRY_USEC);
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	if (d->watches->ksw_reload_wanted) {
		d->watches->ksw_reload_wanted = false;
		kwd_reload(d, "retry");
	}
	return 0;
}

static void ksw_retry_later(struct kwd *d, uint64_t usec)
{
	if (!d->watches->ksw_retry &&
	    sd_event_add_time_relative(d->ev, &d->watches->ksw_retry, CLOCK_MONOTONIC, usec, 0,
				       on_ksw_retry, d) < 0)
		return;
	sd_event_source_set_time_relative(d->watches->ksw_retry, usec);
	sd_event_source_set_enabled(d->watches->ksw_retry, SD_EVENT_ONESHOT);
}

/* Take @a's watch out of the kernel; a reader holding the file (EBUSY)
 * leaves it to the retry timer. */
static void take_out(struct kwd *d, struct kwd_armed *a)
{
	int r = unarm(d, a);

	if (r == -EBUSY) {
		/* Still armed in the kernel: say so, and finish it later. */
		log_warning("disarming %s: %s is held open by a reader; retrying every %d ms",
			    kwd_armed_name(a), d->set.kstackwatch, KSW_RETRY_USEC / 1000);
		a->disarming = true;
		ksw_retry_later(d, KSW_RETRY_USEC);
		return;
	}
	/* -ENOENT: the kernel has removed it already (its module went). */
	if (r < 0 && r != -ENOENT)
		log_warning_errno(r, "disarming %s: %m, ignoring", d->set.kstackwatch);
	watch_gone(d, a);
}

void kwd_watch_disarm(struct kwd *d, const struct kw_file *f)
{
	struct kwd_armed *a = kwd_watch_armed_of(d, f);

	if (a)
		take_out(d, a);
}

/* --- a module's functions: armed while the module is loaded --------------- */

/* @w's function is module @name's (resolved, or as its keys say). */
static bool of_module(const struct kw_watch *w, const char *name)
{
	char m[KW_MODULE_MAX + 1];

	if (w->in_module[0])
		return strcmp(w->in_module, name) == 0;
	if (w->module[0])
		return strcmp(w->module, name) == 0;
	return w->module_path[0] && kw_module_name_of(w->module_path, m, sizeof(m)) == 0 &&
	       strcmp(m, name) == 0;
}

static void watch_waiting(struct kwd *d, const struct kw_file *f, const char *why)
{
	json_object *ev = kw_event_new("watch_waiting");

	if (ev) {
		kwd_file_fields(ev, f);
		kw_event_add_str(ev, "function", f->watch.function);
		kw_event_add_str(ev, "module", f->watch.in_module);
		kw_event_add_str(ev, "reason", why);
		kwd_emit(d, ev);
	}
	log_info("%s: %s", f->name, why);
}

static struct kw_file *cur_file(struct kwd *d, const char *path)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++)
		if (d->cur[i].kind == KW_WATCH && strcmp(d->cur[i].path, path) == 0)
			return &d->cur[i];
	return NULL;
}

/* Module @name is loaded: arm the watches that wait for it. */
static void module_came(struct kwd *d, const char *name)
{
	bool any = false;
	const char *what;
	char line[512];
	size_t i;
	int r;

	for (i = 0; i < d->n_cur; i++) {
		struct kw_file *f = &d->cur[i];

		if (f->kind != KW_WATCH || !f->watch.enabled || kwd_watch_armed_of(d, f) ||
		    !of_module(&f->watch, name))
			continue;
		log_info("module %s loaded: arming %s", name, f->name);
		/* The catch program first, as an apply does. */
		kwbpf_before_arm(d);
		any = true;
		r = kwd_watch_arm(d, f, line, sizeof(line), &what);
		if (r < 0)
			kwd_kernel_error(d, f, r, what, line);
	}
	if (any)
		kwbpf_sync(d);
}

/* Module @name is gone, and the kernel removed the watches on its
 * functions with it: they wait for it again. */
static void module_went(struct kwd *d, const char *name)
{
	char why[128];
	size_t i = 0, n;

	while (i < d->watches->n_armed) {
		struct kwd_armed *a = &d->watches->armed[i];
		struct kw_file *f = cur_file(d, a->path);

		if (a->disarming || !f || !of_module(&f->watch, name)) {
			i++;
			continue;
		}
		n = d->watches->n_armed;
		take_out(d, a);	/* a kernel without the notifier: we do it */
		if (d->watches->n_armed == n)
			i++;	/* still there: its disarm waits for a reader */
		snprintf(why, sizeof(why), "module %s was unloaded: the watch arms again when it is loaded",
			 name);
		f->watch.waiting = true;
		watch_waiting(d, f, why);
	}
}

/* Uevents were lost: look at each module a watch file names instead. */
void kwd_watches_resync(struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++) {
		const struct kw_watch *w = &d->cur[i].watch;
		char name[KW_MODULE_MAX + 1];
		bool live;

		if (d->cur[i].kind != KW_WATCH || !w->in_module[0])
			continue;
		kw_strlcpy(name, w->in_module, sizeof(name));
		live = kw_module_live(KW_SYSFS_MODULE, name);
		if (live && w->waiting)
			module_came(d, name);
		else if (!live && kwd_watch_armed_of(d, &d->cur[i]))
			module_went(d, name);
	}
}

void kwd_watches_module(struct kwd *d, const char *name, bool loaded)
{
	if (loaded)
		module_came(d, name);
	else
		module_went(d, name);
}

/* Arm @f's watch, its variable= resolved first.  The file's version in
 * force, if armed, stays armed until the new one is in (with several
 * watches: beside it, or in its place when there is no room; with one:
 * the kernel replaces it), so a version the kernel refuses changes
 * nothing.  On failure, @what is what failed (NULL: @line holds the whole
 * reason). */
int kwd_watch_arm(struct kwd *d, struct kw_file *f, char *line, size_t n, const char **what)
{
	struct kwd_armed *prev = kwd_watch_armed_of(d, f), *a = NULL;
	bool add = d->watches->max_watches > 1;
	char why[400], picked[64] = "";
	json_object *ev;
	size_t i;
	int r;

	*what = d->set.kstackwatch;
	r = ksw_resolve(&d->watches->ksw_vars, d->set.stackvars, &f->watch, why, sizeof(why));
	if (r < 0) {
		*what = NULL;
		snprintf(line, n, "variable=%.64s: %.400s", f->watch.variable, why);
		return r;
	}
	if (f->watch.in_module[0])
		kwd_modules_follow(d);
	if (f->watch.waiting) {
		/* Its version in force, if armed, was of the module that went. */
		if (prev)
			take_out(d, prev);
		watch_waiting(d, f, why);
		return 0;
	}
	if (f->watch.symbol[0])
		log_info("%s: %s is compiled only as gcc's clone %s: watching it%s%s", f->path,
			 f->watch.function, f->watch.symbol,
			 f->watch.clones_unwatched[0] ? "; not watched: " : "",
			 f->watch.clones_unwatched);
	r = kw_watch_line(&f->watch, line, n);
	if (r < 0)
		return r;
	/* The version in force has the same line: it stays armed as it is. */
	if (prev && strcmp(prev->line, line) == 0) {
		a = prev;
		goto armed;
	}
	for (i = 0; add && i < d->watches->n_armed; i++) {
		if (strcmp(d->watches->armed[i].line, line))
			continue;
		/* The same line, its disarm waiting for a reader: it stays,
		 * now for this file. */
		if (d->watches->armed[i].disarming) {
			a = &d->watches->armed[i];
			goto armed;
		}
		/* Two files for one watch: the kernel holds a line once. */
		*what = NULL;
		snprintf(line, n, "the same watch as watch.d/%s: %s",
			 kwd_armed_name(&d->watches->armed[i]), d->watches->armed[i].line);
		return -EEXIST;
	}
	if (d->watches->n_armed == KSW_WATCHES_MAX)
		return -ENOSPC;
	r = ksw_arm(d->set.kstackwatch, &f->watch, add, line, n, picked, sizeof(picked));
	/* No room beside the version in force: it makes room. */
	if (r == -ENOSPC && add && prev) {
		take_out(d, prev);
		prev = NULL;
		r = ksw_arm(d->set.kstackwatch, &f->watch, add, line, n, picked, sizeof(picked));
	}
	/* Room for it may come when the disarms a reader holds up are done. */
	if (r == -ENOSPC && disarms_waiting(d)) {
		d->watches->ksw_reload_wanted = true;
		ksw_retry_later(d, KSW_RETRY_USEC);
	}
	if (r < 0)
		return r;
	/* The new version is in: the one in force goes (with one watch, the
	 * kernel replaced it, and whatever a disarm was waiting for). */
	if (add && prev)
		take_out(d, prev);
	while (!add && d->watches->n_armed)
		watch_gone(d, &d->watches->armed[0]);
armed:
	if (!a)
		a = &d->watches->armed[d->watches->n_armed++];
	snprintf(a->line, sizeof(a->line), "%s", line);
	snprintf(a->path, sizeof(a->path), "%s", f->path);
	a->disarming = false;
	ev = kw_event_new("watch_armed");
	if (ev) {
		kwd_file_fields(ev, f);
		kw_event_add_str(ev, "definition", line);
		if (picked[0])
			kw_event_add_str(ev, "probe_point", picked);
		kwd_emit(d, ev);
	}
	log_info("watch armed from %s: %s%s%s", f->name, line,
		 picked[0] ? ", the kernel's probe point " : "", picked);
	if (kwd_triage_is(f))
		kwd_triage_armed(d, f, line);
	return 0;
}


void kwd_ksw_clear_stale(struct kwd *d)
{
	_cleanup_free_ char *back = NULL;
	char lines[KSW_WATCHES_MAX][KSW_LINE_MAX];
	size_t i, j, n;
	int r;

	if (!ksw_present(d->set.kstackwatch))
		return;
	if (d->watches->max_watches <= 1) {
		/* One watch: with nothing to arm, clear the control file. */
		if (!d->watches->n_armed && ksw_disarm(d->set.kstackwatch) == 0)
			log_info("cleared %s (no watch configured)", d->set.kstackwatch);
		return;
	}
	if (ksw_read(d->set.kstackwatch, &back) < 0)
		return;
	n = ksw_readback_lines(back, lines, KSW_WATCHES_MAX);
	for (i = 0; i < n; i++) {
		for (j = 0; j < d->watches->n_armed; j++)
			if (strcmp(d->watches->armed[j].line, lines[i]) == 0)
				break;
		if (j < d->watches->n_armed)
			continue;
		r = ksw_remove(d->set.kstackwatch, lines[i]);
		if (r < 0)
			log_warning_errno(r, "removing the stale watch '%s' from %s: %m", lines[i],
					  d->set.kstackwatch);
		else
			log_info("removed '%s' from %s (no watch file for it)", lines[i],
				 d->set.kstackwatch);
	}
}


void kwd_watch_fields(struct kwd *d, json_object *ev, const char *line)
{
	size_t i;

	if (!line[0])
		return;
	kw_event_add_str(ev, "definition", line);
	for (i = 0; i < d->watches->n_armed; i++) {
		if (strcmp(d->watches->armed[i].line, line) == 0) {
			kw_event_add_str(ev, "watch_file", d->watches->armed[i].path);
			return;
		}
	}
}


void kwd_watch_reload_later(struct kwd *d, uint64_t usec)
{
	d->watches->ksw_reload_wanted = true;
	ksw_retry_later(d, usec);
}

void kwd_watches_teardown(struct kwd *d)
{
	size_t i;

	/* No timer will run again: a disarm a reader held up is tried once
	 * more, and said if it still cannot be done. */
	if (finish_disarms(d) < 0)
		for (i = 0; i < d->watches->n_armed; i++)
			log_warning("%s still held open by a reader: the watch from %s stays armed",
				    d->set.kstackwatch, kwd_armed_name(&d->watches->armed[i]));
	d->watches->n_armed = 0;
}

const char *kwd_watch_first_line(struct kwd *d)
{
	return d->watches->n_armed ? d->watches->armed[0].line : "";
}

void kwd_watches_status(struct kwd *d, json_object *st)
{
	struct kwd_watches *w = d->watches;
	json_object *watches, *o;
	size_t i;

	/* watch and watch_file: the first watch, as with one watch at a time. */
	kw_event_add_str(st, "watch", w->n_armed ? w->armed[0].line : "");
	kw_event_add_str(st, "watch_file", w->n_armed ? w->armed[0].path : "");
	watches = json_object_new_array();
	for (i = 0; watches && i < w->n_armed; i++) {
		o = json_object_new_object();
		if (!o)
			continue;
		kw_event_add_str(o, "file", w->armed[i].path);
		kw_event_add_str(o, "definition", w->armed[i].line);
		json_object_array_add(watches, o);
	}
	json_object_object_add(st, "watches", watches);
	kw_event_add_u64(st, "max_watches", w->max_watches ? w->max_watches : 1);
}
