#!/bin/bash
# Host test of kfuzztest-list on a loadable module (tests/host/kfuzztest-
# list.c, built by tools.mk with the sanitizers): KFuzzTest records of the
# kernel's layouts compiled here into their sections of an ET_REL object
# (x.ko), their strings found through the relocations, the module's name
# from .modinfo or the file's name; the same records linked as a vmlinux
# between the linker symbols list the same lines without the module;
# broken files are errors, never a crash; and syzkaller's rules
# (--check-syzkaller) name each one a vmlinux with debug information
# breaks, and pass one that keeps them, whose syzlang is as expected.
. @TOP@/tests/unit/check.sh
KLIST=@KLIST@
# A sanitizer's report is exit status 99, apart from the tool's own 1.
export ASAN_OPTIONS=exitcode=99 UBSAN_OPTIONS=halt_on_error=1:exitcode=99
run() { "$KLIST" "$@" 2>&1; echo "rc=$?"; }

# The records, as include/linux/kfuzztest.h lays them out: two targets (the
# second with a run function, whose relocation is not a string's), a
# constraint, an annotation with a linked field and one with NULL, a
# simple target, and .modinfo strings.  -fno-toplevel-reorder keeps them
# in the order written.
cat >$T/x.c <<'C'
struct target { const char *name, *arg_type; unsigned long arg_size; void (*run)(void); }
	__attribute__((aligned(32)));
struct constraint { const char *type, *field; unsigned long v1, v2; int op; }
	__attribute__((aligned(64)));
struct annotation { const char *type, *field, *linked; int attrib; } __attribute__((aligned(32)));
struct simple { const char *name; void (*run)(void); } __attribute__((aligned(16)));
#define IN(s) __attribute__((section(s), used))
static void run(void) { }
static const struct target t1 IN(".kfuzztest_target") = { "my_target", "struct my_arg", 24, 0 };
static const struct target t2 IN(".kfuzztest_target") = { "other_target", "struct other_arg", 16, run };
static const struct constraint c1 IN(".kfuzztest_constraint") = { "struct my_arg", "len", 3, 9, 6 };
static const struct annotation a1 IN(".kfuzztest_annotation") = { "struct my_arg", "len", "buf", 0 };
static const struct annotation a2 IN(".kfuzztest_annotation") = { "struct other_arg", "name", 0, 1 };
static const struct simple s1 IN(".kfuzztest_simple_target") = { "other_target", run };
#ifndef NO_MODINFO
static const char license[] IN(".modinfo") __attribute__((aligned(1))) = "license=GPL";
static const char name[] IN(".modinfo") __attribute__((aligned(1))) = "name=my_mod";
#endif
C
gcc -c -O2 -fno-toplevel-reorder -o $T/x.ko $T/x.c
check "x.ko is an ET_REL object" "$(readelf -h $T/x.ko | sed -n 's/^ *Type: *//p')" \
	"REL (Relocatable file)"

LINES='target my_target struct my_arg (24 bytes)
target other_target struct other_arg (16 bytes)
constraint struct my_arg.len EXPECT_IN_RANGE 3 9
annotation struct my_arg.len LEN buf
annotation struct other_arg.name STRING
simple other_target'
check "module, text" "$(run $T/x.ko)" \
	"$(echo "$LINES" | sed '/^target /s/$/ module my_mod/')
rc=0"
check "module, JSON" "$(run --json $T/x.ko)" '[
  {"kind":"target","name":"my_target","arg_type":"struct my_arg","arg_size":24,"module":"my_mod"},
  {"kind":"target","name":"other_target","arg_type":"struct other_arg","arg_size":16,"module":"my_mod"},
  {"kind":"constraint","type":"struct my_arg","field":"len","op":"EXPECT_IN_RANGE","value1":3,"value2":9,"module":"my_mod"},
  {"kind":"annotation","type":"struct my_arg","field":"len","attribute":"LEN","linked_field":"buf","module":"my_mod"},
  {"kind":"annotation","type":"struct other_arg","field":"name","attribute":"STRING","linked_field":"","module":"my_mod"},
  {"kind":"simple","name":"other_target","module":"my_mod"}
]
rc=0'

# Without .modinfo: the file's name, without .ko, '-' made '_'.
gcc -c -O2 -fno-toplevel-reorder -DNO_MODINFO -o $T/my-other-mod.ko $T/x.c
check "no .modinfo: the name of the file" "$(run $T/my-other-mod.ko | head -n 1)" \
	"target my_target struct my_arg (24 bytes) module my_other_mod"

