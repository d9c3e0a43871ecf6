/* SPDX-License-Identifier: GPL-2.0 */
/* The [fuzz] section of a fuzz.d file, with no daemon state: config.c's
 * drop-in parser calls these, and the daemon's fuzz source (kwatchd-fuzz.c)
 * runs what they read. */
#ifndef KW_FUZZ_CONFIG_H
#define KW_FUZZ_CONFIG_H

#include <stddef.h>

#include "config.h"

/* A fuzz.d file's values before its keys are read. */
void kw_fuzz_defaults(struct kw_fuzz *z);
/* One key of [fuzz] into *z: 0, or -EINVAL with why it is refused in @why. */
int kw_fuzz_key(struct kw_fuzz *z, const char *key, const char *v, char *why, size_t n);
/* The file as a whole, once its keys are read (@stem: its name without
 * .conf, '-' as '_', the target's when target= is not given): 0, or
 * -EINVAL with why in @why. */
int kw_fuzz_validate(struct kw_fuzz *z, const char *stem, char *why, size_t n);

#endif
