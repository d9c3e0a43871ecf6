#!/usr/bin/env bash
# The kernel-series workflow.
#
#   series.sh tree    make $KSRC a git tree of the installed linux-source
#                     (first commit: the pristine tarball, tag kwatch-base)
#                     with kernel-series/ applied by `git am`, then the
#                     test-only patches of kernel-series/test-only/
#   series.sh export  turn the commits on top of kwatch-base back into
#                     kernel-series/NNNN-*.patch and the series file; those
#                     with the trailer "Kwatch-test-only:" (the last ones)
#                     into kernel-series/test-only/ and its series file
#   series.sh reset   throw away local work in $KSRC and re-apply the series
#   series.sh status  show what the tree holds compared with kernel-series/
. "$(dirname "$0")/lib.sh"
KW_STEP=series

STATE=$KSRC/.git/kwatch-applied	# "<series hash> <head commit>" at apply time

base_version() { cat "$SERIES_DIR/BASE"; }

tree_version() {
	local v p s
	v=$(sed -n 's/^VERSION = //p' "$KSRC/Makefile")
	p=$(sed -n 's/^PATCHLEVEL = //p' "$KSRC/Makefile")
	s=$(sed -n 's/^SUBLEVEL = //p' "$KSRC/Makefile")
	echo "$v.$p.$s"
}

tarball_id() { stat -c '%s %Y' "$LINUX_TARBALL"; }

git_k() { git -C "$KSRC" "$@"; }

extract() {
	[ -f "$LINUX_TARBALL" ] || die "$LINUX_TARBALL not found: install linux-source-6.1 (make deps)"
	local tmp=$KWATCH_CACHE/src/.extract.$$
	say "extracting $LINUX_TARBALL"
	rm -rf "$tmp" && mkdir -p "$tmp"
	tar -C "$tmp" -xf "$LINUX_TARBALL"
	rm -rf "$KSRC"
	mv "$tmp"/linux-source-* "$KSRC"
	rmdir "$tmp"
}

init_git() {
	say "making $KSRC a git tree (base commit: linux-source $(tree_version))"
	git_k init -q -b kwatch
	git_k config user.name "kwatch developers"
	git_k config user.email "kwatch@localhost"
	git_k config core.autocrlf false
	git_k config gc.auto 0
	# Debian's .gitignore ignores the whole top level: add the tarball by force.
	git_k add -A -f
	git_k commit -q -m "Linux $(tree_version) (Debian linux-source-6.1, pristine)"
	git_k tag kwatch-base
	tarball_id >"$KSRC/.git/kwatch-tarball"
	unignore_tree
}

# Debian's top-level .gitignore ignores everything ("/*"), so files that a
# developer adds would silently stay out of commits.  Drop that block from
# the working copy only, and tell git not to look at the file, so commits
# (and the exported patches) never carry the change.
unignore_tree() {
	git_k update-index --no-skip-worktree .gitignore
	git_k checkout -q -- .gitignore
	sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' "$KSRC/.gitignore"
	git_k update-index --skip-worktree .gitignore
}

# git am one patch, or stop the run naming it (and both versions, when
# the installed linux-source is not the one the series was made on).
am_one() {
	if ! git_k am -q --keep-cr "$1" >/dev/null 2>"$KSRC/.git/kwatch-am.log"; then
		git_k am --abort >/dev/null 2>&1 || true
		cat "$KSRC/.git/kwatch-am.log" >&2
		if [ "$(tree_version)" != "$(base_version)" ]; then
			die "kernel-series/ was made on linux-source $(base_version) but $(tree_version) is installed, and $(basename "$1") does not apply to it. Rebase the series on $(tree_version) (make kernel-tree, fix, make series-export) or install linux-source $(base_version)."
		fi
		die "${1#"$SERIES_DIR"/} does not apply to linux-source $(tree_version)"
	fi
}

