/* SPDX-License-Identifier: GPL-2.0 */
/* For host tests of a daemon file that takes struct kwd (kwatchd-fuzz.c, kwatchd-crash.c)
 * without the rest of the daemon: the events it emits are collected, the
 * BPF ring is empty, and fake_kwd_new() makes a daemon state on a fresh
 * sd-event loop with its state directory under the test's root.  A test
 * that links kwatchd-fuzz.c defines FAKE_KWD_FUZZ first: its daemon state has the
 * fuzz sources' (kwd_fuzz_new(); the test frees it), and kwatchd-reconcile.c's
 * kwd_file_fields() is here.  One that links kwatchd-wprobe.c defines
 * FAKE_KWD_WPROBE: its hits' text events are collected too, and the
 * stream and BPF calls its wprobes make are stand-ins. */
#ifndef KW_TEST_FAKE_KWD_H
#define KW_TEST_FAKE_KWD_H

#include <stdio.h>
#include <stdlib.h>

#include "kwatchd.h"
#include "kwatch-loader.h"
#include "tmpdir.h"
#include "util.h"

#define FAKE_EVENTS_MAX 512
static char events[FAKE_EVENTS_MAX][4096];
static unsigned int n_events;

void kwd_emit(struct kwd *d, json_object *ev)
{
	(void)d;
	if (n_events < FAKE_EVENTS_MAX)
		snprintf(events[n_events++], sizeof(events[0]), "%s",
			 json_object_to_json_string_ext(ev, JSON_C_TO_STRING_PLAIN |
							JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(ev);
}

#if defined(FAKE_KWD_FUZZ) || defined(FAKE_KWD_WPROBE)
/* kwatchd-reconcile.c's, for kwatchd-fuzz.c's and kwatchd-wprobe.c's apply steps' events. */
void kwd_file_fields(json_object *ev, const struct kw_file *f)
{
	kw_event_add_str(ev, "file_kind", kw_kind_name[f->kind]);
	kw_event_add_str(ev, "file", f->path);
}
#endif

#ifdef FAKE_KWD_WPROBE
void kwd_emit_text(struct kwd *d, struct kw_evtext *t)
{
	json_object *o = kw_evtext_object(t);

	assert_non_null(o);
	kwd_emit(d, o);
}

void server_flush_queued(struct server *srv)
{
	(void)srv;
}

void kwbpf_wprobe_detach(struct kwd *d, const char *name)
{
	(void)d;
	(void)name;
}
#endif

/* kwatchd-module.c's, called by the watches and wprobes: no uevents in a
 * host test. */
void kwd_modules_follow(struct kwd *d)
{
	(void)d;
}

/* Called after each blob the daemon writes: the tests count them. */
static unsigned int fake_bpf_polls;
bool kwbpf_poll(struct kwd *d)
{
	(void)d;
	fake_bpf_polls++;
	return false;
}

static inline struct kwd *fake_kwd_new(void)
{
	struct kwd *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	assert_int_equal(sd_event_new(&d->ev), 0);
	kw_event_ctx_init(&d->ectx);
	kw_settings_default(&d->set);
#ifdef FAKE_KWD_FUZZ
	d->fuzz = kwd_fuzz_new();
	assert_non_null(d->fuzz);
#endif
	snprintf(d->state_dir, sizeof(d->state_dir), "%s/state", root);
	assert_int_equal(kw_mkdir_p(d->state_dir, 0700), 0);
	n_events = 0;
	return d;
}

#endif
