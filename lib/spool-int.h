/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between spool.c (one blob at a time) and spool-batch.c. */
#ifndef KW_SPOOL_INT_H
#define KW_SPOOL_INT_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "spool.h"

bool spool_blob_name(const struct dirent *de);
/* The spool's own directories in its root, and temporary (dot) names. */
bool spool_not_queued(const char *name);
/* Why an entry of the queue is no blob, NULL if it is one. */
const char *spool_unfit_reason(mode_t m);
DIR *spool_opendir(struct spool *s, enum spool_state st, int *err);
int spool_move(struct spool *s, const char *name, enum spool_state a, enum spool_state b,
	       char *final, size_t n, bool sync);
/* Entry NAME of state @from, no blob, to rejected/ unread, with why. */
int spool_refuse_from(struct spool *s, enum spool_state from, const char *name, const char *why,
		      struct spool_result *ret);
/* spool_settle(), and for each of the @n entries just claimed (now in
 * inflight/) why it is to be refused (made in place, or not known whole),
 * NULL for a blob. */
int spool_settle_claimed(struct spool *s, char (*claimed)[NAME_MAX + 1], unsigned int n,
			 const char **why);
/* Close the input a batch kept open. */
void spool_input_close(struct spool *s);
/* spool_finish(), with @why (NULL: none) in the .errno of a rejected blob,
 * its syncs only when @sync (a batch syncs its directories once). */
int spool_finish_sync(struct spool *s, const char *name, int result, const char *why,
		      struct spool_result *ret, bool sync);
int spool_write_errno(struct spool *s, const char *final, int err, const char *why, bool sync);
/* The data of inflight/NAME on the disk (fdatasync()), if it is a regular
 * file; with @start, its write-back only started (a batch starts all its
 * blobs', then waits for each).  0 or -errno. */
int spool_sync_data(struct spool *s, const char *name, bool start);
/* fsync() the state directories marked in @changed[_SPOOL_STATE_MAX]. */
int spool_sync_dirs(struct spool *s, const bool *changed);
/* A pwrite() whole: 0, -errno, or -EIO when it is cut short. */
int spool_pwrite_all(int fd, const void *buf, size_t len, off_t off);
/* Settle what inflight/.progress and the previous boot's pmsg say about
 * the last batch: what ran leaves for done/ or rejected/ (cb), what never
 * ran goes back to the queue; the blob in flight is left in inflight/
 * for the caller to set aside. */
int spool_batch_recover(struct spool *s, bool prev_boot, const char *pmsg,
			void (*cb)(const struct spool_result *, void *), void *ud);

/* What a batch's or a pack's record says of one blob. */
enum spool_entry_state {
	ENTRY_CLAIMED,
	ENTRY_STARTED,		/* given to the kernel, no verdict yet */
	ENTRY_FINISHED,
	ENTRY_INTERRUPTED,	/* a pack's blob in flight, set aside by recovery */
	ENTRY_UNKNOWN,		/* a pack's blob that ran; its verdict died with the kernel */
};

struct spool_entry {
	int32_t state;
	int32_t result;
};

/* Entry @i (of the record whose entries start at @base in @fd) is now in
 * state @st, CLAIMED, STARTED or FINISHED (@result: its verdict); with @prev, entry i - 1's
 * verdict that waited for this start goes in the same pwrite() and pmsg
 * write.  Neither is synced while the spool has pmsg (the page cache
 * outlives the daemon, ramoops the kernel); without it a start is synced. */
int spool_record(struct spool *s, int fd, off_t base, uint64_t id, unsigned int i,
		 enum spool_entry_state st, int result, const int *prev);
/* The states the previous boot's pmsg lines give record @id's @n entries;
 * false when pmsg has no line of it. */
bool spool_pmsg_states(const char *pmsg, uint64_t id, struct spool_entry *e, unsigned int n);
/* Write @len bytes to the target's input, spool->repeat times: 0 or the
 * failure; *ours as spool_exec() says. */
int spool_write_blob(struct spool *s, const char *buf, size_t len, bool *ours);

/* The status's counts (spool_count()): the spool moved NAME (FINAL in
 * @b) from @a to @b; @st's directory changed otherwise (read it again). */
void spool_tally_move(struct spool *s, enum spool_state a, const char *name, enum spool_state b,
		      const char *final);
void spool_tally_stale(struct spool *s, enum spool_state st);

/* The queue's names (spool-queue.c). */
void spool_names_clear(struct spool_names *l);
/* Forget what was read of the queue: the next take reads it again. */
void spool_queue_reread(struct spool *s);
/* NAME came into the queue (an event of it read, or moved back there). */
void spool_queue_noted(struct spool *s, const char *name);
/* The smallest queued name of the loose entries (any type but a regular
 * pack) or of the packs (regular files), and its stat: 0, -ENOENT or
 * -errno. */
int spool_queue_next(struct spool *s, bool packs, char *name, size_t n, struct stat *st);
/* Up to @max regular loose entries, smallest first, into @names (*taken),
 * out of the list; entries that are no blob met on the way stay queued
 * and are counted in *unfit. */
int spool_queue_take(struct spool *s, char (*names)[NAME_MAX + 1], unsigned int max,
		     unsigned int *taken, unsigned int *unfit);

/* Packs (spool-pack.c). */
/* A pack that was in flight at the stop: the blob the kernel or the daemon
 * stopped in is set aside (cb), as interrupted/PACK#I; the pack stays in
 * inflight/ for spool_pack_resume(), and its name is put in @keep. */
int spool_pack_recover(struct spool *s, bool prev_boot, const char *pmsg,
		       void (*cb)(const struct spool_result *, void *), void *ud, char *keep,
		       size_t keep_len);

#endif
