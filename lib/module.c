// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel module as a watch names it: see module.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <libkmod.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarfvars.h"
#include "module.h"
#include "util.h"

#define BUILD_ID_MAX	64	/* sha1 is 20 bytes; room for others */
#define NOTE_FILE_MAX	4096
/* /proc/kallsyms of a test kernel is about 10 MiB; a bound, not a guess. */
#define KALLSYMS_MAX	(256UL << 20)

void kw_module_vars_free(struct kw_module_vars *mv)
{
	kw_stackvars_free(&mv->sv);
	memset(mv, 0, sizeof(*mv));
}

int kw_module_name_of(const char *path, char *name, size_t n)
{
	const char *base = strrchr(path, '/'), *dot;
	size_t len, i;

	base = base ? base + 1 : path;
	dot = strstr(base, ".ko");
	if (!dot || dot == base || (dot[3] && dot[3] != '.'))
		return -EINVAL;
	len = dot - base;
	if (len > KW_MODULE_NAME_MAX || len >= n)
		return -ENAMETOOLONG;
	for (i = 0; i < len; i++)
		name[i] = base[i] == '-' ? '_' : base[i];
	name[len] = '\0';
	return kw_ident_ok(name, KW_MODULE_NAME_MAX, "") ? 0 : -EINVAL;
}

bool kw_module_live(const char *sysfs, const char *name)
{
	char path[256], *state = NULL;
	size_t len;
	bool live;

	snprintf(path, sizeof(path), "%s/%s/initstate", sysfs, name);
	if (kw_read_file(path, 64, &state, &len) < 0)
		return false;
	live = strncmp(state, "live", 4) == 0;
	free(state);
	return live;
}

/* Is @sym @func, or a gcc clone of it? */
static bool names(const char *sym, const char *func)
{
	return strcmp(sym, func) == 0 || kw_svar_clone_of(sym, func);
}

int kw_module_of_function(const char *kallsyms, const char *func, char *name, size_t n)
{
	_cleanup_free_ char *text = NULL;
	char *line, *save = NULL;
	size_t len;
	int r;

	*name = '\0';
	r = kw_read_file(kallsyms, KALLSYMS_MAX, &text, &len);
	if (r < 0)
		return r;
	/* "ADDR TYPE NAME\t[MODULE]": vmlinux's lines have no module. */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sym, *mod, *end;

		sym = strchr(line, ' ');
		if (!sym || !(sym = strchr(sym + 1, ' ')))
			continue;
		sym++;
		mod = strchr(sym, '\t');
		if (!mod)
			continue;
		*mod++ = '\0';
		if (!names(sym, func) || *mod != '[' || !(end = strchr(mod, ']')))
			continue;
		*end = '\0';
		return kw_strlcpy(name, mod + 1, n);
	}
	return 0;
}

int kw_module_find(const char *name, char *path, size_t n, char *why, size_t whylen)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod = NULL;
	const char *p;
	int r;

	ctx = kmod_new(NULL, NULL);
	if (!ctx) {
		snprintf(why, whylen, "libkmod: cannot read /lib/modules/ for this kernel");
		return -ENOMEM;
	}
	r = kmod_module_new_from_name_lookup(ctx, name, &mod);
	p = r == 0 && mod ? kmod_module_get_path(mod) : NULL;
	if (!p) {
		snprintf(why, whylen, "module %s is not under /lib/modules/ of this kernel "
			 "(modules.dep): give its file with module_path=", name);
		r = -ENOENT;
	} else {
		r = kw_strlcpy(path, p, n);
	}
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return r;
}

/* The GNU build id among the notes in @data (a module's note file, or an
 * ELF note section): its length, or 0. */
static size_t note_build_id(Elf_Data *data, unsigned char *id, size_t max)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 &&
		    nh.n_descsz && nh.n_descsz <= max) {
			memcpy(id, (char *)data->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

/* The build id of ELF file @path: its length, 0 if it has none, or -errno. */
static int file_build_id(const char *path, unsigned char *id, size_t max)
{
	_cleanup_close_ int fd = -1;
	Elf_Scn *scn = NULL;
	size_t len = 0;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return neg_errno();
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return -ENOEXEC;
	while (!len && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data)
			len = note_build_id(data, id, max);
	}
	elf_end(elf);
	return len;
}

/* The build id of loaded module @name, from its notes in sysfs. */
static int loaded_build_id(const char *sysfs, const char *name, unsigned char *id, size_t max)
{
	_cleanup_free_ char *buf = NULL;
	Elf_Data data = { .d_type = ELF_T_NHDR, .d_version = EV_CURRENT };
	char path[256];
	size_t len;
	int r;

	snprintf(path, sizeof(path), "%s/%s/notes/.note.gnu.build-id", sysfs, name);
	r = kw_read_file(path, NOTE_FILE_MAX, &buf, &len);
	if (r < 0)
		return r == -ENOENT ? 0 : r;
	elf_version(EV_CURRENT);
	data.d_buf = buf;
	data.d_size = len;
	data.d_align = 4;
	return note_build_id(&data, id, max);
}

static void hex(const unsigned char *id, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = '\0';
}

int kw_module_check_loaded(const char *sysfs, const char *name, const char *path, char *why,
			   size_t whylen)
{
	unsigned char a[BUILD_ID_MAX], b[BUILD_ID_MAX];
	char ha[2 * BUILD_ID_MAX + 1], hb[2 * BUILD_ID_MAX + 1];
	int la, lb;

	la = loaded_build_id(sysfs, name, a, sizeof(a));
	lb = file_build_id(path, b, sizeof(b));
	if (la <= 0 || lb <= 0)
		return 0;	/* nothing to compare: trust the name */
	if (la == lb && memcmp(a, b, la) == 0)
		return 0;
	hex(a, la, ha);
	hex(b, lb, hb);
	snprintf(why, whylen, "the loaded module %s (build id %.16s...) is not %s (build id %.16s...): "
		 "load that file, or give the one loaded with module_path=", name, ha, path, hb);
	return -ESTALE;
}

int kw_module_vars_load(struct kw_module_vars *mv, const char *path, char *why, size_t whylen)
{
	struct stat st;
	char err[512];
	int r;

	if (stat(path, &st) < 0) {
		r = neg_errno();
		snprintf(why, whylen, "module file %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "module file %s is not a regular file", path);
		return -EINVAL;
	}
	if (mv->read && strcmp(mv->path, path) == 0 && st.st_ino == mv->st.st_ino &&
	    st.st_dev == mv->st.st_dev && st.st_size == mv->st.st_size &&
	    st.st_mtim.tv_sec == mv->st.st_mtim.tv_sec && st.st_mtim.tv_nsec == mv->st.st_mtim.tv_nsec)
		return 0;
	kw_module_vars_free(mv);
	r = kw_dwarf_stackvars(path, NULL, &mv->sv, err, sizeof(err));
	if (r == -ENODATA) {
		snprintf(why, whylen, "%s has no debug information: build it with it (a kernel "
			 "with CONFIG_DEBUG_INFO builds its modules with -g; out of tree, add "
			 "'ccflags-y += -g' to its Kbuild)", path);
		kw_module_vars_free(mv);
		return r;
	}
	if (r < 0) {
		snprintf(why, whylen, "%s", err);
		kw_module_vars_free(mv);
		return r;
	}
	kw_stackvars_sort(&mv->sv);
	kw_strlcpy(mv->path, path, sizeof(mv->path));
	mv->st = st;
	mv->read = true;
	return 0;
}
