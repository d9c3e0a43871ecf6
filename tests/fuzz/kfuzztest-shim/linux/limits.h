/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_LIMITS_H
#define SHIM_LINUX_LIMITS_H
#include <stdint.h>
#define U32_MAX		UINT32_MAX
#define PAGE_SIZE	4096UL
#endif
