// SPDX-License-Identifier: GPL-2.0
/* From the configuration directory to the kernel: load, plan (apply.c),
 * execute the plan step by step with a rollback per object, report. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kwatchd-inforce.h"
#include "kwatchd.h"
#include "log.h"
#include "util.h"
#include "kwatchd-watch.h"
#include "kwatchd-wprobe.h"
#include "kwatchd-crash.h"
#include "kwatchd-triage.h"
#include "kwatch-loader.h"

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

/* File @f as the error of a kernel step: @what failed with @r, or, without
 * @what, @detail is the whole reason. */
static void kernel_error_of(const struct kw_file *f, int r, const char *what, const char *detail,
			    struct kw_file *e)
{
	*e = *f;
	e->err = r;
	e->err_line = 0;
	if (what)
		snprintf(e->err_reason, sizeof(e->err_reason), "%s: %s%s%s", what, strerror(-r),
			 detail && *detail ? ": " : "", detail ? detail : "");
	else
		snprintf(e->err_reason, sizeof(e->err_reason), "%s", detail);
}

void kwd_kernel_error(struct kwd *d, const struct kw_file *f, int r, const char *what,
		      const char *detail)
{
	struct kw_file e;

	kernel_error_of(f, r, what, detail, &e);
	config_error(d, &e, true);
}

/* A kernel step failed for file f: record it as an error of that file.
 * Without @what, @detail is the whole reason. */
static int kernel_failed(struct kwd *d, struct kw_plan *p, const struct kw_file *f, int r,
			 const char *what, const char *detail)
{
	struct kw_file e, *tmp;

	kernel_error_of(f, r, what, detail, &e);
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
			kwd_watch_disarm(d, &old[s->file]);
			break;
		case KW_STEP_WPROBE_REMOVE:
			wp_remove(d, &old[s->file]);
			break;
		case KW_STEP_FUZZ_STOP:
			fuzz_apply_stop(d, &old[s->file]);
			break;
		case KW_STEP_WATCH_ARM:
			f = &p->next[s->file];
			r = kwd_watch_arm(d, &p->next[s->file], line, sizeof(line), &what);
			if (r == 0)
				break;
			kernel_failed(d, p, f, r, what, line);
			if (r == -EBUSY) {
				/* A reader holds the file: apply again later. */
				kwd_watch_reload_later(d, 1000000);
			}
			o = kw_file_find(old, n_old, KW_WATCH, f->name);
			/* Its version in force is still armed: it stays. */
			if (o && kwd_watch_armed_of(d, f)) {
				p->next[s->file] = *o;
				break;
			}
			/* Else its last good version, if it was armed, goes
			 * back in. */
			if (o && o->watch.enabled) {
				p->next[s->file] = *o;
				if (kwd_watch_arm(d, &p->next[s->file], line, sizeof(line), &what) == 0)
					break;
			}
			p->next[s->file].err = r;
			break;
		case KW_STEP_WPROBE_CREATE:
		case KW_STEP_FUZZ_START:
			f = &p->next[s->file];
			reason[0] = '\0';
			what = "creating the wprobe";
			r = s->op == KW_STEP_WPROBE_CREATE ?
				wp_create(d, f, reason, sizeof(reason)) :
				fuzz_apply_start(d, f, reason, sizeof(reason), &what);
			if (r == 0)
				break;
			kernel_failed(d, p, f, r, what, reason);
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

/* The set in force is saved after each apply, as copies of the drop-ins
 * (kwatchd-inforce.c).  At start-up, a file that is bad when read has no
 * last good version in memory: swap it for its saved one (same kind and
 * name, its copy read back by the configuration's loader, under the
 * drop-in's path), still reporting it here and adding it to errors. */
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
	r = kwd_triage_add(d, &parsed, &n);
	if (r < 0)
		log_warning_errno(r, "triage: cannot read the triage watches: %m");
	if (d->n_lastgood) {
		r = use_saved_versions(d, parsed, n, &saved_errors, &n_saved_errors);
		if (r < 0)
			log_warning_errno(r, "cannot use the saved last good versions: %m");
	}
	r = kw_plan_build(d->cur, d->n_cur, parsed, n, kwd_watches_max(d), &plan);
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
		kw_event_add_str(ev, "watch", kwd_watch_first_line(d));
		kwd_emit(d, ev);
	}
	log_info("configuration applied (%s): %zu files in force, %zu in error, %zu steps",
		 why, d->n_cur, d->n_errors, plan.n_steps);
	free(plan.steps);
	kwd_status_notify(d);
	return 0;
}

void kwd_teardown(struct kwd *d)
{
	size_t i;

	for (i = 0; i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];

		if (f->kind == KW_WATCH)
			kwd_watch_disarm(d, f);
		else if (f->kind == KW_WPROBE)
			wp_remove(d, f);
	}
	kwd_watches_teardown(d);
	fuzz_stop_all(d);
	kwd_inforce_forget();	/* <state>/in-force still has them */
	free(d->cur);
	free(d->errors);
	d->cur = d->errors = NULL;
	d->n_cur = d->n_errors = 0;
	kwbpf_sync(d);		/* nothing configured: all detached */
	kwd_pipe_close(d);
}
