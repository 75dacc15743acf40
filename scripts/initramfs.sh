#!/bin/bash
# Pack the guest's initramfs: static busybox, guest/init and the static
# programs given as arguments.  SUITES names, in order, the programs that
# guest/init runs in check mode; those also named in PLAIN report by exit
# status only and are turned into one TAP result each; those named in
# ALONE run only when the kernel command line selects them
# (nscaps.suites=).  MODULES names a
# tree of kernel modules to carry, OVERLAY one to copy over the root,
# KSELFTEST an installed kselftest tree.  OUT
# names another archive (make bench).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$top/build/initramfs.cpio.gz}
root=${out%.cpio.gz}
rm -rf "$root"
mkdir -p "$root"/{bin,dev,etc,proc,sys,tmp,root,tests}
cp /bin/busybox "$root/bin/busybox"
ln -s busybox "$root/bin/sh"
cp "$top/guest/init" "$root/init"
cp "$@" "$root/tests/"
# OVERLAY: a tree copied over the root (make bench: squashfuse_ll and the
# libraries it needs).
if [ -n "${OVERLAY:-}" ]; then
	cp -a "$OVERLAY"/. "$root/"
fi
# KSELFTEST: an installed kselftest tree (its run_kselftest.sh), carried
# as /kselftest for guest/kselftest.
if [ -n "${KSELFTEST:-}" ]; then
	cp -a "$KSELFTEST" "$root/kselftest"
fi
# MODULES: a tree holding lib/modules/RELEASE (scripts/kernel.sh's modroot).
if [ -n "${MODULES:-}" ] && [ -d "$MODULES/lib/modules" ]; then
	cp -r "$MODULES/lib" "$root/"
fi
for t in ${SUITES?}; do
	[ -x "$root/tests/$t" ] || { echo "initramfs: no program for suite $t" >&2; exit 1; }
	case " ${PLAIN:-} " in *" $t "*) echo "$t plain"; continue ;; esac
	case " ${ALONE:-} " in *" $t "*) echo "$t alone" ;; *) echo "$t tap" ;; esac
done >"$root/tests/suites"
"$top/scripts/pack-initramfs.sh" "$root" "$out"
