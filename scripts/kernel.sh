#!/usr/bin/env bash
# Configure and build the test kernel out of tree, with ccache.
#
#   kernel.sh config   (re)generate $KBUILD/.config: allnoconfig + kwatch.config
#   kernel.sh build    config if needed, then build bzImage, vmlinux and modules
. "$(dirname "$0")/lib.sh"
KW_STEP=kernel

CONFIG_STAMP=$KBUILD/.kwatch-config

config_inputs() {
	{ cat "${KCONFIG_FRAGMENTS[@]}"; series_hash; } | sha256sum | cut -c1-16
}

# The fragments' lines that decide: of the lines about one symbol, the
# last one (a flavour's fragment overrides kwatch.config, as merge_config.sh
# merges them), in the order the symbols first appear.
effective_lines() {
	cat "${KCONFIG_FRAGMENTS[@]}" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { s = $0; sub(/=.*/, "", s) }
	/^# CONFIG_[A-Za-z0-9_]+ is not set$/ { s = $2 }
	/^CONFIG_[A-Za-z0-9_]+=|^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
		if (!(s in line)) order[n++] = s
		line[s] = $0
	}
	END { for (i = 0; i < n; i++) print line[order[i]] }'
}

# Every CONFIG_X=v line that decides must be in the final .config, and
# every "# CONFIG_X is not set" must not be enabled there.
verify_config() {
	local bad=0 line sym
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF "$line" "$KBUILD/.config" || {
				say "config: wanted '$line', got '$(grep -E "^(# )?${line%%=*}[= ]" "$KBUILD/.config" || echo unset)'"
				bad=1
			}
			;;
		'# CONFIG_'*' is not set')
			sym=${line#\# }
			sym=${sym%% *}
			if grep -qE "^$sym=[ym]" "$KBUILD/.config"; then
				say "config: wanted $sym off, but it is on"
				bad=1
			fi
			;;
		esac
	done < <(effective_lines)
	[ $bad -eq 0 ] || die "${KCONFIG_FRAGMENTS[*]##*/} do not survive Kconfig (missing dependencies?)"
}

cmd_config() {
	mkdir -p "$KBUILD"
	local want
	want=$(config_inputs)
	if [ -f "$KBUILD/.config" ] && [ "$(cat "$CONFIG_STAMP" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	say "generating .config: allnoconfig + ${KCONFIG_FRAGMENTS[*]##*/}"
	"${KMAKE[@]}" -s allnoconfig >/dev/null
	"$KSRC/scripts/kconfig/merge_config.sh" -m -O "$KBUILD" "$KBUILD/.config" \
		"${KCONFIG_FRAGMENTS[@]}" >"$KBUILD/.kwatch-merge.log" 2>&1 ||
		die "merge_config.sh failed: $KBUILD/.kwatch-merge.log"
	"${KMAKE[@]}" -s olddefconfig >>"$KBUILD/.kwatch-merge.log" 2>&1
	verify_config
	echo "$want" >"$CONFIG_STAMP"
	say "$(grep -c '=y' "$KBUILD/.config") options built in, $(grep -c '=m' "$KBUILD/.config" || true) as modules"
}

cmd_build() {
	cmd_config
	local t0 log=$KBUILD/.kwatch-build.log total warm=cold
	t0=$(date +%s)
	! ccache_warm || warm=warm
	total=$(cat "$KBUILD/.kwatch-objects" 2>/dev/null || echo 1870)
	say "building linux $(cd "$KSRC" && make -s kernelversion)$(grep -oP '(?<=^CONFIG_LOCALVERSION=")[^"]*' "$KBUILD/.config") in $KBUILD (-j$KWATCH_JOBS, ccache in $CCACHE_DIR)"
	KW_PROGRESS_RE='^  (CC|AS|LD|BTF|AR)' KW_PROGRESS_TOTAL=$total \
		run_logged "$log" "kernel build" "${KMAKE[@]}" -j"$KWATCH_JOBS" all
	local built
	built=$(grep -cE '^  (CC|AS|LD|BTF|AR)' "$log" || true)
	# Remember the size of a full build, so the next cold one can show n/total.
	if [ "$built" -gt "${total:-0}" ]; then echo "$built" >"$KBUILD/.kwatch-objects"; fi
	local secs=$(($(date +%s) - t0))
	say "kernel ready: $KBUILD/arch/x86/boot/bzImage ($built steps, $((secs / 60))m$((secs % 60))s)"
	echo "$secs" >"$KBUILD/.kwatch-last-build-seconds"
	# A whole build (not a few files' rebuild), of the default flavour.
	[ "$built" -lt 1500 ] || [ -n "$KWATCH_FLAVOR" ] || kw_time kernel_$warm "$secs"
}

case ${1:-build} in
config) cmd_config ;;
build) cmd_build ;;
*) die "usage: $0 config|build" ;;
esac
