#!/bin/bash
# make check-compat: Debian's own sandboxes and network tools in the
# guest, run by alice under each clamp (tests/compat_test.c).  Boots the
# kernel of make check (or $KERNEL with $INITRD: make check-distro's) with
# the tools unpacked over its initramfs (scripts/compat-root.sh): once for
# the configurations set at run time, once with the mask on the command
# line; then the stock tree built from the same fragments, for the default
# column alone (COMPAT_STOCK=no skips it).  Prints the matrix and writes
# it to build/$COMPAT_TAG-matrix.txt; the logs are build/$COMPAT_TAG*.log
# (COMPAT_TAG is check-compat unless make check-distro sets it).
# COMPAT_ROWS=a,b runs those rows alone, in every configuration (the
# kernel command line passes it to the suite).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
kernel=${KERNEL:-$b/bzImage}
initrd=${INITRD:-$b/initramfs.cpio.gz}
tag=${COMPAT_TAG:-check-compat}
limit=${COMPAT_TIMEOUT:-1200}
# The mask without CAP_NET_ADMIN (bit 12), as sysctl.d would set it.
boot_mask=000001ffffffefff

"$top/scripts/deps.sh" bubblewrap crun uidmap nftables iptables ipset \
	conntrack slirp4netns passt podman libcap2-bin systemd-container
"$top/scripts/compat-root.sh" "$b/compat.cpio.gz"
cat "$initrd" "$b/compat.cpio.gz" >"$b/initramfs-$tag.cpio.gz"

boot() { # KERNEL LOG APPEND
	echo "compat: booting $(basename "$1") (log: ${2#"$top"/})"
	KERNEL=$1 INITRD=$b/initramfs-$tag.cpio.gz \
		APPEND="$3 kunit.enable=0 nscaps.suites=compat_test${COMPAT_ROWS:+ COMPAT_ROWS=$COMPAT_ROWS}" \
		"$top/scripts/qemu.sh" check "$2" "$limit" || true
}
boot "$kernel" "$b/$tag.log" ""
boot "$kernel" "$b/$tag-boot.log" "sysctl.kernel.userns_cap_mask=$boot_mask"
logs="$b/$tag.log $b/$tag-boot.log"

if [ "${COMPAT_STOCK:-yes}" = yes ]; then
	# The pristine tree with the fragments of make check; the options only
	# the series defines are left out (KCONFIG_MISSING_OK).
	stock_tree=$b/bench/stock-tree
	git -C "$b/linux" worktree prune
	[ -d "$stock_tree" ] ||
		git -C "$b/linux" worktree add -q --detach "$stock_tree" debian-base
	echo "compat: building the stock kernel"
	KCONFIG_MISSING_OK=1 KSRC=$stock_tree KBUILD_OUT=$b/kbuild-stock \
		BZIMAGE=$b/bzImage-stock MODULES=no "$top/scripts/kernel.sh"
	boot "$b/bzImage-stock" "$b/$tag-stock.log" ""
	sed -i 's/^# compat default /# compat stock /' "$b/$tag-stock.log"
	logs="$logs $b/$tag-stock.log"
fi

rc=0
# shellcheck disable=SC2086 # the list splits into file names
awk -f "$top/scripts/compat-matrix.awk" $logs >"$b/$tag-matrix.txt" || rc=1
cat "$b/$tag-matrix.txt"
# Each boot's failures and skips, then the sum of their results.
for log in $logs; do
	awk -v expect=compat_test -f "$top/scripts/summarize.awk" "$log" \
		>"$log.summary" || rc=1
	grep -v ' passed, ' "$log.summary" || true
done
for log in $logs; do tail -n 1 "$log.summary"; done | awk '
	{ p += $1; f += $3; s += $5 }
	END { printf "%d passed, %d failed%s\n", p, f, s ? ", " s " skipped" : "" }'
exit $rc
