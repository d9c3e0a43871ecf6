// SPDX-License-Identifier: GPL-2.0
/*
 * kfuzztest-list [--json] VMLINUX|MODULE.ko: list the KFuzzTest targets,
 * constraints and annotations recorded in a built vmlinux or in a
 * loadable module, as text or as JSON.
 *
 * In vmlinux the records lie between the linker symbols
 * __kfuzztest_{targets,constraints,annotations,simple_targets}_{start,end};
 * their string fields are pointers into vmlinux, resolved through the
 * section headers.  Record layouts (x86_64) follow
 * include/linux/kfuzztest.h:
 *	target:     name, arg_type_name, arg_size, run          (32 bytes)
 *	constraint: input_type, field_name, value1, value2, type (64 bytes)
 *	annotation: input_type, field_name, linked_field, attrib (32 bytes)
 *	simple:     name, run                                   (16 bytes)
 * A raw-buffer target (FUZZ_TEST_SIMPLE) is also a structured target of
 * its own struct kfuzztest_simple_arg_NAME; a kernel without them has no simple
 * section, which is not an error.
 *
 * A module (.ko, ELF ET_REL, x86_64) has no such symbols: its records are
 * the whole contents of the sections .kfuzztest_target,
 * .kfuzztest_constraint, .kfuzztest_annotation and
 * .kfuzztest_simple_target (a missing one holds none; a module without
 * .kfuzztest_target is an error).  Its pointer fields are 0 in the
 * section: each one's value is the R_X86_64_64 relocation at its offset
 * in the section's SHT_RELA section, a symbol and an addend; a field
 * without one is NULL.  The module's name is the name= of its .modinfo,
 * else the file's name without ".ko", '-' made '_'; its target lines end
 * in " module NAME" and its JSON objects have "module":"NAME".  Every read
 * of a module is bounded by its section.
 *
 * kfuzztest-list --check-syzkaller VMLINUX applies syzkaller's rules for
 * finding and describing targets (pkg/kfuzztest) to the records and their
 * structs' DWARF, and --syzlang VMLINUX prints the descriptions syzkaller
 * derives from them (kfuzztest-syz.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfuzztest-list.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum kind_id { TARGETS, CONSTRAINTS, ANNOTATIONS, SIMPLE };

/* A kind of record, where each kind of file keeps it. */
struct kind {
	enum kind_id id;
	const char *name;	/* vmlinux: __kfuzztest_<name>_{start,end} */
	const char *section;	/* a module: the section of the records */
	size_t size;		/* of a record */
};

static const struct kind kinds[] = {
	{ TARGETS, "targets", ".kfuzztest_target", 32 },
	{ CONSTRAINTS, "constraints", ".kfuzztest_constraint", 64 },
	{ ANNOTATIONS, "annotations", ".kfuzztest_annotation", 32 },
	{ SIMPLE, "simple_targets", ".kfuzztest_simple_target", 16 },
};

struct image;

/* The records of one kind in one file. */
struct records {
	struct image *im;
	const struct kind *kind;
	size_t n;		/* how many */
	uint64_t start;		/* vmlinux: the address of the first */
	Elf_Data *data;		/* a module: the section's contents */
	Elf_Data *rela;		/* a module: its relocations, or NULL */
	Elf_Data *syms;		/* a module: their symbol table */
};

/* How a kind of file gives its records: one implementation for each. */
struct image_ops {
	/* Find the records of @rs->kind and set @rs->n: 0 or -errno. */
	int (*find)(struct records *rs);
	/* Copy the bytes of record @i (< @rs->n) into @rec: 0 or -errno. */
	int (*record)(struct records *rs, size_t i, uint64_t *rec);
	/*
	 * Into @buf (@len bytes, cut to fit), the string that the pointer
	 * field at byte @off of record @i points at; "" for NULL.  @rec holds
	 * the record's bytes.  0 or -errno.
	 */
	int (*string)(struct records *rs, size_t i, size_t off,
		      const uint64_t *rec, char *buf, size_t len);
};

struct image {
	Elf *elf;
	int fd;
	const char *path;
	const struct image_ops *ops;
	size_t shstrndx;	/* a module: its section names */
	const char *module;	/* a module's name; NULL for vmlinux */
	char name[64];		/* where it is kept */
};

static const char *const constraint_names[] = {
	"EXPECT_EQ", "EXPECT_NE", "EXPECT_LT", "EXPECT_LE", "EXPECT_GT",
	"EXPECT_GE", "EXPECT_IN_RANGE",
};
static const char *const attrib_names[] = { "LEN", "STRING", "ARRAY" };

