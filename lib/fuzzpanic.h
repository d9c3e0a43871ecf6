/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The input a generated or guided run had in flight when the kernel
 * panicked.  kfuzztest-bridge -P and kfuzztest-fuzz --pmsg write each
 * input to pstore's pmsg before its write, one line
 *
 *	kfuzztest-input BOOT PID TARGET NAME SEQ HEX
 *
 * ("... NAME end" when the run is over; HEX "-" for an input recorded by
 * its number only).  After the reboot, the previous boot's pmsg text and
 * the PID that the panic's report names tell which input it was.
 */
#ifndef KW_FUZZPANIC_H
#define KW_FUZZPANIC_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"

#define FUZZ_PMSG_TAG "kfuzztest-input"

struct fuzz_panic_input {
	char target[KW_NAME_MAX + 1];
	char name[NAME_MAX + 1];	/* the run's input file name (its blob) */
	unsigned long long seq;		/* the input's number in the run */
	unsigned char *data;		/* malloc'd; NULL when not recorded */
	size_t len;
};

/*
 * The task a report names ("CPU: 0 PID: 42 Comm: ..."), or -1.
 */
long fuzz_panic_pid(const char *report);

/*
 * The last line of @pmsg for @boot and @pid.  Returns 0 and fills @in
 * (free in->data), -E2BIG when the input was recorded by its number only
 * (in's names and seq are filled), -ENOENT when there is none or the run
 * had ended.  Lines that do not parse are skipped.
 */
int fuzz_panic_find(const char *pmsg, const char *boot, long pid, struct fuzz_panic_input *in);

/* Say in pmsg (@dev) that run @name of @target, process @pid, is over. */
void fuzz_pmsg_end(const char *dev, const char *boot, pid_t pid, const char *target,
		   const char *name);

#endif
