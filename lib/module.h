/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel module as a watch names it (module.c): its name, whether it is
 * loaded, the file it was built as, and the stack variables of that file's
 * DWARF, for the functions of a developer's own module, which the index
 * made at image build time does not hold.
 *
 * The file is the watch's module_path=, or the one the module's name has
 * under /lib/modules/$(uname -r)/ (libkmod, modules.dep).  A loaded module
 * is checked against it by their GNU build ids (the module's
 * /sys/module/NAME/notes/.note.gnu.build-id), so that a module rebuilt
 * but not reloaded is not watched at the new build's offsets.
 */
#ifndef KW_MODULE_H
#define KW_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "stackvars.h"

#define KW_MODULE_NAME_MAX	55	/* MODULE_NAME_LEN - 1 */

/* The stack variables of one module file, read once per version of it. */
struct kw_module_vars {
	char path[4096];
	struct stat st;			/* of the version read */
	struct kw_stackvars sv;
	bool read;
};

void kw_module_vars_free(struct kw_module_vars *mv);

/* A module's name as the kernel has it, from its file's name:
 * "/x/my-mod.ko" is my_mod.  -EINVAL if @path names no .ko file. */
int kw_module_name_of(const char *path, char *name, size_t n);

#define KW_SYSFS_MODULE "/sys/module"

/* The module is loaded and live (its init has run); /sys/module/ can be
 * given another root for the host tests. */
bool kw_module_live(const char *sysfs, const char *name);

/* The module of the loaded function @func (or of its gcc clone) from
 * /proc/kallsyms ("" if vmlinux's or not loaded): 0, or -errno. */
int kw_module_of_function(const char *kallsyms, const char *func, char *name, size_t n);

/* The file of module @name under /lib/modules/$(uname -r)/, by libkmod:
 * 0, -ENOENT (none), or -errno; @why says which. */
int kw_module_find(const char *name, char *path, size_t n, char *why, size_t whylen);

/* The loaded module @name is the file @path (their build ids are equal,
 * or one of them has none): 0, or -ESTALE with a sentence in @why. */
int kw_module_check_loaded(const char *sysfs, const char *name, const char *path, char *why,
			   size_t whylen);

/* The stack variables of @path's functions, read again only when the
 * file changed: 0, or -errno with a sentence in @why (-ENODATA: the file
 * has no debug information, and how to build it with it). */
int kw_module_vars_load(struct kw_module_vars *mv, const char *path, char *why, size_t whylen);

#endif