/* "PATH: message" on stderr; -EINVAL. */
static int __attribute__((format(printf, 2, 3)))
bad(struct image *im, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", im->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* --- vmlinux: records between linker symbols, pointers as addresses --- */

/* The value of symbol @name, or 0. */
static uint64_t symbol(struct image *im, const char *name)
{
	Elf_Scn *scn = NULL;
	const char *s;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	size_t i;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			if (!gelf_getsym(d, i, &sym))
				continue;
			s = elf_strptr(im->elf, sh.sh_link, sym.st_name);
			if (s && !strcmp(s, name))
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

/* The NUL-terminated string at @addr, in @buf ("" if none). */
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

static int vmlinux_find(struct records *rs)
{
	const struct kind *k = rs->kind;
	char sym[64];
	uint64_t end;

	snprintf(sym, sizeof(sym), "__kfuzztest_%s_start", k->name);
	rs->start = symbol(rs->im, sym);
	snprintf(sym, sizeof(sym), "__kfuzztest_%s_end", k->name);
	end = symbol(rs->im, sym);
	rs->n = 0;
	if (!rs->start || !end) {
		if (k->id == SIMPLE)
			return 0;
		fprintf(stderr, "no %s section: a kernel without CONFIG_KFUZZTEST?\n", k->name);
		return -ENOENT;
	}
	if (end > rs->start)
		rs->n = (end - rs->start) / k->size;
	return 0;
}

static int vmlinux_record(struct records *rs, size_t i, uint64_t *rec)
{
	size_t size = rs->kind->size;

	return read_at(rs->im, rs->start + i * size, rec, size) ? -EIO : 0;
}

static int vmlinux_string(struct records *rs, size_t i, size_t off,
			  const uint64_t *rec, char *buf, size_t len)
{
	(void)i;
	string_at(rs->im, rec[off / 8], buf, len);
	return 0;
}

static const struct image_ops vmlinux_ops = {
	.find = vmlinux_find,
	.record = vmlinux_record,
	.string = vmlinux_string,
};

/* --- a module: records in sections, pointers as relocations --- */

/* The section called @name, or NULL. */
static Elf_Scn *section_named(struct image *im, const char *name)
{
	Elf_Scn *scn = NULL;
	const char *s;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		s = elf_strptr(im->elf, im->shstrndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return scn;
	}
	return NULL;
}

/* The contents of @scn if it is of @type and in the file, else NULL. */
static Elf_Data *section_data(Elf_Scn *scn, Elf64_Word type)
{
	GElf_Shdr sh;
	Elf_Data *d;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type != type)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || (d->d_size && !d->d_buf))
		return NULL;
	return d;
}

static int module_find(struct records *rs)
{
	const struct kind *k = rs->kind;
	struct image *im = rs->im;
	Elf_Scn *scn, *rscn = NULL;
	GElf_Shdr sh;

	rs->n = 0;
	rs->rela = NULL;
	scn = section_named(im, k->section);
	if (!scn)
		return 0;
	rs->data = section_data(scn, SHT_PROGBITS);
	if (!rs->data)
		return bad(im, "%s: not a section of data in the file", k->section);
	if (rs->data->d_size % k->size)
		return bad(im, "%s: %zu bytes, not a whole number of %zu-byte records",
			   k->section, rs->data->d_size, k->size);
	rs->n = rs->data->d_size / k->size;

	while ((rscn = elf_nextscn(im->elf, rscn))) {
		if (gelf_getshdr(rscn, &sh) && sh.sh_type == SHT_RELA &&
		    sh.sh_info == elf_ndxscn(scn))
			break;
	}
	if (!rscn)
		return 0;
	rs->rela = section_data(rscn, SHT_RELA);
	rs->syms = section_data(elf_getscn(im->elf, sh.sh_link), SHT_SYMTAB);
	if (!rs->rela || !rs->syms)
		return bad(im, "%s: its relocations or their symbols are not in the file",
			   k->section);
	return 0;
}

static int module_record(struct records *rs, size_t i, uint64_t *rec)
{
	size_t size = rs->kind->size;

	memcpy(rec, (const char *)rs->data->d_buf + i * size, size);
	return 0;
}

/* The relocation at byte @at of the records' section, in @r: 0 if none. */
static int rela_at(struct records *rs, uint64_t at, GElf_Rela *r)
{
	int j;

	for (j = 0; rs->rela && gelf_getrela(rs->rela, j, r); j++) {
		if (r->r_offset == at)
			return 1;
	}
	return 0;
}

