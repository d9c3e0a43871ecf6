// SPDX-License-Identifier: GPL-2.0
/*
 * syzkaller's view of a vmlinux's KFuzzTest targets: its rules for finding
 * them (google/syzkaller pkg/kfuzztest: extractor.go, builder.go) checked,
 * and the syzlang descriptions it derives from them printed.
 *
 * syzkaller takes each target's argument struct from the DWARF by name
 * ("struct TAG" in the target record), every named struct entry of that
 * name, definitions and declarations alike: a struct defined in a header
 * and used by two compilation units is emitted twice, and its syzlang
 * compiler refuses the redeclaration (discovery aborts for every target).
 * Fewer structs than targets (two targets of one struct) is its
 * "inconsistent KFuzzTest metadata".  An annotation replaces a field's
 * type (LEN: len[LINKED, intN]; STRING: ptr[in, string]; ARRAY: ptr[in,
 * array[ELEM]]); an unannotated pointer is ptr[in, ELEM], one element, so
 * a buffer without ARRAY is one byte long.  Constraints give the ranges
 * of unannotated integer fields.  Embedded structs, unions, enums, bools,
 * floats and bitfields it lays out wrongly or refuses.
 *
 * The struct entries are looked for among the compilation units' own
 * children (where gcc puts a file's types), each a name asked for: the
 * targets' structs, then the structs their pointers reach.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kfuzztest-list.h"

#define MEMBERS_MAX 64
#define STRUCTS_MAX 256

enum mkind {
	M_INT,		/* an integer of @size bytes */
	M_PTR,		/* a pointer to an integer of @elem bytes, or to void (0) */
	M_PTR_STRUCT,	/* a pointer to struct @ref */
	M_ARRAY,	/* @count integers of @elem bytes */
	M_BAD,		/* what syzkaller cannot describe: @why */
};

struct member {
	char name[KFT_STR];
	enum mkind kind;
	unsigned int size, elem;
	uint64_t count;
	char ref[KFT_STR];
	const char *why;
};

struct kstruct {
	char name[KFT_STR];
	unsigned int defs, decls;	/* named entries in the DWARF */
	uint64_t size;
	struct member m[MEMBERS_MAX];
	size_t n_m;
	bool too_many;			/* members past MEMBERS_MAX */
	bool reached;			/* a struct's pointer points at it */
	bool parsed;
};

struct dwarf_view {
	struct kstruct s[STRUCTS_MAX];
	size_t n;
	bool too_many;			/* structs past STRUCTS_MAX */
};

/* What peel() went through on its way to a type. */
#define Q_TYPEDEF	0x1
#define Q_VOLATILE	0x2
#define Q_RESTRICT	0x4

static struct kstruct *find_struct(struct dwarf_view *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->s[i].name, name))
			return &v->s[i];
	return NULL;
}

static struct kstruct *want_struct(struct dwarf_view *v, const char *name)
{
	struct kstruct *s = find_struct(v, name);

	if (s)
		return s;
	if (v->n == STRUCTS_MAX) {
		v->too_many = true;
		return NULL;
	}
	s = &v->s[v->n++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	return s;
}

/* @die's type with typedefs and qualifiers peeled; false if none (void).
 * *@q gets what was peeled (Q_*). */
static bool peel(Dwarf_Die *die, Dwarf_Die *out, unsigned int *q)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *die;

