#!/usr/bin/env bash
# Before a make run that has long steps ahead (a machine or a cache seen for
# the first time), say which, and about how long they take, before any of
# them starts.  Quiet when nothing long is to come.
#   plan.sh GOAL...
. "$(dirname "$0")/lib.sh"
KW_STEP=kwatch

# plan.sh --save: this cache's times become the project's figures
# (scripts/measured-times, committed), after a run from nothing.
if [ "${1:-}" = --save ]; then
	[ -s "$KW_TIMES" ] || die "no times in $KW_TIMES yet: run make test on a fresh cache first"
	{
		echo "# Seconds each long step took on the reference machine (2 cores, no KVM),"
		echo "# measured, not estimated: KEY SECONDS DATE, written by scripts/plan.sh --save"
		echo "# from a cache's times (scripts/lib.sh: kw_time).  plan.sh and make test's"
		echo "# closing lines print these where this machine has not run a step yet."
		sort "$KW_TIMES"
	} >"$KWATCH_TOP/scripts/measured-times"
	say "scripts/measured-times: $(grep -vc '^#' "$KWATCH_TOP/scripts/measured-times") figures from $KW_TIMES"
	exit 0
fi

# Seconds each step took: this cache's last run of it, or the project's
# own measurement on the reference machine (lib.sh: kw_measured).
m() { kw_measured "$1" || echo 0; }
T_DEPS=$(m deps)
T_TREE=$(m tree)
T_KERNEL_COLD=$(m kernel_cold)
T_KERNEL_WARM=$(m kernel_warm)
T_ROOTFS=$(m rootfs)
T_KERNEL_DEB=$(m kernel_deb)

need_image=0 need_kernel=0 need_kdeb=0
for g in "$@"; do
	case $g in
	test | deb-test) need_image=1 need_kernel=1 need_kdeb=1 ;;
	run | vm | bench | image | vm-test | debug-test) need_image=1 need_kernel=1 ;;
	check | kernel | modules | host | unit) need_kernel=1 ;;
	esac
done
[ $need_kernel -eq 1 ] || exit 0

about() {
	if [ "$1" -le 0 ]; then echo "not measured yet"
	elif [ "$1" -lt 90 ]; then echo "about $1 s"
	else echo "about $((($1 + 30) / 60)) min"; fi
}
steps=()
total=0
step() { steps+=("$1 ($(about "$2"))"); total=$((total + $2)); }
mapfile -t missing < <("$KWATCH_TOP/scripts/deps.sh" --missing)
[ ${#missing[@]} -eq 0 ] ||
	step "install ${#missing[@]} Debian packages with apt-get" $T_DEPS
[ -d "$KSRC/.git" ] ||
	step "extract linux-source-6.1 into $KSRC and apply kernel-series/" $T_TREE
if ! [ -f "$KBUILD/vmlinux" ]; then
	# A flavour's first build finds few of its objects in the compiler
	# cache (its config differs): as long as a cold one (8m52s against
	# 9m20s for fault).
	if [ -z "$KWATCH_FLAVOR" ] && ccache_warm; then
		step "build the test kernel from a warm compiler cache" $T_KERNEL_WARM
	else
		step "build the test kernel with an empty compiler cache, on $(nproc) cores" \
			$((T_KERNEL_COLD * 2 / $(nproc)))
	fi
fi
if [ $need_image -eq 1 ] && ! compgen -G "$ROOTFS_DIR/bookworm-*.tar" >/dev/null; then
	step "make the guest's Debian rootfs with mmdebstrap" $T_ROOTFS
fi
if [ $need_kdeb -eq 1 ] && ! compgen -G "$KWATCH_CACHE/deb/linux-image-*.deb" >/dev/null; then
	step "package the test kernel as .debs with bindeb-pkg (make test's deb tier)" $T_KERNEL_DEB
fi
# What make test runs after the set-up: its tiers, as last measured.
tiers=()
total_t=0
if [ $need_kdeb -eq 1 ]; then
	for t in host:"host tier" vm:"VM suites" storm:"storm tier" deb:"deb tier"; do
		v=$(m "test_${t%%:*}")
		[ "$v" -gt 0 ] && tiers+=("${t#*:} $(about "$v")") && total_t=$((total_t + v))
	done
fi
[ ${#steps[@]} -gt 0 ] || exit 0

if [ "$total" -gt 0 ]; then
	say "first 'make $*' with this cache ($KWATCH_CACHE): before the real work, $(about $total) of set-up:"
else
	say "first 'make $*' with this cache ($KWATCH_CACHE): before the real work, these set-up steps:"
fi
for s in "${steps[@]}"; do say "  - $s"; done
[ ${#tiers[@]} -eq 0 ] ||
	say "then the tests, $(about "$total_t"): $(IFS=,; echo "${tiers[*]}" | sed 's/,/, /g')"
say "each long step prints a progress line every 30 s (each VM test a line); later runs reuse all of it"
say "(figures: this cache's last runs, else scripts/measured-times, the reference machine's)"
