#!/bin/bash
# Every prefix of every posting, one patch at a time: build it twice
# (without KUnit, so without the commoncap suites compiled into
# commoncap.c, and with them), run checkpatch.pl --strict on the patch,
# and boot the kernel with KUnit, whose suites run at boot.  At the last patch of a posting, that
# boot also runs the suites the postings so far make hold (POSTING_SUITES
# below), and from the clamps' posting on, a second boot runs the mask
# from the command line.  Options of the fragments that a prefix does not
# define yet are passed over.  Uses a worktree of build/linux
# (build/series-tree) and output directories of its own, so the main
# build is left alone.  SERIES_FROM=N starts at patch N (the prefixes
# before it are taken as checked: for resuming a run that was stopped).
# Needs make guest's initramfs and disk (make check-series builds them).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/series-tree
b=$top/build

# What each posting makes hold, beyond the postings before it.
declare -A POSTING_SUITES=(
	[1-commoncap-kunit]="uts_owner_test owner_rule_test hostname_test
		kill_test ptrace_test powerless_test setid_test
		procmount_test test_execve nsfs_owner nsfs_pidns"
	[2-userns-cap-clamps]="ceiling_test root_made_test loopback_test escape_test
		lsm_test tool_test fuzz_test stress_test kselftest"
	[3-userns-cap-clamps-audit]="audit_test"
	[4-erofs-file-backed]="erofs_file_test"
	[5-keys-request-key-restriction]="keys_test"
	[6-erofs-userns-mount]="erofs_test"
)
# From this posting on, the mask may come from the command line.
ALONE_FROM=2-userns-cap-clamps
BOOT_APPEND="sysctl.kernel.userns_cap_mask=1ffffffefff sysctl.kernel.userns_cap_mask=zz"

git -C "$tree" worktree prune
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" debian-base

# The guest of a posting's end: make guest's initramfs with the prefix's
# own kselftests in place of the whole series' (a selftest that a later
# posting adds or extends tests what this prefix does not have yet),
# built from the worktree against the prefix's headers, for the
# KSFT_TARGETS (the Makefile's list) the prefix has.  Into $initrd.
initrd=$b/series-initramfs.cpio.gz
guest_of_prefix() {
	local targets="" t root=${initrd%.cpio.gz}

	for t in ${KSFT_TARGETS?}; do
		[ -d "$wt/tools/testing/selftests/$t" ] && targets="$targets $t"
	done
	rm -rf "$root" "$b/series-kselftest-build"
	cp -a "$b/initramfs" "$root"
	rm -rf "$root/kselftest"
	if [ -n "$targets" ]; then
		make -s -C "$wt/tools/testing/selftests" TARGETS="${targets# }" \
			O="$b/series-kselftest-build" \
			KHDR_INCLUDES="-isystem $b/series-kbuild-y/headers/include" \
			LDFLAGS=-static INSTALL_PATH="$root/kselftest" install \
			>"$b/series-kselftest.log" 2>&1 || return 1
	fi
	"$top/scripts/pack-initramfs.sh" "$root" "$initrd"
}

# build NAME [FRAGMENTS]: build the worktree into build/series-kbuild-NAME,
# with FRAGMENTS rather than kernel/config/*.config if given.
build() {
	local log=$b/series-build-$1.log
	if KCONFIG_MISSING_OK=1 FRAGMENTS=${2:-} KSRC=$wt \
	   KBUILD_OUT=$b/series-kbuild-$1 \
	   BZIMAGE=$b/series-bzImage-$1 "$top/scripts/kernel.sh" \
	   >"$log" 2>&1 && ! grep -q 'warning:' "$log"; then
		echo ok
	else
		echo FAILED
		grep -m5 'error\|warning:\|ERROR' "$log" >&2 || true
	fi
}

