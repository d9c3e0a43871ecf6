// SPDX-License-Identifier: GPL-2.0
/* From the configuration directory to the kernel: load, plan (apply.c),
 * execute the plan step by step with a rollback per object, report. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inforce.h"
#include "ksw.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "wprobe.h"
#include "crash.h"
#include "kwbpf.h"

void kwd_file_fields(json_object *ev, const struct kw_file *f)
{
	kw_event_add_str(ev, "file_kind", kw_kind_name[f->kind]);
	kw_event_add_str(ev, "file", f->path);
}

static void config_error(struct kwd *d, const struct kw_file *f, bool kernel)
{
	json_object *ev = kw_event_new("config_error");

	d->config_errors++;
	log_error("%s:%d: %s%s", f->path, f->err_line, f->err_reason,
		  kernel ? "" : ", keeping the last good version");
	if (!ev)
		return;
	kwd_file_fields(ev, f);
	kw_event_add_int(ev, "line", f->err_line);
	kw_event_add_str(ev, "reason", f->err_reason);
	if (f->err < 0)
		kw_event_add_errno(ev, f->err);
	kw_event_add_str(ev, "stage", kernel ? "kernel" : "parse");
	kwd_emit(d, ev);
}

static void obj_event(struct kwd *d, const char *type, const struct kw_file *f,
		      const char *key, const char *val)
{
	json_object *ev = kw_event_new(type);

	if (!ev)
		return;
	kwd_file_fields(ev, f);
	if (key)
		kw_event_add_str(ev, key, val);
	kwd_emit(d, ev);
}

/* A kernel step failed for file f: record it as an error of that file.
 * Without @what, @detail is the whole reason. */
static int kernel_failed(struct kwd *d, struct kw_plan *p, const struct kw_file *f, int r,
			 const char *what, const char *detail)
{
	struct kw_file e = *f, *tmp;

	e.err = r;
	e.err_line = 0;
	if (what)
		snprintf(e.err_reason, sizeof(e.err_reason), "%s: %s%s%s", what, strerror(-r),
			 detail && *detail ? ": " : "", detail ? detail : "");
	else
		snprintf(e.err_reason, sizeof(e.err_reason), "%s", detail);
	config_error(d, &e, true);
	tmp = realloc(p->errors, (p->n_errors + 1) * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	p->errors = tmp;
	p->errors[p->n_errors++] = e;
	return 0;
}

static void drop_next(struct kw_plan *p, size_t i)
{
	/* Only at the end of execute(): steps index into p->next. */
	memmove(&p->next[i], &p->next[i + 1], (p->n_next - i - 1) * sizeof(*p->next));
	p->n_next--;
}

#define KSW_RETRY_USEC 200000

/* The watch armed from file @f, or NULL; one whose disarm waits for a
 * reader is no longer the file's. */
static struct kwd_armed *armed_of(struct kwd *d, const struct kw_file *f)
{
	size_t i;

	for (i = 0; i < d->n_armed; i++)
		if (!d->armed[i].disarming && strcmp(d->armed[i].path, f->path) == 0)
			return &d->armed[i];
	return NULL;
}

static bool disarms_waiting(const struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->n_armed; i++)
		if (d->armed[i].disarming)
			return true;
	return false;
}

/* The watch @a is no longer in the kernel: say so, and forget it. */
static void watch_gone(struct kwd *d, struct kwd_armed *a)
{
	json_object *ev = kw_event_new("watch_disarmed");
	size_t i = a - d->armed;

	if (ev) {
		kw_event_add_str(ev, "file_kind", kw_kind_name[KW_WATCH]);
		kw_event_add_str(ev, "file", a->path);
		kw_event_add_str(ev, "definition", a->line);
		kwd_emit(d, ev);
	}
	log_info("watch disarmed (%s)", kwd_armed_name(a));
	memmove(a, a + 1, (d->n_armed - i - 1) * sizeof(*a));
	d->n_armed--;
}

/* Take @a's watch out of the kernel: the one line where the kernel has
 * several, else the whole file. */
static int unarm(struct kwd *d, const struct kwd_armed *a)
{
	if (d->max_watches > 1)
		return ksw_remove(d->set.kstackwatch, a->line);
	return ksw_disarm(d->set.kstackwatch);
}

