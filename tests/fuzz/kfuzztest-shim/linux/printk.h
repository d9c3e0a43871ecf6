/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SHIM_LINUX_PRINTK_H
#define SHIM_LINUX_PRINTK_H
#define EXPORT_SYMBOL_GPL(s)
#endif
