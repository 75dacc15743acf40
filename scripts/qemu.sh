#!/bin/bash
# Boot build/bzImage (or $KERNEL) with build/initramfs.cpio.gz (or $INITRD)
# under TCG.
#   qemu.sh MODE LOG TIMEOUT   serial console to LOG, killed after TIMEOUT s
#   qemu.sh shell              interactive, console on this terminal
# SMP sets the CPU count (2), QEMU_OPTS adds options (make bench: -icount),
# DISK names the second disk (build/disk.img; empty: none), QEMU_MEM the
# guest's memory (1G).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
mode=$1
# shellcheck disable=SC2206
args=(-accel tcg -m "${QEMU_MEM:-1G}" -smp "${SMP:-2}" -no-reboot -nodefaults ${QEMU_OPTS:-}
      -kernel "${KERNEL:-$top/build/bzImage}"
      -initrd "${INITRD:-$top/build/initramfs.cpio.gz}")
# The second disk, ext4 with fs-verity (scripts/disk.sh); the guest's
# writes to it are thrown away.
disk=${DISK-$top/build/disk.img}
[ -n "$disk" ] && [ -f "$disk" ] &&
	args+=(-drive "file=$disk,format=raw,if=virtio,snapshot=on")
cmdline="console=ttyS0 panic=-1 oops=panic nscaps.mode=$mode ${APPEND:-}"

if [ "$mode" = shell ]; then
	exec qemu-system-x86_64 "${args[@]}" -nographic -serial mon:stdio \
		-append "$cmdline"
fi

log=$2
limit=$3
# check mode needs the kernel's own KUnit output; the others read better
# without boot messages.
quiet=quiet
[ "$mode" = check ] && quiet=
rc=0
timeout --foreground -k 5 "$limit" qemu-system-x86_64 "${args[@]}" \
	-display none -serial "file:$log" -append "$cmdline $quiet" || rc=$?
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
	echo "qemu: timed out after ${limit}s, see $log" >&2
	echo "==> qemu timed out after ${limit}s" >>"$log"
	exit 1
fi
[ "$rc" = 0 ] || { echo "qemu: exited with $rc, see $log" >&2; exit 1; }
