// SPDX-License-Identifier: GPL-2.0
/* The status reply: the files in force and in error, the watches, the
 * wprobes, the spools, the stream, the capture. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "kwatchd-crash.h"
#include "kwatchd.h"
#include "kwatch-loader.h"
#include "kwatchd-watch.h"

static const struct kw_file *find_err(struct kwd *d, const struct kw_file *f)
{
	return kw_file_find(d->errors, d->n_errors, f->kind, f->name);
}

static json_object *file_status(const struct kw_file *f, const char *state,
				const struct kw_file *err)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	kwd_file_fields(o, f);
	kw_event_add_str(o, "state", state);
	if (err) {
		kw_event_add_int(o, "line", err->err_line);
		kw_event_add_str(o, "reason", err->err_reason);
	}
	return o;
}

/* "loop": the event loop's iterations, the longest, and how many took
 * longer than each threshold ("over_ms": {"1": n, "2": n, ...}). */
static void loop_status(struct kwd *d, json_object *st)
{
	json_object *o = json_object_new_object(), *over = json_object_new_object();
	char key[16];
	unsigned int i;

	if (!o || !over) {
		json_object_put(o);
		json_object_put(over);
		return;
	}
	kw_event_add_u64(o, "iterations", d->loop.iterations);
	kw_event_add_u64(o, "max_us", d->loop.max_us);
	for (i = 0; i < KWD_LOOP_BUCKETS; i++) {
		snprintf(key, sizeof(key), "%u", KWD_LOOP_MS[i]);
		kw_event_add_u64(over, key, d->loop.over[i]);
	}
	json_object_object_add(o, "over_ms", over);
	json_object_object_add(st, "loop", o);
}

json_object *kwd_status(struct kwd *d)
{
	json_object *st = kw_event_new("status"), *files;
	size_t i;

	if (!st)
		return NULL;
	files = json_object_new_array();
	for (i = 0; i < d->n_cur; i++) {
		const struct kw_file *f = &d->cur[i];
		const struct kw_file *e = find_err(d, f);
		bool on = (f->kind == KW_WATCH && f->watch.enabled) ||
			(f->kind == KW_WPROBE && f->wprobe.enabled) ||
			(f->kind == KW_FUZZ && f->fuzz.enabled);

		if (on && f->kind == KW_WATCH && f->watch.waiting)
			json_object_array_add(files, file_status(f, "waiting for its module", e));
		else
			json_object_array_add(files, file_status(f, e ? "error, last good in force" :
								 on ? "applied" : "disabled", e));
	}
	for (i = 0; i < d->n_errors; i++)
		if (!kw_file_find(d->cur, d->n_cur, d->errors[i].kind, d->errors[i].name))
			json_object_array_add(files, file_status(&d->errors[i], "error",
								 &d->errors[i]));
	json_object_object_add(st, "files", files);
	kwd_watches_status(d, st);
	kwd_wprobes_status(d, st);
	fuzz_status(d, st);
	kw_event_add_u64(st, "clients", d->srv.n_clients);
	kw_event_add_u64(st, "dropped", server_dropped(&d->srv));
	kw_event_add_u64(st, "push_connects", d->srv.push_connects);
	json_object_object_add(st, "push", server_push_status(&d->srv));
	kw_event_add_u64(st, "commands_refused", d->srv.cmds_refused);
	kw_event_add_u64(st, "last_seq", d->ectx.seq);
	kw_event_add_u64(st, "applies", d->applies);
	kw_event_add_u64(st, "config_errors", d->config_errors);
	kw_event_add_u64(st, "wprobe_hits", d->wprobes->hits);
	kw_event_add_u64(st, "state_errors", d->state_errors);
	kwbpf_status(d, st);
	crash_status(d, st);
	loop_status(d, st);
	return st;
}
