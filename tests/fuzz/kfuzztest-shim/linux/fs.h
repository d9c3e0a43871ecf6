/* SPDX-License-Identifier: GPL-2.0 */
/* Nothing of linux/fs.h is needed on the host. */
