/* SPDX-License-Identifier: GPL-2.0 */
/* Host shim: what lib/kfuzztest/parse.c needs of the kernel's headers. */
#ifndef SHIM_LINUX_COMPILER_H
#define SHIM_LINUX_COMPILER_H
#define __section(s)	__attribute__((__section__(s)))
#define __used		__attribute__((__used__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#endif