/* Disarms a reader held up; -EBUSY if one still waits. */
static int finish_disarms(struct kwd *d)
{
	size_t i = 0;
	int r;

	while (i < d->n_armed) {
		if (!d->armed[i].disarming) {
			i++;
			continue;
		}
		r = unarm(d, &d->armed[i]);
		if (r == -EBUSY)
			return r;
		if (r < 0) {
			log_warning_errno(r, "disarming %s: %m, giving up", d->set.kstackwatch);
			d->armed[i].disarming = false;
			i++;
			continue;
		}
		watch_gone(d, &d->armed[i]);
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
	if (d->ksw_reload_wanted) {
		d->ksw_reload_wanted = false;
		kwd_reload(d, "retry");
	}
	return 0;
}

static void ksw_retry_later(struct kwd *d, uint64_t usec)
{
	if (!d->ksw_retry &&
	    sd_event_add_time_relative(d->ev, &d->ksw_retry, CLOCK_MONOTONIC, usec, 0,
				       on_ksw_retry, d) < 0)
		return;
	sd_event_source_set_time_relative(d->ksw_retry, usec);
	sd_event_source_set_enabled(d->ksw_retry, SD_EVENT_ONESHOT);
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
	if (r < 0)
		log_warning_errno(r, "disarming %s: %m, ignoring", d->set.kstackwatch);
	watch_gone(d, a);
}

static void disarm(struct kwd *d, const struct kw_file *f)
{
	struct kwd_armed *a = armed_of(d, f);

	if (a)
		take_out(d, a);
}

/* Arm @f's watch, its variable= resolved first.  The file's version in
 * force, if armed, stays armed until the new one is in (with several
 * watches: beside it, or in its place when there is no room; with one:
 * the kernel replaces it), so a version the kernel refuses changes
 * nothing.  On failure, @what is what failed (NULL: @line holds the whole
 * reason). */
static int arm(struct kwd *d, struct kw_file *f, char *line, size_t n, const char **what)
{
	struct kwd_armed *prev = armed_of(d, f), *a = NULL;
	bool add = d->max_watches > 1;
	char why[400], picked[64] = "";
	json_object *ev;
	size_t i;
	int r;

	*what = d->set.kstackwatch;
	r = ksw_resolve(&d->ksw_vars, d->set.stackvars, &f->watch, why, sizeof(why));
	if (r < 0) {
		*what = NULL;
		snprintf(line, n, "variable=%.64s: %.400s", f->watch.variable, why);
		return r;
	}
	r = kw_watch_line(&f->watch, line, n);
	if (r < 0)
		return r;
	/* The version in force has the same line: it stays armed as it is. */
	if (prev && strcmp(prev->line, line) == 0) {
		a = prev;
		goto armed;
	}
	for (i = 0; add && i < d->n_armed; i++) {
		if (strcmp(d->armed[i].line, line))
			continue;
		/* The same line, its disarm waiting for a reader: it stays,
		 * now for this file. */
		if (d->armed[i].disarming) {
			a = &d->armed[i];
			goto armed;
		}
		/* Two files for one watch: the kernel holds a line once. */
		*what = NULL;
		snprintf(line, n, "the same watch as watch.d/%s: %s", kwd_armed_name(&d->armed[i]),
			 d->armed[i].line);
		return -EEXIST;
	}
	if (d->n_armed == KSW_WATCHES_MAX)
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
		d->ksw_reload_wanted = true;
		ksw_retry_later(d, KSW_RETRY_USEC);
	}
	if (r < 0)
		return r;
	/* The new version is in: the one in force goes (with one watch, the
	 * kernel replaced it, and whatever a disarm was waiting for). */
	if (add && prev)
		take_out(d, prev);
	while (!add && d->n_armed)
		watch_gone(d, &d->armed[0]);
armed:
	if (!a)
		a = &d->armed[d->n_armed++];
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
	return 0;
}

