#!/bin/bash
# Host test of scripts/series.sh on a tiny stand-in for linux-source: a
# tarball of a Makefile and one file, a series of one patch.  It checks
# that a changed series re-applies on a clean tree, that local work stops
# a plain run with its message and is left alone, and that
# KWATCH_SAVE_LOCAL_WORK=1 (what CI sets) keeps that work on a branch and
# re-applies.  Exits non-zero on the first failure.
TOP=@TOP@
. "$TOP/tests/unit/check.sh"

# A copy of the scripts with a kernel-series/ of its own.
mkdir -p "$T/top/scripts" "$T/top/kernel-series" "$T/src/linux-source-6.1"
cp "$TOP/scripts/lib.sh" "$TOP/scripts/series.sh" "$T/top/scripts/"
printf 'VERSION = 6\nPATCHLEVEL = 1\nSUBLEVEL = 99\n' >"$T/src/linux-source-6.1/Makefile"
echo "one" >"$T/src/linux-source-6.1/file"
# Debian's .gitignore block, which series.sh drops from the working copy.
printf '*.o\n# Debian packaging: ignore everything\n/*\n!/debian/\n' \
	>"$T/src/linux-source-6.1/.gitignore"
tar -C "$T/src" -cJf "$T/linux-source-6.1.tar.xz" linux-source-6.1
echo 6.1.99 >"$T/top/kernel-series/BASE"

# The one patch, made with git so that git am takes it.
git init -q "$T/mk" && tar -C "$T/mk" --strip-components=1 -xf "$T/linux-source-6.1.tar.xz"
git -C "$T/mk" -c user.name=t -c user.email=t@t add -A -f
git -C "$T/mk" -c user.name=t -c user.email=t@t commit -qm base
mkpatch() { # TEXT
	echo "$1" >"$T/mk/file"
	git -C "$T/mk" -c user.name=t -c user.email=t@t commit -qam "file: $1"
	git -C "$T/mk" format-patch -q -1 --stdout >"$T/top/kernel-series/0001-file.patch"
	git -C "$T/mk" reset -q --hard HEAD~1
	echo 0001-file.patch >"$T/top/kernel-series/series"
}
# series.sh with this test's cache and tarball; KWATCH_SAVE_LOCAL_WORK as
# the caller sets it here, never inherited (CI exports it).
series() { env -u KWATCH_SAVE_LOCAL_WORK KWATCH_CACHE=$T/cache \
	LINUX_TARBALL=$T/linux-source-6.1.tar.xz "$T/top/scripts/series.sh" "$@" >"$T/out" 2>&1; }
K=$T/cache/src/linux
rc=0

mkpatch two
series tree || rc=$?
check "first tree applies the series" "$rc:$(cat "$K/file")" "0:two"

mkpatch three
rc=0; series tree || rc=$?
check "a changed series re-applies on a clean tree" "$rc:$(cat "$K/file")" "0:three"

# Local work: a commit, an edit, a new file.
echo mine >"$K/file" && git -C "$K" commit -qam "my commit"
echo edit >>"$K/Makefile"
echo new >"$K/newfile"
head=$(git -C "$K" rev-parse HEAD)
mkpatch four
rc=0; series tree || rc=$?
check "local work stops a plain run" "$rc" 1
check "the message names the way out" \
	"$(grep -c "make series-export" "$T/out")" 1
check "and the work is left as it was" \
	"$(git -C "$K" rev-parse HEAD):$(cat "$K/newfile"):$(tail -1 "$K/Makefile")" "$head:new:edit"

rc=0
series_save() { KWATCH_CACHE=$T/cache LINUX_TARBALL=$T/linux-source-6.1.tar.xz \
	KWATCH_SAVE_LOCAL_WORK=1 "$T/top/scripts/series.sh" "$@" >"$T/out" 2>&1; }
series_save tree || rc=$?
b=$(git -C "$K" branch --list 'saved/*' --format='%(refname:short)')
check "KWATCH_SAVE_LOCAL_WORK=1 re-applies" "$rc:$(cat "$K/file")" "0:four"
check "the work is kept on a saved/ branch" \
	"$(git -C "$K" show "$b:file"):$(git -C "$K" show "$b:newfile"):$(git -C "$K" show "$b:Makefile" | tail -1)" \
	"mine:new:edit"
check "the branch holds the local commit" \
	"$(git -C "$K" merge-base --is-ancestor "$head" "$b" && echo yes)" yes
check "the tree is clean after" "$(git -C "$K" status --porcelain --untracked-files=all | wc -l)" 0

[ $fails -eq 0 ]