	*q = 0;
	for (;;) {
		if (!dwarf_attr_integrate(&cur, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return false;
		switch (dwarf_tag(out)) {
		case DW_TAG_typedef:
			*q |= Q_TYPEDEF;
			cur = *out;
			continue;
		case DW_TAG_volatile_type:
			*q |= Q_VOLATILE;
			cur = *out;
			continue;
		case DW_TAG_restrict_type:
			*q |= Q_RESTRICT;
			cur = *out;
			continue;
		case DW_TAG_const_type:
		case DW_TAG_atomic_type:
			cur = *out;
			continue;
		default:
			return true;
		}
	}
}

static unsigned int int_size(Dwarf_Die *t, const char **why)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;

	if (dwarf_tag(t) == DW_TAG_enumeration_type) {
		*why = "an enum";
		return 0;
	}
	if (dwarf_tag(t) != DW_TAG_base_type) {
		*why = "not an integer";
		return 0;
	}
	if (dwarf_attr(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &enc);
	if (enc == DW_ATE_boolean) {
		*why = "a bool";
		return 0;
	}
	if (enc == DW_ATE_float) {
		*why = "a float";
		return 0;
	}
	return dwarf_bytesize(t) > 0 ? (unsigned int)dwarf_bytesize(t) : 0;
}

static void parse_member(struct dwarf_view *v, Dwarf_Die *md, struct member *m)
{
	Dwarf_Die t, p, sub;
	Dwarf_Attribute a;
	Dwarf_Word n;
	unsigned int q, pq;
	struct kstruct *ref;
	const char *name = dwarf_diename(md);

	snprintf(m->name, sizeof(m->name), "%s", name ? name : "");
	m->kind = M_BAD;
	m->why = NULL;
	if (dwarf_hasattr(md, DW_AT_bit_size)) {
		m->why = "a bitfield";
		return;
	}
	if (!peel(md, &t, &q)) {
		m->why = "no type";
		return;
	}
	if (q & (Q_VOLATILE | Q_RESTRICT)) {
		m->why = q & Q_VOLATILE ? "volatile" : "restrict";
		return;
	}
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
		m->size = 8;
		if (!peel(&t, &p, &pq)) {
			m->kind = M_PTR;	/* void * */
			m->elem = 0;
			return;
		}
		if (pq & Q_VOLATILE) {
			m->why = "a pointer to volatile";
			return;
		}
		if (dwarf_tag(&p) == DW_TAG_structure_type && (pq & Q_TYPEDEF)) {
			m->why = "a pointer to a typedef of a struct (syzkaller follows struct TAG only)";
			return;
		}
		if (dwarf_tag(&p) == DW_TAG_structure_type && dwarf_diename(&p)) {
			snprintf(m->ref, sizeof(m->ref), "%s", dwarf_diename(&p));
			ref = want_struct(v, m->ref);
			if (!ref) {
				m->why = "past the structs this check follows";
				return;
			}
			ref->reached = true;
			m->kind = M_PTR_STRUCT;
			return;
		}
		if (dwarf_tag(&p) == DW_TAG_subroutine_type) {
			m->why = "a function pointer";
			return;
		}
		m->elem = int_size(&p, &m->why);
		if (m->elem)
			m->kind = M_PTR;
		else if (dwarf_tag(&p) == DW_TAG_pointer_type)
			m->why = "a pointer to a pointer";
		return;
	case DW_TAG_array_type:
		if (!peel(&t, &p, &pq) || !(m->elem = int_size(&p, &m->why)))
			return;
		if (dwarf_child(&t, &sub) || dwarf_tag(&sub) != DW_TAG_subrange_type) {
			m->why = "an array without bounds";
			return;
		}
		if (dwarf_siblingof(&sub, &sub) == 0) {
			m->why = "an array of arrays";
			return;
		}
		dwarf_child(&t, &sub);
		if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &n) == 0)
			m->count = n + 1;
		else if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
			m->count = n;
		else
			m->count = 0;
		if (!m->count) {
			m->why = "a flexible array";
			return;
		}
		m->kind = M_ARRAY;
		return;
	case DW_TAG_structure_type:
		m->why = "a struct embedded by value (syzkaller lays its fields out after the ones that follow it)";
		return;
	case DW_TAG_union_type:
		m->why = "a union";
		return;
	default:
		m->size = int_size(&t, &m->why);
		if (m->size)
			m->kind = M_INT;
	}
}

static void parse_struct(struct dwarf_view *v, struct kstruct *s, Dwarf_Die *die)
{
	Dwarf_Die c;

	s->size = dwarf_bytesize(die) > 0 ? (uint64_t)dwarf_bytesize(die) : 0;
	s->parsed = true;
	if (dwarf_child(die, &c))
		return;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (s->n_m == MEMBERS_MAX) {
			s->too_many = true;
			continue;
		}
		parse_member(v, &c, &s->m[s->n_m++]);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* One walk over the compilation units' children: count and parse the
 * structs asked for and not looked for yet (from @from on). */
static void scan(Dwarf *dw, struct dwarf_view *v, size_t from)
{
	Dwarf_Off off = 0, next;
	size_t hsize, i, upto = v->n;
	Dwarf_Die cu, c;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &c) == 0) {
			do {
				const char *name;
				struct kstruct *s = NULL;

				if (dwarf_tag(&c) != DW_TAG_structure_type || !(name = dwarf_diename(&c)))
					continue;
				for (i = from; i < upto; i++)
					if (!strcmp(v->s[i].name, name)) {
						s = &v->s[i];
						break;
					}
				if (!s)
					continue;
				if (dwarf_hasattr(&c, DW_AT_declaration)) {
					s->decls++;
					continue;
				}
				if (!s->defs++)
					parse_struct(v, s, &c);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		off = next;
	}
}

