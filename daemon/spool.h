/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzz spool of one target.  The producer protocol, as maildir's: a
 * blob is written under <dir>/tmp/ (or under a name starting with '.') and
 * renamed into <dir>/ when it is whole.  Only a rename (or a hard link of a
 * finished file) queues a blob: a file created in <dir>/ itself could be
 * read half-written, so it is refused at once, as is any entry that is not
 * a regular file (a directory, symlink, FIFO, socket or device); both move
 * to rejected/ with a NAME.errno saying why.  Four subdirectories record
 * where each blob is in its life:
 *
 *   <dir>/NAME --claim--> inflight/NAME --write--> done/NAME
 *                                               \-> rejected/NAME (+ NAME.errno)
 *   inflight/NAME found at start-up --recover--> interrupted/NAME
 *
 * Each move is a rename followed by an fsync of both directories, and a
 * blob's data is fsynced before it is written to the kernel, so after a
 * daemon kill or a kernel crash a blob is in exactly one place, whole:
 * never lost, and never replayed twice without a record.  Batches
 * (spool-batch.c, below) keep the same promises at a sync per batch.  <dir>/.boot
 * holds the boot id of the last recovery, so that recovery tells a blob
 * claimed in an earlier boot (the kernel died in its write) from one of
 * this boot (the daemon died).  The blob is written to
 * the target's input file in one write() on a fresh fd (KFuzzTest reads
 * one input per write and rejects a non-zero offset).  Files already in
 * <dir>/ when the spool opens are taken as whole: nobody saw them made. */
#ifndef KW_SPOOL_H
#define KW_SPOOL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define KW_BLOB_MAX (1 << 20)
/* Where producers write blobs before renaming them into the spool. */
#define SPOOL_TMP "tmp"
#define SPOOL_IN_PLACE "written in place: write it in tmp/, then rename it into the spool"

enum spool_state {
	SPOOL_QUEUED,
	SPOOL_INFLIGHT,
	SPOOL_DONE,
	SPOOL_REJECTED,
	SPOOL_INTERRUPTED,
	_SPOOL_STATE_MAX,
};

extern const char *const spool_dir_name[_SPOOL_STATE_MAX];

struct spool {
	char dir[PATH_MAX];
	char input[PATH_MAX];		/* <kfuzztest>/<target>/input */
	int fd[_SPOOL_STATE_MAX];	/* directory fds */
	unsigned int repeat;
	uint64_t count[_SPOOL_STATE_MAX];	/* moves into each state since open */
	/* Batches (spool_batch_enable()): inflight/.progress, and the pmsg
	 * device that outlives a kernel crash; -1 when not batching. */
	int prog_fd, pmsg_fd;
	bool synced;			/* the blobs claimed are on disk already */
	/* In a batch, a debugfs input is opened once and written at offset
	 * 0 for each blob (KFuzzTest takes an input per write and leaves
	 * the offset alone): 1 kept in input_fd, -1 not a debugfs file (a
	 * fresh open each time), 0 not known yet. */
	int input_fd, input_kept;
};


struct spool_result {
	char name[NAME_MAX + 1];
	enum spool_state state;		/* DONE, REJECTED or INTERRUPTED */
	int err;			/* the write's negative errno when REJECTED */
	size_t size;
	char final_name[NAME_MAX + 1];	/* its name in done/, rejected/, ... */
	bool prev_boot;			/* INTERRUPTED: claimed in an earlier boot */
	char why[96];			/* REJECTED unread: why it is no blob */
	bool moved;			/* in its final directory (finish) */
};

/* Batches: up to SPOOL_BATCH_MAX blobs claimed with one sync of the file
 * system, written one by one, and moved on with one more.  Which blob is
 * in flight is recorded without a sync: in inflight/.progress (the page
 * cache outlives the daemon) and in pstore's pmsg (ramoops memory
 * outlives the kernel), each record naming the batch, so that recovery
 * sets aside the blob in flight, moves on those that ran and queues again
 * those that never did: the guarantees of one blob at a time. */
#define SPOOL_BATCH_MAX 256
#define SPOOL_PROGRESS ".progress"
#define SPOOL_PMSG_TAG "kwatchd-spool"

struct spool_batch {
	uint64_t id;			/* random, in every record of it */
	unsigned int n;			/* claimed */
	unsigned int ran;		/* written to the kernel (results known) */
	unsigned int moved;		/* moved on by spool_batch_finish() */
	bool unrecorded;		/* the last verdict waits for the next start */
	char name[SPOOL_BATCH_MAX][NAME_MAX + 1];
	int result[SPOOL_BATCH_MAX];
	size_t size[SPOOL_BATCH_MAX];
	struct spool_result res[SPOOL_BATCH_MAX];	/* of the moved */
};

