/* SPDX-License-Identifier: GPL-2.0 */
/* Shared between spool.c (one blob at a time) and spool-batch.c. */
#ifndef KW_SPOOL_INT_H
#define KW_SPOOL_INT_H

#include <dirent.h>
#include <stdbool.h>
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
/* Close the input a batch kept open. */
void spool_input_close(struct spool *s);
/* spool_finish(), its syncs only when @sync (a batch syncs once). */
int spool_finish_sync(struct spool *s, const char *name, int result, struct spool_result *ret,
		      bool sync);
int spool_write_errno(struct spool *s, const char *final, int err, const char *why, bool sync);
/* Settle what inflight/.progress and the previous boot's pmsg say about
 * the last batch: what ran leaves for done/ or rejected/ (cb), what never
 * ran goes back to the queue; the blob in flight is left in inflight/
 * for the caller to set aside. */
int spool_batch_recover(struct spool *s, bool prev_boot, const char *pmsg,
			void (*cb)(const struct spool_result *, void *), void *ud);

#endif