static int load(const char *path, const struct kft_records *r, struct dwarf_view *v)
{
	size_t i, from = 0;
	Dwarf *dw;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		fprintf(stderr, "%s: no DWARF (%s): syzkaller needs vmlinux's debug information\n",
			path, dwarf_errmsg(-1));
		close(fd);
		return -EINVAL;
	}
	v->n = 0;
	for (i = 0; i < r->n_t; i++)
		if (!strncmp(r->t[i].type, "struct ", 7))
			want_struct(v, r->t[i].type + 7);
	/* The targets' structs, then those their pointers reach, and so on. */
	while (from < v->n) {
		size_t upto = v->n;

		scan(dw, v, from);
		from = upto;
	}
	dwarf_end(dw);
	close(fd);
	return 0;
}

/* The structs of @r's targets and those they reach, from @path's DWARF,
 * in *@v (freed by the caller); -errno. */
static int view_of(const char *path, const struct kft_records *r, struct dwarf_view **v)
{
	int ret;

	*v = calloc(1, sizeof(**v));
	if (!*v)
		return -ENOMEM;
	ret = load(path, r, *v);
	if (ret < 0) {
		free(*v);
		*v = NULL;
	}
	return ret;
}

/* A record's input type @type ("struct TAG") names struct @tag. */
static bool of_struct(const char *type, const char *tag)
{
	return !strncmp(type, "struct ", 7) && !strcmp(type + 7, tag);
}

static const struct kft_annotation *annotation(const struct kft_records *r, const char *tag,
					       const char *field, int attrib)
{
	size_t i;

	for (i = 0; i < r->n_a; i++)
		if (of_struct(r->a[i].type, tag) &&
		    !strcmp(r->a[i].field, field) && (attrib < 0 || (int)r->a[i].attrib == attrib))
			return &r->a[i];
	return NULL;
}

/* The LEN annotation whose linked field is @field. */
static const struct kft_annotation *len_of(const struct kft_records *r, const char *tag,
					   const char *field)
{
	size_t i;

	for (i = 0; i < r->n_a; i++)
		if (of_struct(r->a[i].type, tag) &&
		    r->a[i].attrib == KFT_LEN && !strcmp(r->a[i].linked, field))
			return &r->a[i];
	return NULL;
}

static const struct member *member(const struct kstruct *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n_m; i++)
		if (!strcmp(s->m[i].name, name))
			return &s->m[i];
	return NULL;
}

static int broken;

static void __attribute__((format(printf, 1, 2))) rule(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	broken++;
}

/* The rules for struct @s, of target @t (@top), or reached from one
 * through a pointer (syzkaller emits those once, whatever the DWARF). */
static void check_struct(const struct kft_records *r, const struct kstruct *s, const char *t,
			 bool top)
{
	const struct kft_annotation *a;
	size_t i;

	if (!s->defs && !s->decls) {
		rule("%s: struct %s is not in the DWARF", t, s->name);
		return;
	}
	if (top && s->reached)
		rule("%s: struct %s is a target's and a pointer of a target's struct points at "
		     "it: syzkaller emits it twice", t, s->name);
	if (s->too_many)
		rule("%s: struct %s has more than %d members, which this check does not read", t,
		     s->name, MEMBERS_MAX);
	if (top && s->defs + s->decls > 1)
		rule("%s: struct %s is in the DWARF %u times (%u definitions, %u declarations): "
		     "syzkaller emits each and its compiler refuses the redeclaration; define it "
		     "once, in the target's .c file", t, s->name, s->defs + s->decls, s->defs,
		     s->decls);
	if (!s->defs) {
		rule("%s: struct %s is only declared in the DWARF", t, s->name);
		return;
	}
	for (i = 0; i < s->n_m; i++) {
		const struct member *m = &s->m[i];

		if (m->kind == M_BAD) {
			rule("%s: struct %s.%s is %s", t, s->name, m->name, m->why);
			continue;
		}
		if (m->kind != M_PTR)
			continue;
		if (annotation(r, s->name, m->name, KFT_STRING))
			continue;
		/* A pointer to one value (u64 *) is fine; bytes, or counted, are a buffer. */
		if (m->elem > 1 && !len_of(r, s->name, m->name) &&
		    !annotation(r, s->name, m->name, KFT_ARRAY))
			continue;
		if (!annotation(r, s->name, m->name, KFT_ARRAY)) {
			rule("%s: struct %s.%s points at a buffer and has no KFUZZTEST_ANNOTATE_ARRAY: "
			     "syzkaller describes it as one %s", t, s->name, m->name,
			     m->elem ? "element" : "byte");
			continue;
		}
		if (!m->elem)
			rule("%s: struct %s.%s is an array of void: give its elements a type (u8)",
			     t, s->name, m->name);
		if (!len_of(r, s->name, m->name))
			rule("%s: struct %s.%s is an array with no length field "
			     "(KFUZZTEST_ANNOTATE_LEN or KFUZZTEST_CHECK_LEN naming it)", t, s->name,
			     m->name);
	}
	for (i = 0; i < r->n_a; i++) {
		const struct member *f, *l;

		a = &r->a[i];
		if (!of_struct(a->type, s->name))
			continue;
		f = member(s, a->field);
		if (!f) {
			rule("%s: an annotation names %s.%s, which struct %s lacks", t, a->type,
			     a->field, s->name);
			continue;
		}
		if (a->attrib != KFT_LEN) {
			if (f->kind != M_PTR)
				rule("%s: struct %s.%s is annotated as an array or string but is not a "
				     "pointer to integers", t, s->name, a->field);
			continue;
		}
		l = member(s, a->linked);
		if (f->kind != M_INT)
			rule("%s: struct %s.%s is the length of %s but is not an integer", t, s->name,
			     a->field, a->linked);
		if (!l || (l->kind != M_PTR && l->kind != M_PTR_STRUCT))
			rule("%s: struct %s.%s is the length of '%s', not a pointer of the struct", t,
			     s->name, a->field, a->linked);
	}
	for (i = 0; i < r->n_c; i++) {
		const struct kft_constraint *c = &r->c[i];

		if (of_struct(c->type, s->name) &&
		    !member(s, c->field))
			rule("%s: a constraint names %s.%s, which struct %s lacks", t, c->type,
			     c->field, s->name);
	}
}