int spool_open(struct spool *s, const char *dir, const char *input, unsigned int repeat);
/* The same, for a spool that producers of @group ((gid_t)-1: none) may
 * write.  A spool (or one of its directories) not owned by the daemon's
 * user, writable by others, or group-writable other than by @group with
 * the sticky bit is -EPERM, with why. */
int spool_open_group(struct spool *s, const char *dir, const char *input, unsigned int repeat,
		     gid_t group, char *why, size_t why_len);
void spool_close(struct spool *s);

/* Move every blob found in inflight/ to interrupted/; calls cb for each.
 * boot_id (NULL: not known) is this boot's, kept in <dir>/.boot. */
int spool_recover(struct spool *s, const char *boot_id,
		  void (*cb)(const struct spool_result *, void *), void *ud);
/* The same, with the previous boot's pmsg text (spool_pmsg_read(); NULL:
 * none), which tells which blob of a batch the kernel died in. */
int spool_recover_pmsg(struct spool *s, const char *boot_id, const char *pmsg,
		       void (*cb)(const struct spool_result *, void *), void *ud);

/* Smallest queued entry name, -ENOENT when there is none.  *unfit is NULL
 * for a blob, else why the entry can never be replayed (for spool_refuse). */
int spool_next(struct spool *s, char *name, size_t n, const char **unfit);
/* Move a queued entry that is no blob to rejected/, unread, with why. */
int spool_refuse(struct spool *s, const char *name, const char *why, struct spool_result *ret);
/* NAME was just created in the queue directory (inotify IN_CREATE): a
 * regular file made there, not renamed or linked in, is refused as written
 * in place.  Returns 1 (refused, *ret filled), 0 (not for us), or -errno. */
int spool_created(struct spool *s, const char *name, struct spool_result *ret);
int spool_claim(struct spool *s, const char *name);
/* Put a claimed blob back in the queue, as if never claimed. */
int spool_unclaim(struct spool *s, const char *name);
/* Write the claimed blob; returns 0 or a negative errno.  *ours is set
 * when the failure is the daemon's own (no descriptor, no memory, a disk
 * error reading the blob), not the kernel's verdict on the blob: such a
 * blob is not to be rejected but retried. */
int spool_exec(struct spool *s, const char *name, size_t *ret_size, bool *ours);
/* Move a claimed blob to done/ or rejected/ (+ NAME.errno).  On failure
 * *ret says how far it got (moved); spool_finish_again() completes it. */
int spool_finish(struct spool *s, const char *name, int result, struct spool_result *ret);
int spool_finish_again(struct spool *s, struct spool_result *ret);
/* Keep at most @keep entries in a state's directory: the oldest moved in
 * go (with their .errno); *removed says how many, *left (NULL: not
 * wanted) how many stay. */
int spool_prune(struct spool *s, enum spool_state st, unsigned int keep, unsigned int *removed,
		unsigned int *left);

/* next + claim + exec + finish: -ENOENT when the spool is empty; a
 * failure of the daemon's own puts the blob back and is returned. */
int spool_step(struct spool *s, struct spool_result *ret);
/* Batch the spool from now on: @pmsg is the pmsg device (/dev/pmsg0).
 * -errno (and no batches) when it or inflight/.progress cannot be opened. */
int spool_batch_enable(struct spool *s, const char *pmsg);
/* Claim up to @max (<= SPOOL_BATCH_MAX) queued blobs, smallest names
 * first, in one scan of the queue and one sync: 0 and b->n claimed, or
 * -errno.  *unfit counts entries that are no blob (spool_next() and
 * spool_refuse() handle those). */
int spool_batch_claim(struct spool *s, struct spool_batch *b, unsigned int max,
		      unsigned int *unfit);
/* Blob i of the batch goes to the kernel now: recorded, then written. */
int spool_batch_exec(struct spool *s, struct spool_batch *b, unsigned int i, bool *ours);
/* Move what ran to done/ or rejected/, what did not back to the queue,
 * and sync once.  On failure call it again: it goes on from where it
 * stopped.  b->res[0..ran) then say where each went. */
int spool_batch_finish(struct spool *s, struct spool_batch *b);
/* The previous boot's pmsg text (pstore), for spool_recover(); NULL if
 * none.  malloc'ed. */
char *spool_pmsg_read(const char *pstore_dirs);

/* Count the files in a state's directory (status). */
long spool_count(struct spool *s, enum spool_state st);

#endif