apply_series() {
	local h n=0 m=0 p
	h=$(series_hash)
	git_k am --abort >/dev/null 2>&1 || true
	git_k update-index --no-skip-worktree .gitignore
	git_k checkout -q -f -B kwatch kwatch-base
	git_k clean -q -fdx
	unignore_tree
	while read -r p; do
		am_one "$p"
		n=$((n + 1))
	done < <(series_patches)
	# The test kernel's own patches, after the series.
	while read -r p; do
		am_one "$p"
		m=$((m + 1))
	done < <(test_only_patches)
	echo "$h $(git_k rev-parse HEAD)" >"$STATE"
	if [ $m -gt 0 ]; then
		say "applied $n patches from kernel-series/ and $m test-only patches from kernel-series/test-only/ to linux-source $(tree_version)"
	else
		say "applied $n patches from kernel-series/ to linux-source $(tree_version)"
	fi
}

# CI builds a clean clone's series in the same cache as a developer's tree:
# it must neither stop at the developer's unsaved work nor lose it.  Keep
# that work (commits, edits, new files) on a branch of its own, then the
# series is applied as usual.
save_local_work() {
	local b
	b=saved/$(date -u +%Y%m%d-%H%M%S)
	git_k am --abort >/dev/null 2>&1 || true
	git_k checkout -q -b "$b"
	git_k add -A
	if [ -n "$(git_k status --porcelain --untracked-files=no)" ]; then
		git_k commit -q -m "kwatch: local work saved before kernel-series/ was re-applied"
	fi
	say "kernel-series/ changed and $KSRC had local work: kept on branch $b (git -C $KSRC log kwatch-base..$b)"
}

cmd_tree() {
	local t0 fresh=0
	t0=$(date +%s)
	mkdir -p "$KWATCH_CACHE/src"
	if [ ! -d "$KSRC/.git" ] || ! git_k rev-parse -q --verify kwatch-base >/dev/null; then
		extract
		init_git
		fresh=1
	elif [ "$(cat "$KSRC/.git/kwatch-tarball" 2>/dev/null)" != "$(tarball_id)" ]; then
		if [ -f "$STATE" ] && [ "$(git_k rev-parse HEAD)" != "$(cut -d' ' -f2 "$STATE")" ]; then
			die "$LINUX_TARBALL changed but $KSRC has unexported commits: run 'make series-export' first"
		fi
		say "$LINUX_TARBALL changed since the tree was made: starting again"
		extract
		init_git
	fi
	if [ "$(tree_version)" != "$(base_version)" ]; then
		say "warning: kernel-series/ was made on $(base_version), the installed linux-source is $(tree_version)"
	fi

	local want have_h have_c head
	want=$(series_hash)
	have_h=none
	have_c=none
	[ -f "$STATE" ] && read -r have_h have_c <"$STATE"
	head=$(git_k rev-parse HEAD)
	if [ "$want" = "$have_h" ]; then
		# The series has not changed since it was applied: whatever the
		# developer did in the tree since (commits, edits) is built.
		local extra dirty
		extra=$(git_k rev-list --count "$have_c..HEAD" 2>/dev/null || echo "?")
		dirty=$(git_k status --porcelain --untracked-files=no | wc -l)
		if [ "$extra" != 0 ] || [ "$dirty" != 0 ]; then
			say "building $KSRC with local work: $extra commits not in kernel-series/, $dirty changed files (make series-export saves them)"
		fi
		return 0
	fi
	if [ "$have_c" != none ] && { [ "$head" != "$have_c" ] ||
		[ -n "$(git_k status --porcelain --untracked-files=no)" ]; }; then
		[ "${KWATCH_SAVE_LOCAL_WORK:-0}" = 1 ] ||
			die "kernel-series/ changed, and $KSRC also has local work that is not in it. Save it with 'make series-export' (then merge by hand) or drop it with 'make series-reset'.  (KWATCH_SAVE_LOCAL_WORK=1, as CI sets, keeps it on a branch and re-applies the series.)"
		save_local_work
	fi
	apply_series
	[ $fresh -eq 0 ] || kw_time tree $(($(date +%s) - t0))
}

