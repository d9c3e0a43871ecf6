// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "util.h"

const char *const kw_step_name[_KW_STEP_MAX] = {
	[KW_STEP_WATCH_DISARM] = "watch_disarm",
	[KW_STEP_WPROBE_REMOVE] = "wprobe_remove",
	[KW_STEP_FUZZ_STOP] = "fuzz_stop",
	[KW_STEP_WATCH_ARM] = "watch_arm",
	[KW_STEP_WPROBE_CREATE] = "wprobe_create",
	[KW_STEP_FUZZ_START] = "fuzz_start",
};

const struct kw_file *kw_file_find(const struct kw_file *set, size_t n, enum kw_kind kind,
				   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i].kind == kind && strcmp(set[i].name, name) == 0)
			return &set[i];
	return NULL;
}

static bool is_armed_watch(const struct kw_file *f)
{
	return f->kind == KW_WATCH && f->watch.enabled;
}

const struct kw_file *kw_armed_watch(const struct kw_file *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (is_armed_watch(&set[i]))
			return &set[i];
	return NULL;
}

/* The identity of what a file programs: two files may not share it. */
static const char *object_key(const struct kw_file *f)
{
	switch (f->kind) {
	case KW_WPROBE:
		return f->wprobe.name;
	case KW_FUZZ:
		return f->fuzz.target;
	default:
		return NULL;
	}
}

static int push_err(struct kw_plan *p, const struct kw_file *f, int err, const char *fmt,
		    const char *a, const char *b)
{
	struct kw_file *tmp = realloc(p->errors, (p->n_errors + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	p->errors = tmp;
	tmp = &p->errors[p->n_errors++];
	*tmp = *f;
	if (fmt) {
		tmp->err = err;
		tmp->err_line = 0;
		snprintf(tmp->err_reason, sizeof(tmp->err_reason), fmt, a, b);
	}
	return 0;
}

static int push_step(struct kw_plan *p, enum kw_step_op op, size_t idx)
{
	struct kw_step *tmp = realloc(p->steps, (p->n_steps + 1) * sizeof(*tmp));

	if (!tmp)
		return -ENOMEM;
	p->steps = tmp;
	p->steps[p->n_steps++] = (struct kw_step){ .op = op, .file = idx };
	return 0;
}

/* Does candidate c conflict with a file already accepted into next? */
static const struct kw_file *conflict(const struct kw_plan *p, const struct kw_file *c)
{
	const char *key = object_key(c);
	size_t i;

	for (i = 0; i < p->n_next; i++) {
		const struct kw_file *n = &p->next[i];

		if (is_armed_watch(c) && is_armed_watch(n))
			return n;
		if (key && n->kind == c->kind && strcmp(object_key(n), key) == 0)
			return n;
	}
	return NULL;
}

static const char *conflict_fmt(const struct kw_file *f)
{
	if (f->kind == KW_WATCH)
		return "second enabled watch: %s conflicts with %s (KStackWatch allows one watch)";
	if (f->kind == KW_WPROBE)
		return "wprobe name used twice: %s and %s";
	return "fuzz target used twice: %s and %s";
}

/* Take f into next unless it conflicts; on conflict report it and fall
 * back to its old version if that one fits. */
static int accept(struct kw_plan *p, const struct kw_file *f, const struct kw_file *old,
		  size_t n_old, bool report)
{
	const struct kw_file *c = conflict(p, f), *prev;

	if (!c) {
		p->next[p->n_next++] = *f;
		return 0;
	}
	if (report) {
		char a[PATH_MAX], b[PATH_MAX];
		int r;

		snprintf(a, sizeof(a), "%s/%s", kw_kind_dir[f->kind], f->name);
		snprintf(b, sizeof(b), "%s/%s", kw_kind_dir[c->kind], c->name);
		r = push_err(p, f, -EEXIST, conflict_fmt(f), a, b);
		if (r < 0)
			return r;
	}
	prev = kw_file_find(old, n_old, f->kind, f->name);
	if (prev && prev->hash != f->hash && !conflict(p, prev))
		p->next[p->n_next++] = *prev;
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	const struct kw_file *x = a, *y = b;

	if (x->kind != y->kind)
		return x->kind - y->kind;
	return strcmp(x->name, y->name);
}

static bool same(const struct kw_file *a, const struct kw_file *b)
{
	return a && b && a->hash == b->hash;
}

int kw_plan_build(const struct kw_file *old, size_t n_old, const struct kw_file *parsed,
		  size_t n_parsed, struct kw_plan *ret)
{
	struct kw_plan p = { 0 };
	const struct kw_file *arm_old, *arm_new;
	size_t i;
	int r = -ENOMEM, pass;

	p.next = calloc(n_parsed + n_old + 1, sizeof(*p.next));
	if (!p.next)
		goto fail;

	/*
	 * Pass 0 takes files that are unchanged since the set in force, so
	 * they win conflicts against new files; pass 1 the rest.  Bad files
	 * are reported and replaced by their last good version.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n_parsed; i++) {
			const struct kw_file *f = &parsed[i];
			const struct kw_file *prev = kw_file_find(old, n_old, f->kind, f->name);

			if (f->err) {
				if (pass == 1)
					continue;
				r = push_err(&p, f, 0, NULL, NULL, NULL);
				if (r < 0)
					goto fail;
				if (prev) {
					r = accept(&p, prev, old, 0, false);
					if (r < 0)
						goto fail;
				}
				continue;
			}
			if ((pass == 0) != same(f, prev))
				continue;
			r = accept(&p, f, old, n_old, true);
			if (r < 0)
				goto fail;
		}
	}
	qsort(p.next, p.n_next, sizeof(*p.next), cmp_file);

	/* Removals first, in the order disarm, wprobes, fuzz. */
	arm_old = kw_armed_watch(old, n_old);
	arm_new = kw_armed_watch(p.next, p.n_next);
	if (arm_old && !arm_new) {
		r = push_step(&p, KW_STEP_WATCH_DISARM, arm_old - old);
		if (r < 0)
			goto fail;
	}
	for (i = 0; i < n_old; i++) {
		const struct kw_file *n = kw_file_find(p.next, p.n_next, old[i].kind, old[i].name);

		if (old[i].kind == KW_WATCH || same(&old[i], n))
			continue;
		r = push_step(&p, old[i].kind == KW_WPROBE ? KW_STEP_WPROBE_REMOVE :
			      KW_STEP_FUZZ_STOP, i);
		if (r < 0)
			goto fail;
	}
	if (arm_new && !(arm_old && same(arm_old, arm_new) &&
			 strcmp(arm_old->name, arm_new->name) == 0)) {
		r = push_step(&p, KW_STEP_WATCH_ARM, arm_new - p.next);
		if (r < 0)
			goto fail;
	}
	for (i = 0; i < p.n_next; i++) {
		const struct kw_file *o = kw_file_find(old, n_old, p.next[i].kind, p.next[i].name);

		if (p.next[i].kind == KW_WATCH || same(o, &p.next[i]))
			continue;
		r = push_step(&p, p.next[i].kind == KW_WPROBE ? KW_STEP_WPROBE_CREATE :
			      KW_STEP_FUZZ_START, i);
		if (r < 0)
			goto fail;
	}
	*ret = p;
	return 0;
fail:
	kw_plan_free(&p);
	return r;
}

void kw_plan_free(struct kw_plan *p)
{
	free(p->next);
	free(p->steps);
	free(p->errors);
	memset(p, 0, sizeof(*p));
}
