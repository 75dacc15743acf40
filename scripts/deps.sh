#!/bin/bash
# Install the Debian packages the build, the guest and the tests need, and
# those named as arguments (make check-distro: Debian's kernel configs).
# Quiet and quick when everything is already there.
set -eu

pkgs="linux-source-6.12 qemu-system-x86 busybox-static build-essential
      flex bison bc libelf-dev libssl-dev cpio ccache xz-utils
      libcap-dev libcap-ng-dev rsync kmod
      python3-ply python3-git gnuplot-nox
      erofs-utils fsverity keyutils e2fsprogs libcap2-bin
      squashfs-tools squashfuse
      clang llvm libbpf-dev bpftool zlib1g-dev libzstd-dev
      mandoc groff-base $*"

missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null
