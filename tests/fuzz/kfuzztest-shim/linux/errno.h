/* SPDX-License-Identifier: GPL-2.0 */
/* What the parser returns; the system errno.h reaches this file too. */
#ifndef SHIM_LINUX_ERRNO_H
#define SHIM_LINUX_ERRNO_H
#include <asm-generic/errno.h>
#endif
