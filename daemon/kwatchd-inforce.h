/* SPDX-License-Identifier: GPL-2.0 */
/* The set in force across restarts: the version in force of each drop-in
 * (which after a bad edit is older than the file on disk) is kept as a
 * copy under <state>/in-force, laid out like the configuration directory:
 *
 *	<state>/in-force/watch.d/NAME.conf
 *	<state>/in-force/wprobe.d/NAME.conf
 *	<state>/in-force/fuzz.d/NAME.conf
 *
 * At start-up that directory is read back by the configuration's own
 * loader (kw_config_load_texts()), and only a copy that parses cleanly may
 * stand in for a drop-in that is bad when read; its path is the drop-in's.
 *
 * Saves are incremental: after an apply only the copies whose version
 * (kind, name, hash of the text) differs from the one saved are written,
 * each to .in-force.tmp in its directory, fsynced and renamed over its
 * name; copies of files no longer in force are unlinked; the others are
 * not touched.  What is on disk is known from the load or the last save
 * (struct kw_inforce), so an apply neither reads nor lists the directory.
 * A save of many changes runs in slices, the loop free between them.
 * Each copy is whole: a crash (or a stop) in the middle of a save leaves
 * some copies of the set before the apply beside copies of the set after
 * it. */
#ifndef KW_INFORCE_H
#define KW_INFORCE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define KW_INFORCE_DIR "in-force"
/* At most this many copies are saved, and used at start-up. */
#define KW_INFORCE_FILES_MAX 1024

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

/* One entry of a kind directory under <state>/in-force. */
struct kw_copy {
	enum kw_kind kind;
	bool known;		/* hash is its text's; else it is rewritten or removed */
	uint64_t hash;
	char name[NAME_MAX + 1];
};

/* The copies on disk, as the load or the last save left them.  kind_fd
 * holds each kind directory the record is of open: while it is, no other
 * directory can take its inode number, so a directory made anew (the
 * state directory emptied, say) is told from it and listed again. */
struct kw_inforce {
	int kind_fd[_KW_KIND_MAX];	/* -1: not known, listed at the next save */
	struct kw_copy *v;		/* sorted by kind, then name */
	size_t n;
};

#define KW_INFORCE_INIT { .kind_fd = { [0 ... _KW_KIND_MAX - 1] = -1 } }

void kw_inforce_free(struct kw_inforce *s);
/* Save set (sorted by kind and name, as the set in force is) into
 * <state_dir>/in-force, writing only what differs from s and updating s
 * with what reached the disk: after an error, the next save writes what
 * this one did not.  A file whose text is not in t, whose name the loader
 * would not read, or past KW_INFORCE_FILES_MAX, is left out with a
 * warning (unless quiet).  A non-directory in the place of a directory,
 * or anything in the place of a copy, is replaced (a non-empty directory
 * is left, with a warning).  until (kw_now_usec(); 0: none): past it, a
 * save stops after its change in hand and returns 1, the rest left to the
 * next call (for this set or another). */
int kw_inforce_save(struct kw_inforce *s, const char *state_dir, const struct kw_file *set,
		    size_t n, const struct kw_texts *t, uint64_t until, bool quiet);
/* Read <state_dir>/in-force with kw_config_load_texts(): no file if none
 * was saved.  A copy that does not parse, or is not a regular file, is
 * left out with a warning.  Each file's path is made that of its drop-in
 * under confdir; its text goes into texts, and s records what is on disk.
 * The single file an older kwatchd saved the set in is not read: it is
 * removed and the directory made in its place. */
int kw_inforce_load(struct kw_inforce *s, const char *state_dir, const char *confdir,
		    struct kw_file **ret, size_t *ret_n, struct kw_texts *texts);

/* The daemon's side, with the texts of its set in force and the record of
 * its copies (one daemon per process).  kwd_lastgood_load(), declared in
 * kwatchd.h, is here too. */
struct kwd;
/* kw_config_load() of the daemon's confdir, keeping the valid texts. */
int kwd_inforce_config_load(struct kwd *d, struct kw_file **ret, size_t *ret_n);
/* After an apply: forget the texts of files no longer in force and save
 * the set in force, if the daemon has a state directory: 10 ms of it now
 * (one change at least), the rest in the next turns of the loop, the
 * outcome reported (kwd_state_saved()) once it is done or fails. */
void kwd_inforce_save(struct kwd *d);
/* A save goes on in the next turns. */
bool kwd_inforce_saving(void);
/* Forget all texts and the record of the copies (nothing is in force). */
void kwd_inforce_forget(void);

#endif
