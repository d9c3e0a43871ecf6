/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_MINMAX_H
#define SHIM_LINUX_MINMAX_H
#define max_t(type, a, b)	((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#endif
