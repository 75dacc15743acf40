#!/bin/bash
# make check-bpf: the BPF LSM version of the clamps (alt/) on the stock
# tree, built with make check's fragments and kernel/config/variant/
# bpf.config into build/kbuild-stock-bpf.  Three boots:
#   1. its own suite, tests/bpf_mask_test.c (attach, clamp a running
#      container, release it, detach): this decides the exit status;
#   2. with it attached (nscaps.bpf=attach), the escape catalogue and the
#      conformance suites, the mask and sets lowered by root going through
#      its loader (tests/nscaps_test.h): the comparison with the series,
#      build/bpf-catalogue.txt;
#   3. with it attached, the compat rows under its mask:
#      build/bpf-compat-matrix.txt.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
kernel=$b/bzImage-stock-bpf
limit=${BPF_TIMEOUT:-900}
# The suites compared: the catalogue, the seed's rules, the clamps'.
compared=${BPF_SUITES:-escape_test,kill_test,ptrace_test,hostname_test,powerless_test,ceiling_test,loopback_test}

stock_tree=$b/bench/stock-tree
git -C "$b/linux" worktree prune
[ -d "$stock_tree" ] ||
	git -C "$b/linux" worktree add -q --detach "$stock_tree" debian-base
echo "bpf: building the stock kernel with the BPF LSM"
# shellcheck disable=SC2046 # the fragments, one word each
FRAGMENTS="$(ls "$top"/kernel/config/*.config) $top/kernel/config/variant/bpf.config" \
	KCONFIG_MISSING_OK=1 KSRC=$stock_tree KBUILD_OUT=$b/kbuild-stock-bpf \
	BZIMAGE=$kernel MODULES=no "$top/scripts/kernel.sh"

boot() { # LOG INITRD APPEND
	echo "bpf: booting (log: ${1#"$top"/})"
	KERNEL=$kernel INITRD=$2 APPEND="$3" \
		"$top/scripts/qemu.sh" check "$1" "$limit" || true
}
boot "$b/check-bpf.log" "$b/initramfs.cpio.gz" "nscaps.suites=bpf_mask_test"
boot "$b/check-bpf-catalogue.log" "$b/initramfs.cpio.gz" \
	"nscaps.bpf=attach nscaps.suites=$compared"
"$top/scripts/compat-root.sh" "$b/compat.cpio.gz"
cat "$b/initramfs.cpio.gz" "$b/compat.cpio.gz" >"$b/initramfs-bpf-compat.cpio.gz"
boot "$b/check-bpf-compat.log" "$b/initramfs-bpf-compat.cpio.gz" \
	"nscaps.bpf=attach nscaps.suites=compat_test"

# The comparison: each result of the series (make check's last log) and
# of the BPF version.
awk -f "$top/scripts/bpf-compare.awk" "$b/check.log" \
	"$b/check-bpf-catalogue.log" >"$b/bpf-catalogue.txt"
tail -n 12 "$b/bpf-catalogue.txt"
sed 's/^# compat mask /# compat bpf /' "$b/check-bpf-compat.log" |
	awk -f "$top/scripts/compat-matrix.awk" >"$b/bpf-compat-matrix.txt" || true
cat "$b/bpf-compat-matrix.txt"
awk -v expect="bpf_mask_test" -f "$top/scripts/summarize.awk" "$b/check-bpf.log"
