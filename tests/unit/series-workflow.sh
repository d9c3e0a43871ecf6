#!/bin/bash
# Host test of scripts/series.sh on a tiny stand-in for linux-source: a
# tarball of a Makefile and one file, a series of one patch.  It checks
# that a changed series re-applies on a clean tree, that local work stops
# a plain run with its message and is left alone, and that
# KWATCH_SAVE_LOCAL_WORK=1 (what CI sets) keeps that work on a branch and
# re-applies; and that test-only patches (kernel-series/test-only/) are
# applied after the series, exported back apart from it (also after a
# fixup rebase), hashed with it and checked by checkpatch.sh, and that a
# series commit after them stops the export.  Exits non-zero if any check
# failed.
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

# --- Test-only patches (issue 29, item 14): kernel-series/test-only/,
# with a series file of its own, applied after the series for the test
# kernel; a commit whose message has the trailer "Kwatch-test-only:" is
# one, and series-export writes it back there.
gk() { git -C "$K" -c user.name=t -c user.email=t@t "$@"; }
echo "test only" >"$K/testonly"
gk add testonly
gk commit -qm "testonly: a change for the test kernel only" -m "Kwatch-test-only: yes"
rc=0; series export || rc=$?
check "export: one patch in the series, one test-only" \
	"$rc:$(grep -vc '^#' "$T/top/kernel-series/series"):$(grep -vc '^#' "$T/top/kernel-series/test-only/series" 2>/dev/null)" "0:1:1"
check "export: the test-only patch is in test-only/, the series' is unchanged" \
	"$(cd "$T/top/kernel-series" && ls test-only/*.patch 2>/dev/null):$(cat "$T/top/kernel-series"/0001-*.patch | grep -c testonly)" \
	"test-only/0001-testonly-a-change-for-the-test-kernel-only.patch:0"
rc=0; series reset || rc=$?
check "reset: the series, then the test-only patch" \
	"$rc:$(gk log --format=%s kwatch-base..HEAD | tr '\n' '|')" \
	"0:testonly: a change for the test kernel only|file: four|"
check "reset: both applied" "$(cat "$K/file"):$(cat "$K/testonly")" "four:test only"
check "reset: says it applied the test-only patch" \
	"$(grep -c 'and 1 test-only patches from kernel-series/test-only/' "$T/out")" 1
# A fix of a series patch, squashed in by rebase: the test-only patch
# stays one.
echo five >"$K/file"
gk commit -qa --fixup=HEAD~1
GIT_SEQUENCE_EDITOR=: gk rebase -q -i --autosquash kwatch-base >/dev/null 2>&1
rc=0; series export || rc=$?
check "export after a fixup and rebase: the series has the fix" \
	"$rc:$(cat "$T/top/kernel-series"/0001-*.patch | grep -c "^+five")" "0:1"
check "export after a fixup and rebase: the test-only patch stays apart" \
	"$(grep -vc '^#' "$T/top/kernel-series/series"):$(ls "$T/top/kernel-series/test-only" | tr '\n' ' ')" \
	"1:0001-testonly-a-change-for-the-test-kernel-only.patch series "
# A changed test-only patch is a changed series: the tree is made again.
sed -i 's/^+test only$/+test only, changed/' "$T/top/kernel-series/test-only/0001-testonly-a-change-for-the-test-kernel-only.patch"
rc=0; series tree || rc=$?
check "a changed test-only patch re-applies the series" "$rc:$(cat "$K/testonly")" \
	"0:test only, changed"
# A series commit after the test-only ones: the export stops and says so.
echo six >"$K/file"
gk commit -qam "file: six"
before=$(cat "$T/top/kernel-series/series" "$T/top/kernel-series"/*.patch | cksum)
rc=0; series export || rc=$?
check "a series commit after the test-only ones stops the export" "$rc" 1
check "the message names the commit and the way out" \
	"$(grep -c "'file: six' comes after the test-only" "$T/out")" 1
check "and kernel-series/ is left as it was" \
	"$(cat "$T/top/kernel-series/series" "$T/top/kernel-series"/*.patch | cksum)" "$before"
gk reset -q --hard HEAD~1
# checkpatch covers the test-only patches: a checkpatch.pl that names
# each patch it is given, as a finding.
cp "$TOP/scripts/checkpatch.sh" "$T/top/scripts/"
mkdir -p "$K/scripts"
printf '#!/bin/sh\necho "checked $*"\n' >"$K/scripts/checkpatch.pl"
chmod +x "$K/scripts/checkpatch.pl"
rc=0
env KWATCH_CACHE=$T/cache "$T/top/scripts/checkpatch.sh" >"$T/out" 2>&1 || rc=$?
check "checkpatch.sh runs on the series and the test-only patches" \
	"$rc:$(grep -c '^checked .*kernel-series/0001-file-[a-z]*.patch$' "$T/out"):$(grep -c '^checked .*kernel-series/test-only/0001-testonly-a-change-for-the-test-kernel-only.patch$' "$T/out")" \
	"1:1:1"

[ $fails -eq 0 ]