static int module_string(struct records *rs, size_t i, size_t off,
			 const uint64_t *rec, char *buf, size_t len)
{
	uint64_t at = i * rs->kind->size + off, o;
	const char *sec = rs->kind->section;
	struct image *im = rs->im;
	const char *p, *nul = NULL;
	GElf_Rela r;
	GElf_Sym s;
	Elf_Data *d = NULL;
	size_t n;

	(void)rec;
	buf[0] = '\0';
	if (!rela_at(rs, at, &r))
		return 0;	/* NULL */
	if (GELF_R_TYPE(r.r_info) != R_X86_64_64)
		return bad(im, "%s, byte %llu: a relocation of type %u, not R_X86_64_64",
			   sec, (unsigned long long)at, (unsigned int)GELF_R_TYPE(r.r_info));
	if (GELF_R_SYM(r.r_info) > INT_MAX || !gelf_getsym(rs->syms, GELF_R_SYM(r.r_info), &s))
		return bad(im, "%s, byte %llu: no symbol %u", sec, (unsigned long long)at,
			   (unsigned int)GELF_R_SYM(r.r_info));
	if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE)
		d = section_data(elf_getscn(im->elf, s.st_shndx), SHT_PROGBITS);
	if (!d)
		return bad(im, "%s, byte %llu: a pointer into no section of data",
			   sec, (unsigned long long)at);
	o = s.st_value + (uint64_t)r.r_addend;
	p = (const char *)d->d_buf;
	if (o < d->d_size) {
		p += o;
		nul = memchr(p, '\0', d->d_size - o);
	}
	if (!nul)
		return bad(im, "%s, byte %llu: no string within section %u at its byte %llu",
			   sec, (unsigned long long)at, (unsigned int)s.st_shndx,
			   (unsigned long long)o);
	n = (size_t)(nul - p) < len - 1 ? (size_t)(nul - p) : len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

static const struct image_ops module_ops = {
	.find = module_find,
	.record = module_record,
	.string = module_string,
};

