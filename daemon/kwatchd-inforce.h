/* SPDX-License-Identifier: GPL-2.0 */
/* The set in force across restarts: after each apply, every file in force
 * (the version in force, which after a bad edit is older than the file on
 * disk) is copied into <state>/in-force.d, laid out like the configuration
 * directory (watch.d/NAME.conf, wprobe.d/..., fuzz.d/...); at start-up
 * that directory is read back by the configuration's own loader, and only
 * what parses cleanly may stand in for a file that is bad when read.
 *
 * A set is written whole into in-force.d.tmp, fsynced, then swapped with
 * in-force.d by one renameat2(RENAME_EXCHANGE), so in-force.d is always a
 * whole set, the old one or the new one.  On a file system without the
 * exchange, in-force.d goes to in-force.d.old before the new set takes
 * its name, and a load finding no in-force.d reads in-force.d.old: a
 * whole set again.  in-force.d.tmp is never read.  A copy unchanged since
 * the last save is hard-linked from it, not written and fsynced again. */
#ifndef KW_INFORCE_H
#define KW_INFORCE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define KW_INFORCE_DIR "in-force.d"

/* The text of one version of a file, keyed by kind, name and hash. */
struct kw_text {
	enum kw_kind kind;
	char name[NAME_MAX + 1];
	uint64_t hash;
	char *text;
	size_t len;
};

/* The texts the daemon may have to save: those of the files in force,
 * and between a reload's read and its save those just read. */
struct kw_texts {
	struct kw_text *v;
	size_t n;
};

/* Keep a copy of text as the text of f (f->hash must be its hash:
 * -EINVAL otherwise); one already kept is not copied again. */
int kw_texts_add(struct kw_texts *t, const struct kw_file *f, const char *text, size_t len);
/* The text of f (same kind, name and hash), or NULL. */
const struct kw_text *kw_texts_find(const struct kw_texts *t, const struct kw_file *f);
/* Drop every text that is not that of a file of set. */
void kw_texts_keep(struct kw_texts *t, const struct kw_file *set, size_t n);
void kw_texts_free(struct kw_texts *t);

/* Save set as <state_dir>/in-force.d, whole or not at all.  A file whose
 * text is not in t, or whose name the loader would not read, is left out
 * with a warning. */
int kw_inforce_write(const char *state_dir, const struct kw_file *set, size_t n,
		     const struct kw_texts *t);
/* Read the set saved in state_dir with kw_config_load_texts(): none (0
 * files) if nothing was saved.  A saved copy that does not parse is left
 * out with a warning.  Each file's path is made that of its drop-in under
 * confdir; its text goes into texts. */
int kw_inforce_read(const char *state_dir, const char *confdir, struct kw_file **ret,
		    size_t *ret_n, struct kw_texts *texts);

/* The daemon's side, with the texts of its set in force (one daemon per
 * process).  kwd_lastgood_load(), declared in kwatchd.h, is here too. */
struct kwd;
/* kw_config_load() of the daemon's confdir, keeping the valid texts. */
int kwd_inforce_config_load(struct kwd *d, struct kw_file **ret, size_t *ret_n);
/* After an apply: forget the texts of files no longer in force and save
 * the set in force, if the daemon has a state directory. */
void kwd_inforce_save(struct kwd *d);
/* Forget all texts (nothing is in force). */
void kwd_inforce_forget(void);

#endif