static int execute(struct kwd *d, struct kw_plan *p)
{
	const struct kw_file *old = d->cur;
	size_t i, n_old = d->n_cur;
	char line[512], reason[256];
	const char *what;
	int r;

	for (i = 0; i < p->n_steps; i++) {
		const struct kw_step *s = &p->steps[i];
		const struct kw_file *o, *f;

		switch (s->op) {
		case KW_STEP_WATCH_DISARM:
			/* A changed watch: arm() puts its new version in, then
			 * takes this one out. */
			o = kw_file_find(p->next, p->n_next, KW_WATCH, old[s->file].name);
			if (o && o->watch.enabled)
				break;
			disarm(d, &old[s->file]);
			break;
		case KW_STEP_WPROBE_REMOVE:
			wp_remove(d, &old[s->file]);
			break;
		case KW_STEP_FUZZ_STOP:
			if (fuzz_stop(d, old[s->file].name))
				obj_event(d, "fuzz_stopped", &old[s->file], "target",
					  old[s->file].fuzz.target);
			break;
		case KW_STEP_WATCH_ARM:
			f = &p->next[s->file];
			r = arm(d, &p->next[s->file], line, sizeof(line), &what);
			if (r == 0)
				break;
			kernel_failed(d, p, f, r, what, line);
			if (r == -EBUSY) {
				/* A reader holds the file: apply again later. */
				d->ksw_reload_wanted = true;
				ksw_retry_later(d, 1000000);
			}
			o = kw_file_find(old, n_old, KW_WATCH, f->name);
			/* Its version in force is still armed: it stays. */
			if (o && armed_of(d, f)) {
				p->next[s->file] = *o;
				break;
			}
			/* Else its last good version, if it was armed, goes
			 * back in. */
			if (o && o->watch.enabled) {
				p->next[s->file] = *o;
				if (arm(d, &p->next[s->file], line, sizeof(line), &what) == 0)
					break;
			}
			p->next[s->file].err = r;
			break;
		case KW_STEP_WPROBE_CREATE:
		case KW_STEP_FUZZ_START:
			f = &p->next[s->file];
			reason[0] = '\0';
			r = s->op == KW_STEP_WPROBE_CREATE ?
				wp_create(d, f, reason, sizeof(reason)) :
				fuzz_start(d, f, reason, sizeof(reason));
			if (r == 0) {
				if (s->op == KW_STEP_FUZZ_START && f->fuzz.enabled)
					obj_event(d, "fuzz_started", f, "target", f->fuzz.target);
				break;
			}
			kernel_failed(d, p, f, r, s->op == KW_STEP_WPROBE_CREATE ?
				      "creating the wprobe" : f->fuzz.generate ?
				      "starting the generator" : "starting the spool", reason);
			o = kw_file_find(old, n_old, f->kind, f->name);
			if (o && (s->op == KW_STEP_WPROBE_CREATE ? wp_create(d, o, reason, sizeof(reason)) :
				  fuzz_start(d, o, reason, sizeof(reason))) == 0) {
				p->next[s->file] = *o;
				break;
			}
			/* Nothing of it is in force now. */
			p->next[s->file].err = r;
			break;
		default:
			break;
		}
	}
	/* Files whose creation failed without a fallback leave the set. */
	for (i = p->n_next; i-- > 0;)
		if (p->next[i].err)
			drop_next(p, i);
	return 0;
}

/* --- last good versions across restarts ---------------------------------- */

/* The set in force is saved after each apply, as the files' text
 * (inforce.c).  At start-up, a file that is bad when read has no last good
 * version in memory: swap it for its saved one (same kind and name, parsed
 * again from the saved text), still reporting it here and adding it to
 * errors. */
static int use_saved_versions(struct kwd *d, struct kw_file *parsed, size_t n,
			      struct kw_file **errors, size_t *n_errors)
{
	struct kw_file *tmp;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct kw_file *saved;

		if (!parsed[i].err || kw_file_find(d->cur, d->n_cur, parsed[i].kind, parsed[i].name))
			continue;
		saved = kw_file_find(d->lastgood, d->n_lastgood, parsed[i].kind, parsed[i].name);
		if (!saved)
			continue;
		tmp = realloc(*errors, (*n_errors + 1) * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		*errors = tmp;
		tmp[(*n_errors)++] = parsed[i];
		config_error(d, &parsed[i], false);
		log_info("%s: the last good version saved before the restart is in force",
			 parsed[i].path);
		parsed[i] = *saved;
	}
	return 0;
}