int kft_syz_check(const char *path, const struct kft_records *r)
{
	struct dwarf_view *v;
	const char *p, *nl;
	size_t i, j;
	int ret;

	ret = view_of(path, r, &v);
	if (ret < 0)
		return ret;
	broken = 0;
	for (p = r->problems; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		rule("%.*s", (int)(nl - p), p);
	}
	for (i = 0; i < r->n_t; i++) {
		const struct kft_target *t = &r->t[i];
		struct kstruct *s;

		if (strncmp(t->type, "struct ", 7)) {
			rule("%s: its argument type '%s' is not 'struct TAG': syzkaller looks "
			     "structs up by their tag", t->name, t->type);
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(r->t[j].type, t->type))
				rule("%s: shares %s with %s: syzkaller needs a struct of its own for "
				     "each target (\"inconsistent KFuzzTest metadata\")", t->name,
				     t->type, r->t[j].name);
		s = find_struct(v, t->type + 7);
		if (!s)
			continue;
		if (s->defs && s->size != t->size)
			rule("%s: %s is %" PRIu64 " bytes in the DWARF, %" PRIu64 " in the record",
			     t->name, t->type, s->size, t->size);
		check_struct(r, s, t->name, true);
	}
	/* The structs the targets' pointers reach. */
	for (i = 0; i < v->n; i++) {
		bool top = false;

		for (j = 0; j < r->n_t; j++)
			top |= !strcmp(r->t[j].type + 7, v->s[i].name);
		if (!top)
			check_struct(r, &v->s[i], "(reached by a pointer)", false);
	}
	if (v->too_many)
		rule("more than %d structs reached: the rest were not checked", STRUCTS_MAX);
	printf("%s: %zu targets, %zu structs, %zu constraints, %zu annotations: %d of "
	       "syzkaller's rules broken\n", path, r->n_t, v->n, r->n_c, r->n_a, broken);
	ret = broken;
	free(v);
	return ret;
}

/* --- the descriptions, as syzkaller's builder writes them --- */

static void int_type(char *buf, size_t n, unsigned int size)
{
	snprintf(buf, n, "int%u", size * 8);
}

/* An unannotated integer's range from its constraints, as the builder. */
static void range(const struct kft_records *r, const char *tag, const char *field, char *buf,
		  size_t n)
{
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < r->n_c; i++) {
		const struct kft_constraint *c = &r->c[i];

		if (!of_struct(c->type, tag) ||
		    strcmp(c->field, field))
			continue;
		switch (c->op) {
		case KFT_EQ:
		case KFT_GE:
			snprintf(buf, n, "[%" PRIu64 "]", c->value1);
			break;
		case KFT_LT:
			snprintf(buf, n, "[0:%" PRIu64 "]", c->value1 ? c->value1 - 1 : 0);
			break;
		case KFT_LE:
			snprintf(buf, n, "[0:%" PRIu64 "]", c->value1);
			break;
		case KFT_GT:
			snprintf(buf, n, "[%" PRIu64 "]", c->value1 + 1);
			break;
		case KFT_IN_RANGE:
			snprintf(buf, n, "[%" PRIu64 ":%" PRIu64 "]", c->value1, c->value2);
			break;
		}
	}
}

