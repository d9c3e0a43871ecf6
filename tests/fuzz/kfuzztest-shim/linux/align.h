/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_ALIGN_H
#define SHIM_LINUX_ALIGN_H
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)
#endif
