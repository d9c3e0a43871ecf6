/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parser warns where nothing may fail any more (the poisoning of a
 * checked input): on the host, that is a bug the harness stops at.
 */
#ifndef SHIM_LINUX_BUG_H
#define SHIM_LINUX_BUG_H
#include <stdlib.h>
#define WARN_ON_ONCE(cond)	((cond) ? (abort(), 1) : 0)
#endif
