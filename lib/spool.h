/* SPDX-License-Identifier: GPL-2.0 */
/* The fuzz spool of one target.  The producer protocol, as maildir's: a
 * blob is written under <dir>/tmp/ (or under a name starting with '.') and
 * renamed into <dir>/ when it is whole.  Only a rename (or a hard link of a
 * finished file) queues a blob: a file created in <dir>/ itself could be
 * read half-written, so it is refused at once (its IN_CREATE read, or its
 * claim, whichever comes first: spool_settle(); after an inotify overflow
 * lost the events, a file written since the last ones read is refused
 * too, as not known whole), as is any entry that is not
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
#define SPOOL_UNSURE "queued while the spool's inotify queue overflowed, and written since: " \
	"not known to be whole; rename it in again"

enum spool_state {
	SPOOL_QUEUED,
	SPOOL_INFLIGHT,
	SPOOL_DONE,
	SPOOL_REJECTED,
	SPOOL_INTERRUPTED,
	_SPOOL_STATE_MAX,
};

extern const char *const spool_dir_name[_SPOOL_STATE_MAX];

struct spool_result;

/* Names of queued entries, sorted, smallest first ([pos, n)): what the
 * spool takes next, read from the queue once, not at each blob
 * (spool-queue.c).  At most SPOOL_NAMES_MAX are held: every queued name
 * below the last one held is in it (those renamed in since as their
 * events are read); @whole: every queued name is. */
#define SPOOL_NAMES_MAX 4096
struct spool_names {
	char **name;
	unsigned int pos, n;
	bool whole;
};

/* A directory's count for the status (spool_count()). */
struct spool_tally {
	long n;
	int64_t at;			/* CLOCK_MONOTONIC ns of its read; 0: none */
	bool stale;			/* changed by others since */
};

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
	/* Why the last spool_exec() refused its blob unread (no regular
	 * file: swapped in between the scan and the claim), else NULL. */
	const char *unfit;
	/* The queue's inotify (IN_CREATE, IN_MOVED_TO), read by every claim
	 * (spool_settle()): what was made in place is told from what was
	 * renamed in whatever order the loop sees the events and the scan. */
	int ino_fd;
	int64_t settled_ns;		/* CLOCK_REALTIME of the last read that lost none */
	/* Called for each entry refused as made in place by a settle that is
	 * not the claim of that entry (NULL: none). */
	void (*on_refused)(const struct spool_result *res, void *ud);
	void *refused_ud;
	/* The queue's loose entries (any name) and its packs (pack names). */
	struct spool_names loose, packs;
	struct spool_tally tally[_SPOOL_STATE_MAX];
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
	/* A blob of a pack: name is PACK#INDEX, and final_name the pack's
	 * name in done/ (the blob set aside by recovery: its own file's in
	 * interrupted/). */
	bool packed;
	unsigned int index;
};

/* Batches: up to SPOOL_BATCH_MAX blobs claimed with one round of syncs
 * (each blob's data, the record, the two directories: not the whole file
 * system), written one by one, and moved on with one more (the
 * directories whose entries changed).  Which blob is
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

/* A spool that holds nothing (every descriptor -1): spool_close() on it
 * closes nothing.  spool_open*() start with it. */
void spool_init(struct spool *s);
int spool_open(struct spool *s, const char *dir, const char *input, unsigned int repeat);
/* The same, for a spool that producers of @group ((gid_t)-1: none) may
 * write.  A spool (or one of its directories) not owned by the daemon's
 * user, writable by others, or group-writable other than by @group with
 * the sticky bit is -EPERM, with why. */
int spool_open_group(struct spool *s, const char *dir, const char *input, unsigned int repeat,
		     gid_t group, char *why, size_t why_len);
void spool_close(struct spool *s);

/* Move every blob found in inflight/ to interrupted/, and anything there
 * that is no regular file to rejected/ (with why); calls cb for each.
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
/* Read the queue's inotify events (s->ino_fd): a regular file made in the
 * queue, not renamed or linked in, is refused as written in place
 * (s->on_refused); after an overflow, so is one written since the last
 * events read.  0 or -errno. */
int spool_settle(struct spool *s);
/* spool_claim(), then settled: 0 (a blob), 1 (made in place, or not known
 * whole: refused, *ret filled) or -errno (*ret->moved: refused, its
 * .errno not written). */
int spool_claim_blob(struct spool *s, const char *name, struct spool_result *ret);
/* Put a claimed blob back in the queue, as if never claimed (under a free
 * name if one of its name was queued meanwhile). */
int spool_unclaim(struct spool *s, const char *name);
/* Write the claimed blob; returns 0 or a negative errno; an entry that is
 * no regular file (swapped in before the claim) is -EINVAL, never opened
 * for long nor followed, and s->unfit says why.  *ours is set
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
 * first, with one round of syncs: 0 and b->n claimed, or -errno.  *unfit
 * counts the entries that are no blob met on the way (spool_next() and
 * spool_refuse() handle those). */
int spool_batch_claim(struct spool *s, struct spool_batch *b, unsigned int max,
		      unsigned int *unfit);
