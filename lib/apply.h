/* SPDX-License-Identifier: GPL-2.0 */
/* The apply diff: from the set in force and a freshly parsed set, build
 * the next set in force and the ordered steps that take the kernel from
 * one to the other.  Pure: no I/O, so it is unit-tested on the host.
 *
 * Rules: a file that fails to parse or validate is reported and its last
 * good version (if any) stays in force.  Each enabled watch file is one
 * watch, up to the kernel's limit (max_watches; 1 for a v4 kernel): a
 * file beyond it is an error naming the limit, and the watches already
 * armed (else the first by name) win.  Wprobe names and fuzz targets must
 * be unique across files.  Unchanged files (same content hash) are left
 * alone; changed ones are replaced (a watch: the plan disarms, then arms;
 * kwatchd-reconcile.c arms the new version before it takes the old one out). */
#ifndef KW_APPLY_H
#define KW_APPLY_H

#include "config.h"

enum kw_step_op {
	KW_STEP_WATCH_DISARM,
	KW_STEP_WPROBE_REMOVE,
	KW_STEP_FUZZ_STOP,
	KW_STEP_WATCH_ARM,
	KW_STEP_WPROBE_CREATE,
	KW_STEP_FUZZ_START,
	_KW_STEP_MAX,
};

extern const char *const kw_step_name[_KW_STEP_MAX];

struct kw_step {
	enum kw_step_op op;
	size_t file;		/* index into plan->next (create/arm/start) or
				 * into the old set (remove/disarm/stop) */
};

struct kw_plan {
	struct kw_file *next;	/* the set in force after the plan */
	size_t n_next;
	struct kw_step *steps;
	size_t n_steps, cap_steps;
	struct kw_file *errors;	/* files to report (copies, with err set) */
	size_t n_errors, cap_errors;
};

/* old/n_old: the set in force (all valid), sorted by kind and name (a
 * previous plan's next; -EINVAL otherwise).  parsed/n_parsed: every file
 * read now, valid or not, sorted by kind and name.  max_watches: enabled
 * watches the kernel takes at once (0 counts as 1).  Costs O(n log n). */
int kw_plan_build(const struct kw_file *old, size_t n_old, const struct kw_file *parsed,
		  size_t n_parsed, unsigned int max_watches, struct kw_plan *ret);
void kw_plan_free(struct kw_plan *p);

/* The first enabled watch in a set, or NULL. */
const struct kw_file *kw_armed_watch(const struct kw_file *set, size_t n);
/* The file of @kind named @name in @set, or NULL. */
const struct kw_file *kw_file_find(const struct kw_file *set, size_t n, enum kw_kind kind,
				   const char *name);

#endif