# boot LOG EXPECT SUITES [APPEND [INITRD]]: boot the built-in kernel to
# run SUITES (none: KUnit alone), and summarize LOG into LOG.summary.
boot() {
	KERNEL=$b/series-bzImage-y APPEND="nscaps.suites=$3 ${4:-}" \
		INITRD=${5:-$b/initramfs.cpio.gz} \
		"$top/scripts/qemu.sh" check "$1" 900 >/dev/null 2>&1 || true
	awk -v expect="$2" -f "$top/scripts/summarize.awk" "$1" >"$1.summary"
}

mapfile -t commits < <(git -C "$tree" rev-list --reverse debian-base..HEAD)
mapfile -t listed < <(grep -v '^\s*\(#\|$\)' "$top/kernel/series")
if [ "${#commits[@]}" != "${#listed[@]}" ]; then
	echo "check-series: build/linux is not kernel/series; run make tree" >&2
	exit 1
fi
from=${SERIES_FROM:-1}
case $from in
'' | *[!0-9]* | 0*)
	echo "check-series: SERIES_FROM is a patch number from 1, not '$from'" >&2
	exit 1 ;;
esac
if [ "$from" -gt "${#commits[@]}" ]; then
	echo "check-series: SERIES_FROM=$from, but the series has ${#commits[@]} patches" >&2
	exit 1
fi

fail=0
suites=""
alone=""
printf '%-7s %-7s %-7s %-7s %s\n' nokunit kunit style boot patch
for n in $(seq 1 "${#commits[@]}"); do
	c=${commits[$((n - 1))]}
	dir=$(dirname "${listed[$((n - 1))]}")
	posting=${dir#postings/}
	last=yes
	if [ "$n" -lt "${#commits[@]}" ] &&
	   [ "$(dirname "${listed[$n]}")" = "$dir" ]; then
		last=no
	fi
	if [ "$last" = yes ]; then
		suites="$suites ${POSTING_SUITES[$posting]:-}"
		[ "$posting" = "$ALONE_FROM" ] && alone=boot_mask_test
	fi
	[ "$n" -ge "$from" ] || continue
	git -C "$wt" checkout -q --detach "$c"
	nokunit=$(build n "$(ls "$top"/kernel/config/*.config |
		grep -v /kunit.config)")
	builtin=$(build y)
	if git -C "$tree" format-patch -1 --stdout "$c" |
	   (cd "$wt" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		--terse --no-summary --ignore UNKNOWN_COMMIT_ID -) >"$b/series-checkpatch.log" 2>&1; then
		style=clean
	else
		style=FAILED
		cat "$b/series-checkpatch.log"
	fi
	kunit=skipped
	if [ "$builtin" = ok ]; then
		if boot "$b/series-boot.log" kunit none; then
			kunit=ok
		else
			kunit=FAILED
			sed 's/^/    /' "$b/series-boot.log.summary"
		fi
	fi
	[ "$nokunit $builtin $style $kunit" = "ok ok clean ok" ] || fail=1
	printf '%-7s %-7s %-7s %-7s %s\n' "$nokunit" "$builtin" "$style" \
		"$kunit" "${listed[$((n - 1))]#postings/}"
	[ "$last" = yes ] && [ "$builtin" = ok ] || continue
	# The end of a posting: what every posting so far makes hold.
	# shellcheck disable=SC2086
	set -- $suites
	echo "  end of $posting: the suites of the postings so far ($#)"
	if ! guest_of_prefix; then
		echo "  end of $posting: its kselftests did not build" \
			"($b/series-kselftest.log)"
		fail=1
		continue
	fi
	boot "$b/series-$posting.log" "kunit $*" "$(IFS=,; echo "$*")" "" \
		"$initrd" || fail=1
	sed 's/^/    /' "$b/series-$posting.log.summary"
	if [ -n "$alone" ]; then
		echo "  end of $posting: $alone, with $BOOT_APPEND"
		boot "$b/series-$posting-boot.log" "$alone" "$alone" \
			"$BOOT_APPEND" "$initrd" || fail=1
		sed 's/^/    /' "$b/series-$posting-boot.log.summary"
	fi
done
exit $fail
