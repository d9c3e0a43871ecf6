/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The harness records every range the parser poisons.  Built with
 * CONFIG_KASAN and SHIM_GRANULE, it stands for a KASAN whose granule is
 * SHIM_GRANULE bytes (16: the tag-based modes), which x86 has not.
 */
#ifndef SHIM_LINUX_KASAN_H
#define SHIM_LINUX_KASAN_H
#include <stddef.h>
#ifdef CONFIG_KASAN
#define KASAN_GRANULE_SIZE	((size_t)SHIM_GRANULE)
#endif
int kasan_poison_range(const void *addr, size_t size);
#endif
