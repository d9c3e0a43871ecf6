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

static int cmp_kind_name(const struct kw_file *x, enum kw_kind kind, const char *name)
{
	if (x->kind != kind)
		return (int)x->kind - (int)kind;
	return strcmp(x->name, name);
}

/* kw_file_find() in a set sorted by kind and name (the set in force,
 * next once sorted): a binary search. */
static const struct kw_file *find_sorted(const struct kw_file *set, size_t n, enum kw_kind kind,
					 const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = cmp_kind_name(&set[mid], kind, name);

		if (c == 0)
			return &set[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
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
	struct kw_file *tmp;

	if (p->n_errors == p->cap_errors) {
		size_t cap = p->cap_errors ? p->cap_errors * 2 : 8;

		tmp = realloc(p->errors, cap * sizeof(*tmp));
		if (!tmp)
			return -ENOMEM;
		p->errors = tmp;
		p->cap_errors = cap;
	}
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
	if (p->n_steps == p->cap_steps) {
		size_t cap = p->cap_steps ? p->cap_steps * 2 : 8;
		struct kw_step *tmp = realloc(p->steps, cap * sizeof(*tmp));

		if (!tmp)
			return -ENOMEM;
		p->steps = tmp;
		p->cap_steps = cap;
	}
	p->steps[p->n_steps++] = (struct kw_step){ .op = op, .file = idx };
	return 0;
}

/*
 * What next holds, to find conflicts in constant time (a directory of
 * thousands of drop-ins must not cost their square): the enabled watches
 * (how many, and the last), and an open-addressing table of the object
 * keys (kind, wprobe name or fuzz target) of the files in next, by
 * index + 1.
 */
struct taken {
	const struct kw_file *armed;	/* the last enabled watch taken */
	unsigned int n_armed, max_armed;
	size_t *slot, cap;		/* cap: a power of two, over twice next's size */
};

static size_t key_hash(enum kw_kind kind, const char *key, size_t cap)
{
	return (kw_hash(key, strlen(key)) ^ (uint64_t)kind) & (cap - 1);
}

static int taken_init(struct taken *t, size_t n, unsigned int max_watches)
{
	t->armed = NULL;
	t->n_armed = 0;
	t->max_armed = max_watches ? max_watches : 1;
	for (t->cap = 16; t->cap < 2 * n + 2; t->cap *= 2)
		;
	t->slot = calloc(t->cap, sizeof(*t->slot));
	return t->slot ? 0 : -ENOMEM;
}

/* Does candidate c conflict with a file already accepted into next? */
static const struct kw_file *conflict(const struct kw_plan *p, const struct taken *t,
				      const struct kw_file *c)
{
	const char *key = object_key(c);
	size_t i;

	if (is_armed_watch(c) && t->n_armed >= t->max_armed)
		return t->armed;
	if (!key)
		return NULL;
	for (i = key_hash(c->kind, key, t->cap); t->slot[i]; i = (i + 1) & (t->cap - 1)) {
		const struct kw_file *n = &p->next[t->slot[i] - 1];

		if (n->kind == c->kind && strcmp(object_key(n), key) == 0)
			return n;
	}
	return NULL;
}

static void take(struct kw_plan *p, struct taken *t, const struct kw_file *f)
{
	const char *key = object_key(f);
	size_t i;

	p->next[p->n_next++] = *f;
	if (is_armed_watch(f)) {
		t->armed = &p->next[p->n_next - 1];
		t->n_armed++;
	}
	if (!key)
		return;
	for (i = key_hash(f->kind, key, t->cap); t->slot[i]; i = (i + 1) & (t->cap - 1))
		;
	t->slot[i] = p->n_next;
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
static int accept(struct kw_plan *p, struct taken *t, const struct kw_file *f,
		  const struct kw_file *old, size_t n_old, bool report)
{
	const struct kw_file *c = conflict(p, t, f), *prev;

	if (!c) {
		take(p, t, f);
		return 0;
	}
	if (report) {
		char a[PATH_MAX], b[PATH_MAX], why[sizeof(f->err_reason)];
		int r;

		snprintf(a, sizeof(a), "%s/%s", kw_kind_dir[f->kind], f->name);
		snprintf(b, sizeof(b), "%s/%s", kw_kind_dir[c->kind], c->name);
		if (f->kind == KW_WATCH && t->max_armed > 1) {
			snprintf(why, sizeof(why), "one watch too many: %.60s is beyond the limit of "
				 "%u watches at once (KStackWatch's max_watches; %.60s is the last "
				 "that fits)", a, t->max_armed, b);
			r = push_err(p, f, -ENOSPC, "%s", why, NULL);
		} else {
			r = push_err(p, f, -EEXIST, conflict_fmt(f), a, b);
		}
		if (r < 0)
			return r;
	}
	prev = find_sorted(old, n_old, f->kind, f->name);
	if (prev && prev->hash != f->hash && !conflict(p, t, prev))
		take(p, t, prev);
	return 0;
}

static bool same(const struct kw_file *a, const struct kw_file *b)
{
	return a && b && a->hash == b->hash;
}

int kw_plan_build(const struct kw_file *old, size_t n_old, const struct kw_file *parsed,
		  size_t n_parsed, unsigned int max_watches, struct kw_plan *ret)
{
	struct kw_plan p = { 0 };
	struct taken t = { 0 };
	size_t i;
	int r = -ENOMEM, pass;

	p.next = calloc(n_parsed + n_old + 1, sizeof(*p.next));
	if (!p.next || taken_init(&t, n_parsed + n_old + 1, max_watches) < 0)
		goto fail;
	/* The set in force is sorted (it is a plan's next); be safe if not. */
	for (i = 1; i < n_old; i++)
		if (kw_file_cmp(&old[i - 1], &old[i]) > 0)
			break;
	if (n_old && i < n_old) {
		r = -EINVAL;
		goto fail;
	}

	/*
	 * Pass 0 takes files that are unchanged since the set in force, pass
	 * 1 those in force that changed, pass 2 new files: what is in force
	 * wins conflicts, and the watch limit, against what is new.  Bad
	 * files are reported and replaced by their last good version.
	 */
	for (pass = 0; pass < 3; pass++) {
		for (i = 0; i < n_parsed; i++) {
			const struct kw_file *f = &parsed[i];
			const struct kw_file *prev = find_sorted(old, n_old, f->kind, f->name);

			if (f->err) {
				if (pass != 0)
					continue;
				r = push_err(&p, f, 0, NULL, NULL, NULL);
				if (r < 0)
					goto fail;
				if (prev) {
					r = accept(&p, &t, prev, old, 0, false);
					if (r < 0)
						goto fail;
				}
				continue;
			}
			if (pass != (same(f, prev) ? 0 : prev ? 1 : 2))
				continue;
			r = accept(&p, &t, f, old, n_old, true);
			if (r < 0)
				goto fail;
		}
	}
	qsort(p.next, p.n_next, sizeof(*p.next), kw_file_cmp);

	/*
	 * Removals first, in the order disarms, wprobes, fuzz, so that what
	 * goes gives its debug registers back before anything new takes
	 * one.  A watch whose file changed is disarmed and armed again.
	 */
	for (i = 0; i < n_old; i++) {
		const struct kw_file *n = find_sorted(p.next, p.n_next, old[i].kind, old[i].name);

		if (!is_armed_watch(&old[i]) || same(&old[i], n))
			continue;
		r = push_step(&p, KW_STEP_WATCH_DISARM, i);
		if (r < 0)
			goto fail;
	}
	for (i = 0; i < n_old; i++) {
		const struct kw_file *n = find_sorted(p.next, p.n_next, old[i].kind, old[i].name);

		if (old[i].kind == KW_WATCH || same(&old[i], n))
			continue;
		r = push_step(&p, old[i].kind == KW_WPROBE ? KW_STEP_WPROBE_REMOVE :
			      KW_STEP_FUZZ_STOP, i);
		if (r < 0)
			goto fail;
	}
	for (i = 0; i < p.n_next; i++) {
		const struct kw_file *o = find_sorted(old, n_old, p.next[i].kind, p.next[i].name);

		if (!is_armed_watch(&p.next[i]) || same(o, &p.next[i]))
			continue;
		r = push_step(&p, KW_STEP_WATCH_ARM, i);
		if (r < 0)
			goto fail;
	}
	for (i = 0; i < p.n_next; i++) {
		const struct kw_file *o = find_sorted(old, n_old, p.next[i].kind, p.next[i].name);

		if (p.next[i].kind == KW_WATCH || same(o, &p.next[i]))
			continue;
		r = push_step(&p, p.next[i].kind == KW_WPROBE ? KW_STEP_WPROBE_CREATE :
			      KW_STEP_FUZZ_START, i);
		if (r < 0)
			goto fail;
	}
	free(t.slot);
	*ret = p;
	return 0;
fail:
	free(t.slot);
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