/* Check a module and find its name; 0 or -errno. */
static int module_open(struct image *im)
{
	const char *p, *end, *nul, *base;
	GElf_Ehdr eh;
	Elf_Data *d;
	size_t n;
	char *c;

	if (!gelf_getehdr(im->elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		return bad(im, "not an x86_64 module");
	if (elf_getshdrnum(im->elf, &n) || !n)
		return bad(im, "no section headers in the file");
	if (elf_getshdrstrndx(im->elf, &im->shstrndx) || !im->shstrndx ||
	    im->shstrndx >= n)
		return bad(im, "no section names");
	if (!section_named(im, ".kfuzztest_target"))
		return bad(im, "no KFuzzTest targets in this module");

	im->module = im->name;
	d = section_data(section_named(im, ".modinfo"), SHT_PROGBITS);
	if (d && d->d_size) {
		p = d->d_buf;
		end = p + d->d_size;
		for (; p < end && (nul = memchr(p, '\0', end - p)); p = nul + 1) {
			if (!strncmp(p, "name=", 5) && p[5]) {
				snprintf(im->name, sizeof(im->name), "%s", p + 5);
				return 0;
			}
		}
	}
	base = strrchr(im->path, '/');
	base = base ? base + 1 : im->path;
	n = strlen(base);
	if (n > 3 && !strcmp(base + n - 3, ".ko"))
		n -= 3;
	if (n > sizeof(im->name) - 1)
		n = sizeof(im->name) - 1;
	memcpy(im->name, base, n);
	im->name[n] = '\0';
	for (c = im->name; (c = strchr(c, '-')); c++)
		*c = '_';
	return 0;
}

/* --- the records, as text or JSON --- */

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

/* The end of a JSON object: a module's records name it. */
static void json_end(struct image *im)
{
	if (im->module) {
		printf(",\"module\":");
		json_str(im->module);
	}
	putchar('}');
}

static int list(struct image *im, const struct kind *k, int json, int *first)
{
	struct records rs = { .im = im, .kind = k };
	char a[128], b[128], c[128];
	uint64_t rec[8];
	size_t i;
	int r;

	r = im->ops->find(&rs);
	if (r < 0)
		return r;
	for (i = 0; i < rs.n; i++) {
		r = im->ops->record(&rs, i, rec);
		if (!r)
			r = im->ops->string(&rs, i, 0, rec, a, sizeof(a));
		if (!r && k->id != SIMPLE)
			r = im->ops->string(&rs, i, 8, rec, b, sizeof(b));
		if (!r && k->id == ANNOTATIONS)
			r = im->ops->string(&rs, i, 16, rec, c, sizeof(c));
		if (r < 0)
			return r;
		switch (k->id) {
		case SIMPLE:
			if (json) {
				printf("%s\n  {\"kind\":\"simple\",\"name\":", *first ? "" : ",");
				json_str(a);
				json_end(im);
			} else {
				printf("simple %s\n", a);
			}
			break;
		case TARGETS:
			if (json) {
				printf("%s\n  {\"kind\":\"target\",\"name\":", *first ? "" : ",");
				json_str(a);
				printf(",\"arg_type\":");
				json_str(b);
				printf(",\"arg_size\":%llu", (unsigned long long)rec[2]);
				json_end(im);
			} else {
				printf("target %s %s (%llu bytes)", a, b, (unsigned long long)rec[2]);
				if (im->module)
					printf(" module %s", im->module);
				putchar('\n');
			}
			break;
		case CONSTRAINTS: {
			uint32_t t = (uint32_t)rec[4];
			const char *tn = t < 7 ? constraint_names[t] : "?";

			if (json) {
				printf("%s\n  {\"kind\":\"constraint\",\"type\":", *first ? "" : ",");
				json_str(a);
				printf(",\"field\":");
				json_str(b);
				printf(",\"op\":\"%s\",\"value1\":%llu,\"value2\":%llu", tn,
				       (unsigned long long)rec[2], (unsigned long long)rec[3]);
				json_end(im);
			} else {
				printf("constraint %s.%s %s %llu %llu\n", a, b, tn,
				       (unsigned long long)rec[2], (unsigned long long)rec[3]);
			}
			break;
		}
		case ANNOTATIONS: {
			uint32_t t = (uint32_t)rec[3];
			const char *tn = t < 3 ? attrib_names[t] : "?";

			if (json) {
				printf("%s\n  {\"kind\":\"annotation\",\"type\":", *first ? "" : ",");
				json_str(a);
				printf(",\"field\":");
				json_str(b);
				printf(",\"attribute\":\"%s\",\"linked_field\":", tn);
				json_str(c);
				json_end(im);
			} else {
				printf("annotation %s.%s %s%s%s\n", a, b, tn, c[0] ? " " : "", c);
			}
			break;
		}
		}
		*first = 0;
	}
	return 0;
}

/* --- the records for kfuzztest-syz.c --- */

static void problem(struct kft_records *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void problem(struct kft_records *r, const char *fmt, ...)
{
	size_t len = r->problems ? strlen(r->problems) : 0;
	char line[512];
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	p = realloc(r->problems, len + strlen(line) + 2);
	if (!p)
		return;
	r->problems = p;
	sprintf(p + len, "%s\n", line);
	r->n_problems++;
}

/*
 * syzkaller reads each record string as the 128 bytes at its address in
 * the first section that holds the address: NULL is read from whatever
 * section holds address 0, and a string in the last 127 bytes of its
 * section, or longer than 127 bytes, fails the whole extraction.
 */
static const char *syz_string_problem(struct image *im, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	char buf[KFT_STR];

	if (!addr)
		return "NULL, not a string (syzkaller reads a string there)";
	while ((scn = elf_nextscn(im->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || addr < sh.sh_addr || addr >= sh.sh_addr + sh.sh_size)
			continue;
		if (addr + KFT_STR > sh.sh_addr + sh.sh_size)
			return "in the last 127 bytes of its section (syzkaller reads 128)";
		if (read_at(im, addr, buf, sizeof(buf)) || !memchr(buf, '\0', sizeof(buf)))
			return "not a string of at most 127 bytes";
		return NULL;
	}
	return "in no section";
}

static int collect(struct image *im, struct kft_records *r)
{
	static const char *const what[] = { "target", "constraint", "annotation" };
	static const char *const fields[][3] = {
		{ "name", "arg_type_name", NULL },
		{ "input_type", "field_name", NULL },
		{ "input_type", "field_name", "linked_field_name" },
	};
	char s[3][KFT_STR];
	uint64_t rec[8];
	size_t k, i, f;
	int ret;

	for (k = 0; k < 3; k++) {
		struct records rs = { .im = im, .kind = &kinds[k] };
		const char *why;

		ret = im->ops->find(&rs);
		if (ret < 0)
			return ret;
		for (i = 0; i < rs.n; i++) {
			ret = im->ops->record(&rs, i, rec);
			for (f = 0; !ret && f < 3; f++) {
				s[f][0] = '\0';
				if (fields[k][f])
					ret = im->ops->string(&rs, i, 8 * f, rec, s[f], KFT_STR);
			}
			if (ret < 0)
				return ret;
			for (f = 0; f < 3; f++) {
				why = fields[k][f] ? syz_string_problem(im, rec[f]) : NULL;
				if (why)
					problem(r, "%s %s%s%s: its %s is %s", what[k],
						s[0], k ? "." : "", k ? s[1] : "",
						fields[k][f], why);
			}
			if (k == TARGETS) {
				struct kft_target *t = realloc(r->t, (r->n_t + 1) * sizeof(*t));

				if (!t)
					return -ENOMEM;
				r->t = t;
				t += r->n_t++;
				memcpy(t->name, s[0], KFT_STR);
				memcpy(t->type, s[1], KFT_STR);
				t->size = rec[2];
			} else if (k == CONSTRAINTS) {
				struct kft_constraint *c = realloc(r->c, (r->n_c + 1) * sizeof(*c));

				if (!c)
					return -ENOMEM;
				r->c = c;
				c += r->n_c++;
				memcpy(c->type, s[0], KFT_STR);
				memcpy(c->field, s[1], KFT_STR);
				c->value1 = rec[2];
				c->value2 = rec[3];
				c->op = (uint32_t)rec[4];
			} else {
				struct kft_annotation *a = realloc(r->a, (r->n_a + 1) * sizeof(*a));

				if (!a)
					return -ENOMEM;
				r->a = a;
				a += r->n_a++;
				memcpy(a->type, s[0], KFT_STR);
				memcpy(a->field, s[1], KFT_STR);
				memcpy(a->linked, s[2], KFT_STR);
				a->attrib = (uint32_t)rec[3];
			}
		}
	}
	return 0;
}

static int syz_mode(struct image *im, int lang)
{
	struct kft_records r = { 0 };
	int ret;

	if (im->module) {
		fprintf(stderr, "%s: syzkaller reads the targets of vmlinux only\n", im->path);
		return 1;
	}
	ret = collect(im, &r);
	if (!ret)
		ret = lang ? kft_syz_lang(im->path, &r) : kft_syz_check(im->path, &r);
	free(r.t);
	free(r.c);
	free(r.a);
	free(r.problems);
	if (ret < 0)
		return 1;
	return ret ? 3 : 0;
}

int main(int argc, char **argv)
{
	struct image im = { .fd = -1, .ops = &vmlinux_ops };
	int json = 0, first = 1, r = 1, syz = 0;
	GElf_Ehdr eh;
	size_t k;

	if (argc == 3 && !strcmp(argv[1], "--json"))
		json = 1;
	else if (argc == 3 && !strcmp(argv[1], "--check-syzkaller"))
		syz = 1;
	else if (argc == 3 && !strcmp(argv[1], "--syzlang"))
		syz = 2;
	else if (argc != 2)
		goto usage;
	im.path = argv[argc - 1];

	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	im.fd = open(im.path, O_RDONLY | O_CLOEXEC);
	if (im.fd < 0) {
		fprintf(stderr, "%s: %s\n", im.path, strerror(errno));
		goto out;
	}
	im.elf = elf_begin(im.fd, ELF_C_READ, NULL);
	if (!im.elf || elf_kind(im.elf) != ELF_K_ELF) {
		fprintf(stderr, "%s: not an ELF file\n", im.path);
		goto out;
	}
	if (gelf_getehdr(im.elf, &eh) && eh.e_type == ET_REL) {
		im.ops = &module_ops;
		if (module_open(&im) < 0)
			goto out;
	}
	if (syz) {
		r = syz_mode(&im, syz == 2);
		goto out;
	}
	if (json)
		printf("[");
	for (k = 0; k < ARRAY_SIZE(kinds); k++) {
		if (list(&im, &kinds[k], json, &first) < 0)
			goto out;
	}
	if (json)
		printf("\n]\n");
	r = 0;
out:
	if (im.elf)
		elf_end(im.elf);
	if (im.fd >= 0)
		close(im.fd);
	return r;
usage:
	fprintf(stderr, "Usage: %s [--json] VMLINUX|MODULE.ko\n"
		"       %s --check-syzkaller|--syzlang VMLINUX\n", argv[0], argv[0]);
	return 2;
}