# The same records linked between the linker symbols, as in vmlinux: the
# same lines, without a module.
cat >$T/kft.ld <<'LD'
SECTIONS {
	.kfuzztest : {
		__kfuzztest_targets_start = .; KEEP(*(.kfuzztest_target)) __kfuzztest_targets_end = .;
		__kfuzztest_constraints_start = .; KEEP(*(.kfuzztest_constraint))
		__kfuzztest_constraints_end = .;
		__kfuzztest_annotations_start = .; KEEP(*(.kfuzztest_annotation))
		__kfuzztest_annotations_end = .;
		__kfuzztest_simple_targets_start = .; KEEP(*(.kfuzztest_simple_target))
		__kfuzztest_simple_targets_end = .;
	}
} INSERT AFTER .rodata;
LD
gcc -O2 -fno-toplevel-reorder -no-pie -static -nostdlib -Wl,-e,0 -Wl,-T,$T/kft.ld \
	-o $T/vmlinux $T/x.c
check "vmlinux of the same records, text" "$(run $T/vmlinux)" "$LINES
rc=0"
check "vmlinux of the same records, JSON" "$(run --json $T/vmlinux)" \
	"$(run --json $T/x.ko | sed 's/,"module":"my_mod"//')"

# A module without .kfuzztest_target: an error, and nothing on stdout.
echo 'static const char n[] __attribute__((section(".modinfo"), used)) = "name=none";' >$T/none.c
gcc -c -O2 -o $T/none.ko $T/none.c
check "no targets: the error" "$(run $T/none.ko)" "$T/none.ko: no KFuzzTest targets in this module
rc=1"
check "no targets, JSON: nothing on stdout" "$("$KLIST" --json $T/none.ko 2>/dev/null; echo "rc=$?")" "rc=1"