/*
 * An array's element count from its length field's constraints (", LO:HI"),
 * which syzkaller's own builder leaves out: its generated inputs then have
 * the lengths the target accepts.  "" when unbounded or beyond a whole
 * input (64 KiB).
 */
static const char *array_range(const struct kft_records *r, const char *tag, const char *field,
			       char *buf, size_t n)
{
	const struct kft_annotation *len = len_of(r, tag, field);
	uint64_t lo = 0, hi = UINT64_MAX;
	size_t i;

	buf[0] = '\0';
	for (i = 0; len && i < r->n_c; i++) {
		const struct kft_constraint *c = &r->c[i];

		if (!of_struct(c->type, tag) ||
		    strcmp(c->field, len->field))
			continue;
		switch (c->op) {
		case KFT_EQ:
			lo = hi = c->value1;
			break;
		case KFT_LT:
			hi = c->value1 ? c->value1 - 1 : 0;
			break;
		case KFT_LE:
			hi = c->value1;
			break;
		case KFT_GT:
			lo = c->value1 + 1;
			break;
		case KFT_GE:
			lo = c->value1;
			break;
		case KFT_IN_RANGE:
			lo = c->value1;
			hi = c->value2;
			break;
		}
	}
	if (hi <= 65536 && lo <= hi)
		snprintf(buf, n, ", %" PRIu64 ":%" PRIu64, lo, hi);
	return buf;
}

static void print_struct(const struct kft_records *r, const struct kstruct *s)
{
	char ty[KFT_STR], rg[64];
	size_t i;

	printf("%s {\n", s->name);
	for (i = 0; i < s->n_m; i++) {
		const struct member *m = &s->m[i];
		const struct kft_annotation *a = annotation(r, s->name, m->name, -1);
		unsigned int elem = m->elem ? m->elem : 1;

		int_type(ty, sizeof(ty), m->kind == M_INT ? m->size : elem);
		if (a && a->attrib == KFT_LEN)
			printf("\t%s\tlen[%s, %s]\n", m->name, a->linked, ty);
		else if (a && a->attrib == KFT_STRING)
			printf("\t%s\tptr[in, string]\n", m->name);
		else if (a && a->attrib == KFT_ARRAY)
			printf("\t%s\tptr[in, array[%s%s]]\n", m->name, ty,
			       array_range(r, s->name, m->name, rg, sizeof(rg)));
		else if (m->kind == M_PTR_STRUCT)
			printf("\t%s\tptr[in, %s]\n", m->name, m->ref);
		else if (m->kind == M_PTR)
			printf("\t%s\tptr[in, %s]\n", m->name, ty);
		else if (m->kind == M_ARRAY)
			printf("\t%s\tarray[%s, %" PRIu64 "]\n", m->name, ty, m->count);
		else if (m->kind == M_INT) {
			range(r, s->name, m->name, rg, sizeof(rg));
			printf("\t%s\t%s%s\n", m->name, ty, rg);
		} else {
			printf("\t%s\tint8\t# not describable: %s\n", m->name, m->why);
		}
	}
	printf("}\n\n");
}

int kft_syz_lang(const char *path, const struct kft_records *r)
{
	struct dwarf_view *v;
	size_t i;
	int ret;

	ret = view_of(path, r, &v);
	if (ret < 0)
		return ret;
	printf("# KFuzzTest targets of %s, as syzkaller's pkg/kfuzztest describes\n"
	       "# them (kfuzztest-list --syzlang): for sys/linux/, beside kfuzztest.txt's\n"
	       "# syz_kfuzztest_run, which writes each encoded input to\n"
	       "# /sys/kernel/debug/kfuzztest/NAME/input.\n\n", path);
	for (i = 0; i < v->n; i++)
		if (v->s[i].defs)
			print_struct(r, &v->s[i]);
	for (i = 0; i < r->n_t; i++) {
		if (strncmp(r->t[i].type, "struct ", 7)) {
			printf("# %s: its argument is '%s', not a struct: not described\n",
			       r->t[i].name, r->t[i].type);
			continue;
		}
		printf("syz_kfuzztest_run$%s(name ptr[in, string[\"%s\"]], data ptr[in, %s], "
		       "len bytesize[data], buf ptr[in, array[int8, 65536]]) (kfuzz_test)\n",
		       r->t[i].name, r->t[i].name, r->t[i].type + 7);
	}
	free(v);
	return ret;
}
