/* SPDX-License-Identifier: GPL-2.0 */
/* Module loads and unloads, as the kernel announces them (its uevents):
 * kwatchd-module.c follows them once a watch or a wprobe names a module's
 * function or symbol, and tells the watches (kwatchd-watch.c) and the
 * wprobes (kwatchd-wprobe.c). */
#ifndef KWATCHD_MODULE_H
#define KWATCHD_MODULE_H

#include <stdbool.h>

struct kwd;

/* Hear of module loads and unloads from now on; once.  Without them (no
 * netlink socket), a watch or wprobe on a module is armed or reported at
 * the next reload after its module is loaded, which the log says. */
void kwd_modules_follow(struct kwd *d);
void kwd_modules_stop(struct kwd *d);

/* What each object does when module @name is loaded (@loaded) or gone;
 * and the resync after lost uevents, each module looked at again. */
void kwd_watches_module(struct kwd *d, const char *name, bool loaded);
void kwd_watches_resync(struct kwd *d);
void kwd_wprobes_module(struct kwd *d, const char *name, bool loaded);
void kwd_wprobes_resync(struct kwd *d);

#endif