# Broken relocations of the first target's name (the first entry of
# .rela.kfuzztest_target): each an error naming the field.
rela=$(readelf -SW $T/x.ko | sed -n 's/.*\] \.rela\.kfuzztest_target  *RELA  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
poke() { # FILE OFFSET HEX-BYTES (little-endian)
	printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
cp $T/x.ko $T/addend.ko
poke $T/addend.ko 0x$rela+16 0000010000000000
check "an addend past the strings" "$(run $T/addend.ko | sed 's/section [0-9]*/section N/')" \
	"$T/addend.ko: .kfuzztest_target, byte 0: no string within section N at its byte 65536
rc=1"
cp $T/x.ko $T/sym.ko
poke $T/sym.ko 0x$rela+12 ffff0000
check "a symbol past the symbol table" "$(run $T/sym.ko)" \
	"$T/sym.ko: .kfuzztest_target, byte 0: no symbol 65535
rc=1"
cp $T/x.ko $T/type.ko
poke $T/type.ko 0x$rela+8 02000000
check "a relocation of another type" "$(run $T/type.ko)" \
	"$T/type.ko: .kfuzztest_target, byte 0: a relocation of type 2, not R_X86_64_64
rc=1"

# Garbage and every truncation of x.ko (each 16 bytes): an error or a
# listing, exit status 0 or 1, never a crash or a sanitizer's report.
head -c 3000 $T/x.c >$T/garbage.ko
check "garbage" "$(run $T/garbage.ko)" "$T/garbage.ko: not an ELF file
rc=1"
head -c 64 $T/x.ko >$T/head.ko
check "an ELF header alone" "$(run $T/head.ko)" "$T/head.ko: no section headers in the file
rc=1"
size=$(stat -c %s $T/x.ko)
crashes=
for n in $(seq 0 16 $((size - 1))); do
	head -c $n $T/x.ko >$T/cut.ko
	"$KLIST" $T/cut.ko >/dev/null 2>$T/cut.err
	rc=$?
	if [ $rc -gt 1 ] || ! { [ $rc -eq 0 ] || grep -q "^$T/cut.ko: " $T/cut.err; }; then
		crashes="$crashes $n:$rc"
	fi
done
check "x.ko cut at each 16 bytes of $size: errors, no crash" "$crashes" ""

"$KLIST" >/dev/null 2>&1
check "usage" "$?" 2

# syzkaller's rules (--check-syzkaller) on a vmlinux of two compilation
# units with debug information: a struct in a header that both use (in the
# DWARF twice), shared by two targets, a byte buffer with only a LEN
# annotation, a STRING annotation whose linked name is NULL, an
# annotation naming a member the struct lacks, a bool, an array of
# arrays, a pointer to a typedef'd struct and a volatile member.  Then the
# same targets written as the rules want: nothing broken, and --syzlang's
# descriptions.
cat >$T/syz.h <<'C'
struct target { const char *name, *arg_type; unsigned long arg_size; void (*run)(void); }
	__attribute__((aligned(32)));
struct constraint { const char *type, *field; unsigned long v1, v2; int op; }
	__attribute__((aligned(64)));
struct annotation { const char *type, *field, *linked; int attrib; } __attribute__((aligned(32)));
#define IN(s) __attribute__((section(s), used))
#ifdef FIXED
#define A "struct a_arg"
#define B "struct b_arg"
#else
typedef struct inner { int x; } inner_t;
struct shared_arg {
	const unsigned char *buf; unsigned long len; _Bool flag; unsigned char grid[2][3];
	inner_t *in; volatile int v;
};
#define A "struct shared_arg"
#define B "struct shared_arg"
#endif
C
cat >$T/syz1.c <<'C'
#include "syz.h"
#ifdef FIXED
struct a_arg { const unsigned char *buf; unsigned long len; };
struct a_arg a_use;
static const struct annotation x1 IN(".kfuzztest_annotation") = { A, "buf", "", 2 };
#else
struct shared_arg use1;
static const struct annotation x1 IN(".kfuzztest_annotation") = { A, "name", 0, 1 };
#endif
static const struct target t1 IN(".kfuzztest_target") = { "t_one", A, 40 - 24 * FIXED_SIZE, 0 };
static const struct annotation l1 IN(".kfuzztest_annotation") = { A, "len", "buf", 0 };
static const struct constraint c1 IN(".kfuzztest_constraint") = { A, "len", 64, 0, 3 };
C
cat >$T/syz2.c <<'C'
#include "syz.h"
#ifdef FIXED
struct b_arg { const char *s; unsigned int n; };
struct b_arg b_use;
static const struct target t2 IN(".kfuzztest_target") = { "t_two", B, 16, 0 };
static const struct annotation s2 IN(".kfuzztest_annotation") = { B, "s", "", 1 };
#else
struct shared_arg use2;
static const struct target t2 IN(".kfuzztest_target") = { "t_two", B, 40, 0 };
#endif
C
# Read-only data after the strings, as in vmlinux: syzkaller reads 128
# bytes at each string, and a string in its section's last 127 is an error
# (the first check also gets those without the tail).
echo 'const char syz_tail[256] = { 1 };' >$T/tail.c
syzlink() {
	gcc -g -O0 -fno-toplevel-reorder -no-pie -static -nostdlib -Wl,-e,0 -Wl,-T,$T/kft.ld \
		-I$T "$@" -o $T/syzlinux $T/syz1.c $T/syz2.c $T/tail.c
}
syzlink -DFIXED_SIZE=0
"$KLIST" --check-syzkaller $T/syzlinux >$T/syz.out 2>&1
check "the broken rules' exit status" "$?" 3
grep '^FAIL' $T/syz.out | sed 's/^/# /'
for rule in 't_one: struct shared_arg is in the DWARF 2 times' \
	't_two: shares struct shared_arg with t_one' \
	't_one: struct shared_arg.flag is a bool' \
	'struct shared_arg.buf points at a buffer and has no KFUZZTEST_ANNOTATE_ARRAY' \
	'annotation struct shared_arg.name: its linked_field_name is NULL' \
	'an annotation names struct shared_arg.name, which struct shared_arg lacks' \
	'struct shared_arg.grid is an array of arrays' \
	'struct shared_arg.in is a pointer to a typedef of a struct' \
	'struct shared_arg.v is volatile'; do
	check "rule broken: $rule" "$(grep -cF "$rule" $T/syz.out | sed 's/^[1-9][0-9]*$/found/')" found
done
syzlink -DFIXED -DFIXED_SIZE=1
check "the rules kept" "$("$KLIST" --check-syzkaller $T/syzlinux 2>&1 | tail -n1; echo "rc=$?")" \
	"$T/syzlinux: 2 targets, 2 structs, 1 constraints, 3 annotations: 0 of syzkaller's rules broken
rc=0"
check "their descriptions" "$("$KLIST" --syzlang $T/syzlinux | grep -v '^#')" "
a_arg {
	buf	ptr[in, array[int8, 0:64]]
	len	len[buf, int64]
}

b_arg {
	s	ptr[in, string]
	n	int32
}

syz_kfuzztest_run\$t_one(name ptr[in, string[\"t_one\"]], data ptr[in, a_arg], len bytesize[data], buf ptr[in, array[int8, 65536]]) (kfuzz_test)
syz_kfuzztest_run\$t_two(name ptr[in, string[\"t_two\"]], data ptr[in, b_arg], len bytesize[data], buf ptr[in, array[int8, 65536]]) (kfuzz_test)"

[ $fails -eq 0 ]
