#!/usr/bin/env bash
# Build the out-of-tree test modules (tests/modules/*/) against the kernel
# build, in $KMODBUILD so that the checkout stays clean.  Prints nothing on
# stdout; the .ko files end up in $KMODBUILD/ko/.
. "$(dirname "$0")/lib.sh"
KW_STEP=modules

# tests/usermod/*/: modules built as a developer builds theirs, kept out of
# the stack variable index ($KMODBUILD/user/, and nodebug/ a copy without
# debug information).
mkdir -p "$KMODBUILD/ko" "$KMODBUILD/user/nodebug"
for dir in "$KWATCH_TOP"/tests/modules/*/ "$KWATCH_TOP"/tests/usermod/*/; do
	[ -f "$dir/Kbuild" ] || continue
	name=$(basename "$dir")
	out=$KMODBUILD/$name
	mkdir -p "$out"
	# By content, stamped with the time of the copy: the cache is shared
	# by checkouts (CI's clean clone, a developer's), so a source can be
	# older than an object built from another checkout's version of it.
	rsync -rlpD --checksum --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude='modules.order' --exclude='Module.symvers' \
		"$dir" "$out/" --filter='protect *.o' --filter='protect *.ko' \
		--filter='protect .*.cmd' --filter='protect *.mod*' \
		--filter='protect modules.order' --filter='protect Module.symvers'
	# An external module's .ko does not depend on vmlinux in kbuild, but its
	# split BTF is made against vmlinux's: relink when the kernel changed.
	find "$out" -maxdepth 1 -name '*.ko' ! -newer "$KBUILD/vmlinux" -delete
	log=$out/.kwatch-build.log
	if ! "${KMAKE[@]}" M="$out" W=1 KCFLAGS=-Werror modules >"$log" 2>&1; then
		cat "$log" >&2
		die "test modules in tests/modules/$name failed to build"
	fi
	case $dir in
	*/tests/usermod/*)
		cp "$out"/*.ko "$KMODBUILD/user/"
		for ko in "$out"/*.ko; do
			strip --strip-debug -o "$KMODBUILD/user/nodebug/$(basename "$ko")" "$ko"
		done ;;
	*) cp "$out"/*.ko "$KMODBUILD/ko/" ;;
	esac
done
