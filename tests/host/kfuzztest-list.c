// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzztest-list [--json] VMLINUX: list the KFuzzTest targets, constraints
 * and annotations recorded in a built vmlinux, as text or as JSON.
 *
 * The records lie between the linker symbols __kfuzztest_{targets,
 * constraints,annotations}_{start,end}; their string fields are pointers
 * into vmlinux, resolved through the section headers.  Record layouts
 * (x86_64) follow include/linux/kfuzztest.h:
 *	target:     name, arg_type_name, arg_size, run          (32 bytes)
 *	constraint: input_type, field_name, value1, value2, type (64 bytes)
 *	annotation: input_type, field_name, linked_field, attrib (32 bytes)
 *	simple:     name, run                                   (16 bytes)
 * A raw-buffer target (FUZZ_TEST_SIMPLE) is also a structured target of
 * struct kfuzztest_simple_arg; a kernel without them has no simple
 * section, which is not an error.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct image {
	Elf *elf;
	int fd;
};

static const char *const constraint_names[] = {
	"EXPECT_EQ", "EXPECT_NE", "EXPECT_LT", "EXPECT_LE", "EXPECT_GT",
	"EXPECT_GE", "EXPECT_IN_RANGE",
};
static const char *const attrib_names[] = { "LEN", "STRING", "ARRAY" };

/* The value of symbol @name, or 0. */
static uint64_t symbol(struct image *im, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			if (gelf_getsym(d, i, &sym) &&
			    !strcmp(elf_strptr(im->elf, sh.sh_link, sym.st_name), name))
				return sym.st_value;
		}
	}
	return 0;
}

/* Copy @len bytes at virtual address @addr; 0 on success. */
static int read_at(struct image *im, uint64_t addr, void *buf, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		if (addr < sh.sh_addr || addr + len > sh.sh_addr + sh.sh_size)
			continue;
		if (pread(im->fd, buf, len, sh.sh_offset + (addr - sh.sh_addr)) != (ssize_t)len)
			return -EIO;
		return 0;
	}
	return -ENOENT;
}

/* The NUL-terminated string at @addr, in a static buffer ("" if none). */
static const char *string_at(struct image *im, uint64_t addr, char *buf, size_t len)
{
	size_t i;

	buf[0] = '\0';
	if (!addr)
		return buf;
	for (i = 0; i + 1 < len; i++) {
		if (read_at(im, addr + i, &buf[i], 1) || !buf[i])
			break;
	}
	buf[i] = '\0';
	return buf;
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

static int list(struct image *im, const char *kind, size_t size, int json, int *first)
{
	char sym[64], a[128], b[128], c[128];
	uint64_t start, end, at, rec[8];
	int n = 0;

	snprintf(sym, sizeof(sym), "__kfuzztest_%s_start", kind);
	start = symbol(im, sym);
	snprintf(sym, sizeof(sym), "__kfuzztest_%s_end", kind);
	end = symbol(im, sym);
	if (!start || !end) {
		if (!strcmp(kind, "simple_targets"))
			return 0;
		fprintf(stderr, "no %s section: a kernel without CONFIG_KFUZZTEST?\n", kind);
		return -ENOENT;
	}
	for (at = start; at + size <= end; at += size, n++) {
		if (read_at(im, at, rec, size))
			return -EIO;
		string_at(im, rec[0], a, sizeof(a));
		string_at(im, rec[1], b, sizeof(b));
		if (!strcmp(kind, "simple_targets")) {
			if (json) {
				printf("%s\n  {\"kind\":\"simple\",\"name\":", *first ? "" : ",");
				json_str(a);
				putchar('}');
			} else {
				printf("simple %s\n", a);
			}
		} else if (!strcmp(kind, "targets")) {
			if (json) {
				printf("%s\n  {\"kind\":\"target\",\"name\":", *first ? "" : ",");
				json_str(a);
				printf(",\"arg_type\":");
				json_str(b);
				printf(",\"arg_size\":%llu}", (unsigned long long)rec[2]);
			} else {
				printf("target %s %s (%llu bytes)\n", a, b, (unsigned long long)rec[2]);
			}
		} else if (!strcmp(kind, "constraints")) {
			uint32_t t = (uint32_t)rec[4];
			const char *tn = t < 7 ? constraint_names[t] : "?";

			if (json) {
				printf("%s\n  {\"kind\":\"constraint\",\"type\":", *first ? "" : ",");
				json_str(a);
				printf(",\"field\":");
				json_str(b);
				printf(",\"op\":\"%s\",\"value1\":%llu,\"value2\":%llu}", tn,
				       (unsigned long long)rec[2], (unsigned long long)rec[3]);
			} else {
				printf("constraint %s.%s %s %llu %llu\n", a, b, tn,
				       (unsigned long long)rec[2], (unsigned long long)rec[3]);
			}
		} else {
			uint32_t t = (uint32_t)rec[3];
			const char *tn = t < 3 ? attrib_names[t] : "?";

			string_at(im, rec[2], c, sizeof(c));
			if (json) {
				printf("%s\n  {\"kind\":\"annotation\",\"type\":", *first ? "" : ",");
				json_str(a);
				printf(",\"field\":");
				json_str(b);
				printf(",\"attribute\":\"%s\",\"linked_field\":", tn);
				json_str(c);
				putchar('}');
			} else {
				printf("annotation %s.%s %s%s%s\n", a, b, tn, c[0] ? " " : "", c);
			}
		}
		*first = 0;
	}
	return n;
}

int main(int argc, char **argv)
{
	struct image im = { .fd = -1 };
	int json = 0, first = 1, r = 1;
	const char *path;

	if (argc == 3 && !strcmp(argv[1], "--json"))
		json = 1;
	else if (argc != 2)
		goto usage;
	path = argv[argc - 1];

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	im.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (im.fd < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	im.elf = elf_begin(im.fd, ELF_C_READ, NULL);
	if (!im.elf || elf_kind(im.elf) != ELF_K_ELF) {
		fprintf(stderr, "%s: not an ELF file\n", path);
		goto out;
	}
	if (json)
		printf("[");
	if (list(&im, "targets", 32, json, &first) < 0 ||
	    list(&im, "constraints", 64, json, &first) < 0 ||
	    list(&im, "annotations", 32, json, &first) < 0 ||
	    list(&im, "simple_targets", 16, json, &first) < 0)
		goto out;
	if (json)
		printf("\n]\n");
	r = 0;
out:
	if (im.elf)
		elf_end(im.elf);
	close(im.fd);
	return r;
usage:
	fprintf(stderr, "Usage: %s [--json] VMLINUX\n", argv[0]);
	return 2;
}