int kwd_reload(struct kwd *d, const char *why)
{
	struct kw_file *saved_errors = NULL;
	size_t n_saved_errors = 0;
	struct kw_file *parsed = NULL;
	struct kw_plan plan;
	size_t n = 0, i;
	json_object *ev;
	int r;

	r = kwd_inforce_config_load(d, &parsed, &n);
	if (r < 0) {
		/* Enumeration failed: keep everything as it is. */
		log_error_errno(r, "cannot read %s: %m, keeping the configuration in force",
				d->confdir);
		return r;
	}
	if (d->n_lastgood) {
		r = use_saved_versions(d, parsed, n, &saved_errors, &n_saved_errors);
		if (r < 0)
			log_warning_errno(r, "cannot use the saved last good versions: %m");
	}
	/* How many watches the kernel takes; asked again only while none is
	 * armed (a changed kstackwatch= setting). */
	if (!d->n_armed)
		d->max_watches = ksw_max_watches(d->set.kstackwatch, KSW_MAX_WATCHES_PARAM);
	r = kw_plan_build(d->cur, d->n_cur, parsed, n, d->max_watches, &plan);
	free(parsed);
	if (r < 0) {
		free(saved_errors);
		return log_error_errno(r, "cannot plan the configuration: %m");
	}
	for (i = 0; i < plan.n_errors; i++)
		config_error(d, &plan.errors[i], false);
	if (kw_armed_watch(plan.next, plan.n_next))
		kwbpf_before_arm(d);
	execute(d, &plan);
	if (n_saved_errors) {
		struct kw_file *all = realloc(plan.errors, (plan.n_errors + n_saved_errors) *
					      sizeof(*all));

		if (all) {
			memcpy(all + plan.n_errors, saved_errors, n_saved_errors * sizeof(*all));
			plan.errors = all;
			plan.n_errors += n_saved_errors;
		}
	}
	free(saved_errors);
	/* Only the first apply after start-up may need them. */
	free(d->lastgood);
	d->lastgood = NULL;
	d->n_lastgood = 0;

	free(d->cur);
	d->cur = plan.next;
	d->n_cur = plan.n_next;
	free(d->errors);
	d->errors = plan.errors;
	d->n_errors = plan.n_errors;
	d->applies++;
	kwbpf_sync(d);
	kwd_inforce_save(d);

	ev = kw_event_new("config_applied");
	if (ev) {
		kw_event_add_str(ev, "trigger", why);
		kw_event_add_u64(ev, "files_in_force", d->n_cur);
		kw_event_add_u64(ev, "files_in_error", d->n_errors);
		kw_event_add_u64(ev, "steps", plan.n_steps);
		kw_event_add_str(ev, "watch", d->n_armed ? d->armed[0].line : "");
		kwd_emit(d, ev);
	}
	log_info("configuration applied (%s): %zu files in force, %zu in error, %zu steps",
		 why, d->n_cur, d->n_errors, plan.n_steps);
	free(plan.steps);
	kwd_status_notify(d);
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
	if (d->max_watches <= 1) {
		/* One watch: with nothing to arm, clear the control file. */
		if (!d->n_armed && ksw_disarm(d->set.kstackwatch) == 0)
			log_info("cleared %s (no watch configured)", d->set.kstackwatch);
		return;
	}
	if (ksw_read(d->set.kstackwatch, &back) < 0)
		return;
	n = ksw_readback_lines(back, lines, KSW_WATCHES_MAX);
	for (i = 0; i < n; i++) {
		for (j = 0; j < d->n_armed; j++)
			if (strcmp(d->armed[j].line, lines[i]) == 0)
				break;
		if (j < d->n_armed)
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

void kwd_teardown(struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];

		if (f->kind == KW_WATCH)
			disarm(d, f);
		else if (f->kind == KW_WPROBE)
			wp_remove(d, f);
	}
	/* No timer will run again: a disarm a reader held up is tried once
	 * more, and said if it still cannot be done. */
	if (finish_disarms(d) < 0)
		for (i = 0; i < d->n_armed; i++)
			log_warning("%s still held open by a reader: the watch from %s stays armed",
				    d->set.kstackwatch, kwd_armed_name(&d->armed[i]));
	d->n_armed = 0;
	fuzz_stop_all(d);
	kwd_inforce_forget();	/* <state>/in-force still has them */
	free(d->cur);
	free(d->errors);
	d->cur = d->errors = NULL;
	d->n_cur = d->n_errors = 0;
	kwbpf_sync(d);		/* nothing configured: all detached */
	kwd_pipe_close(d);
}
