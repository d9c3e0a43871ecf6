/* SPDX-License-Identifier: GPL-2.0 */
/* The set in force across restarts: after each apply, the text of every
 * file in force (the version in force, which after a bad edit is older
 * than the file on disk) is saved to <state>/in-force; at start-up each
 * saved text is parsed again like a drop-in file, and only what parses
 * cleanly may stand in for a file that is bad when read.
 *
 * The file, all of it or nothing:
 *
 *	kwatchd-in-force 1\n
 *	file KIND LEN NAME\n		KIND: watch, wprobe or fuzz
 *	path PATH\n			PATH: the file's path, ending in /NAME
 *	LEN bytes of text\n
 *	... one such record per file ...
 *	end\n
 *
 * LEN is decimal, at most KW_CONF_MAX.  NAME and PATH run to the end of
 * their line and hold no control character; NAME is a drop-in name (no
 * '/', no leading '.', ending in .conf).  The text is any bytes. */
#ifndef KW_INFORCE_H
#define KW_INFORCE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define KW_INFORCE_MAGIC "kwatchd-in-force 1\n"
#define KW_INFORCE_FILES_MAX 1024
/* No valid in-force file is longer. */
#define KW_INFORCE_SIZE_MAX \
	(KW_INFORCE_FILES_MAX * (size_t)(KW_CONF_MAX + NAME_MAX + PATH_MAX + 32))

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

/* The in-force file for set, in a malloc'ed buffer.  A file whose text is
 * not in t, or whose name or path the format cannot hold, is left out
 * with a warning. */
int kw_inforce_format(const struct kw_file *set, size_t n, const struct kw_texts *t,
		      char **ret, size_t *ret_len);
/* Read an in-force file: -EBADMSG for anything but the format above, as
 * a whole.  Each record's text is parsed as its kind's drop-in: one that
 * does not parse cleanly is left out with a warning.  The set (sorted as
 * saved) goes to *ret, and the text of each file of it into texts. */
int kw_inforce_parse(const char *buf, size_t len, struct kw_file **ret, size_t *ret_n,
		     struct kw_texts *texts);

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