is_test_only() {
	[ -n "$(git_k log -1 --format="%(trailers:key=$TEST_ONLY_TRAILER,valueonly)" "$1" | tr -d '[:space:]')" ]
}

# write_patches RANGE DIR HEADER: the commits of RANGE as DIR/NNNN-*.patch
# and DIR/series (HEADER its first line), in place of what DIR held; a
# test-only DIR goes when it has none and no other file.  Prints how many.
write_patches() {
	local range=$1 dir=$2 header=$3 tmp n=0 p
	tmp=$(mktemp -d)
	git_k format-patch -q --no-signature --zero-commit -N -o "$tmp" "$range"
	if [ -d "$dir" ]; then
		find "$dir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -delete
		rm -f "$dir/series"
	fi
	# The series' own file stays, even empty; test-only/ goes when empty.
	if [ -n "$(ls -A "$tmp")" ] || [ "$dir" = "$SERIES_DIR" ]; then
		mkdir -p "$dir"
		{
			echo "$header"
			for p in "$tmp"/*.patch; do
				[ -e "$p" ] || continue
				mv "$p" "$dir/"
				basename "$p"
				n=$((n + 1))
			done
		} >"$dir/series"
	elif [ -d "$dir" ]; then
		rmdir "$dir" 2>/dev/null || true
	fi
	rm -rf "$tmp"
	echo $n
}

cmd_export() {
	[ -d "$KSRC/.git" ] || die "no kernel tree: run 'make kernel-tree' first"
	[ -z "$(git_k status --porcelain --untracked-files=no)" ] ||
		die "$KSRC has uncommitted changes: commit them (git -C $KSRC commit) and export again"
	# The series, then the test-only commits: they are applied in that
	# order, so a series commit after a test-only one cannot be exported.
	local c last=kwatch-base first_test= n m
	while read -r c; do
		if is_test_only "$c"; then
			first_test=${first_test:-$c}
		elif [ -n "$first_test" ]; then
			die "commit '$(git_k log -1 --format=%s "$c")' comes after the test-only commit '$(git_k log -1 --format=%s "$first_test")' ($TEST_ONLY_TRAILER: trailer), and the series is applied before the test-only patches: move it before them (git -C $KSRC rebase -i kwatch-base), or give it the trailer if it is test-only too"
		else
			last=$c
		fi
	done < <(git_k rev-list --reverse kwatch-base..HEAD)
	n=$(write_patches "kwatch-base..$last" "$SERIES_DIR" \
		"# kernel-series: applied in this order by 'git am' on linux-source $(base_version)")
	m=$(write_patches "$last..HEAD" "$TEST_ONLY_DIR" \
		"# kernel-series/test-only: applied by 'git am' after ../series, for the test kernel only")
	echo "$(series_hash) $(git_k rev-parse HEAD)" >"$STATE"
	say "exported $n patches to kernel-series/ and $m test-only patches to kernel-series/test-only/ (review with git diff, then commit)"
}

cmd_reset() {
	[ -d "$KSRC/.git" ] || { cmd_tree; return; }
	say "discarding local work in $KSRC"
	apply_series
}

cmd_status() {
	local have_h have_c
	have_h=none
	have_c=none
	[ -f "$STATE" ] && read -r have_h have_c <"$STATE"
	echo "tree:      $KSRC (linux-source $(tree_version), series made on $(base_version))"
	echo "series:    $(series_hash) (applied: $have_h)"
	echo "test-only: $(test_only_patches | wc -l) patches in kernel-series/test-only/, applied after the series"
	echo "local:     $(git_k rev-list --count "$have_c..HEAD" 2>/dev/null || echo '?') commits not exported"
	git_k status --short --untracked-files=no
}

case ${1:-tree} in
tree) cmd_tree ;;
export) cmd_export ;;
reset) cmd_reset ;;
status) cmd_status ;;
*) die "usage: $0 tree|export|reset|status" ;;
esac