/* Blob i of the batch goes to the kernel now: recorded, then written. */
int spool_batch_exec(struct spool *s, struct spool_batch *b, unsigned int i, bool *ours);
/* Move what ran to done/ or rejected/, what did not back to the queue,
 * and sync the directories once.  On failure call it again: it goes on from where it
 * stopped.  b->res[0..ran) then say where each went. */
int spool_batch_finish(struct spool *s, struct spool_batch *b);
/* The previous boot's pmsg text (pstore), for spool_recover(); NULL if
 * none.  malloc'ed. */
char *spool_pmsg_read(const char *pstore_dirs);

/*
 * Packs: many blobs in one spooled file, for producers that make inputs
 * faster than a file each can be moved (a rename or unlink costs as much
 * as some thirty writes of a small input).  A queued regular file whose
 * name ends in SPOOL_PACK_SUFFIX is a pack: SPOOL_PACK_MAGIC, then for each
 * blob its length (le32, 1 to KW_BLOB_MAX) and its bytes; at most
 * SPOOL_PACK_BLOBS blobs and SPOOL_PACK_BYTES in all.  It is queued as a
 * blob is (written under tmp/, renamed in) and claimed with one rename and
 * one round of syncs (its data, inflight/.pack, the two directories);
 * each blob's start and verdict are recorded as a batch's are
 * (inflight/.pack and pmsg, neither synced), so that after a daemon kill
 * or a kernel crash the blob in flight is set aside, as
 * interrupted/PACK#INDEX, and the pack goes on after it; a finished pack
 * moves to done/, its verdicts in done/PACK.results ("INDEX SIZE RESULT"
 * lines).  A pack that is not well formed is rejected whole, unrun, with
 * the first fault in its .errno.
 */
#define SPOOL_PACK_SUFFIX ".kwpack"
#define SPOOL_PACK_MAGIC "KWPACK01"
#define SPOOL_PACK_BLOBS 4096
#define SPOOL_PACK_BYTES (64 << 20)
#define SPOOL_PACK_RESULTS ".results"

struct spool_pack {
	char name[NAME_MAX + 1];	/* "": no pack in flight */
	uint64_t id;			/* random, in every record of it */
	unsigned int n;			/* its blobs */
	unsigned int next;		/* the next to run */
	bool unrecorded;		/* next - 1's verdict waits for the next start */
	int fd;				/* inflight/.pack */
	char *data;			/* the whole pack */
	size_t len;
	uint32_t off[SPOOL_PACK_BLOBS];
	uint32_t size[SPOOL_PACK_BLOBS];
	int32_t state[SPOOL_PACK_BLOBS];	/* enum spool_entry_state */
	int32_t result[SPOOL_PACK_BLOBS];
	char final_name[NAME_MAX + 1];	/* in done/, once moved */
	bool moved;
};

/* NAME is a pack's (by its suffix). */
bool spool_pack_name(const char *name);
/* The blobs of a pack's bytes: 0 and *n, off[] and size[] filled, or
 * -EINVAL/-E2BIG with why (the first fault, where it is). */
int spool_pack_parse(const char *data, size_t len, uint32_t *off, uint32_t *size,
		     unsigned int *n, char *why, size_t why_len);
/* Smallest queued pack name; -ENOENT when there is none. */
int spool_pack_next(struct spool *s, char *name, size_t n);
/* Claim pack NAME: 0 (p holds it, recorded and synced), 1 (not well
 * formed: rejected unrun, *rej says where and why) or -errno (left
 * queued; -ENOENT: taken back by its producer). */
int spool_pack_claim(struct spool *s, struct spool_pack *p, const char *name,
		     struct spool_result *rej);
/* A pack recovery left in inflight/: 1 (p holds it, p->next the blob to
 * go on with), 0 (none) or -errno. */
int spool_pack_resume(struct spool *s, struct spool_pack *p);
/* Blob p->next goes to the kernel: recorded, then written.  Its verdict,
 * or a failure of ours (*ours; the blob stays next, retried later). */
int spool_pack_exec(struct spool *s, struct spool_pack *p, bool *ours);
/* All blobs ran: the pack to done/, its verdicts in PACK.results, synced;
 * again after a failure.  *res describes the pack; spool_pack_blob()
 * each of its blobs. */
int spool_pack_finish(struct spool *s, struct spool_pack *p, struct spool_result *res);
/* Blob i's result, after spool_pack_finish(): false if it has none to
 * report (set aside at recovery, or its verdict lost with the kernel). */
bool spool_pack_blob(const struct spool_pack *p, unsigned int i, struct spool_result *res);
/* Put the pack down (its last verdict recorded): it stays in inflight/,
 * for spool_pack_resume() when the spool opens again. */
void spool_pack_release(struct spool *s, struct spool_pack *p);

/* Count the files in a state's directory (status): read from the
 * directory at most once a second, and followed meanwhile through the
 * spool's own moves; what others change (a producer's rename into the
 * queue, its events read) within a tenth of a second, a file removed by
 * hand within the second.  -errno when it cannot be read. */
long spool_count(struct spool *s, enum spool_state st);

#endif
