/* SPDX-License-Identifier: GPL-2.0 */
/* The harness records every range the parser poisons. */
#ifndef SHIM_LINUX_KASAN_H
#define SHIM_LINUX_KASAN_H
#include <stddef.h>
int kasan_poison_range(const void *addr, size_t size);
#endif
