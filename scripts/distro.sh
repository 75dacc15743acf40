#!/bin/bash
# make check-distro, the build: the series on Debian's cloud-amd64 config
# (package linux-config-6.12) with kernel/config/distro/distro.config,
# every module built, into build/distro/; then an initramfs with the
# guest programs given as arguments and the modules the suites need, with
# their dependencies, uncompressed (busybox's insmod reads plain files),
# listed in load order in /etc/modules-load for guest/init.  With
# --kernel-only, the kernel and its modules alone (make check-exploits).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/distro
config=${DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz}
# What the suites need that Debian builds as modules, loaded at boot: the
# virtio disk with the EROFS images, EROFS, loop devices, dummy links and
# nf_tables; what the surface rows of make check-compat reach, and
# vhost-net, whose back-end tap_test offers a clamped tap (the guest
# has no modprobe to load them on demand).
load="virtio_blk erofs loop dummy nf_tables
      veth bridge vxlan macvlan tun nf_conntrack_netlink ip_set_hash_ip
      iptable_filter ip6table_filter sch_htb cls_u32 cls_fw cls_route
      act_gact xfrm_user vhost_net"

"$top/scripts/deps.sh" linux-config-6.12
mkdir -p "$out"
start=$(date +%s)
BASE_CONFIG=$config FRAGMENTS=$top/kernel/config/distro/distro.config \
	KBUILD_OUT=$out/kbuild BZIMAGE=$out/bzImage "$top/scripts/kernel.sh"
echo "distro: kernel and modules built in $(( $(date +%s) - start )) s"
[ "${1:-}" = --kernel-only ] && exit 0

release=$(cat "$out/kbuild/include/config/kernel.release")
modroot=$out/kbuild/modroot
tree=$out/modules
rm -rf "$tree"
mkdir -p "$tree/etc"
# The modules and what they depend on, in load order, once each.
ordered() {
	for m in "$@"; do
		modprobe -d "$modroot" -S "$release" --show-depends "$m"
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}
# shellcheck disable=SC2086 # the lists split into module names
ordered $load | while read -r ko; do
	rel=${ko#"$modroot"}
	mkdir -p "$(dirname "$tree$rel")"
	xz -dc "$ko" >"$tree${rel%.xz}"
done
# shellcheck disable=SC2086
ordered $load | sed "s|^$modroot||; s|\.xz\$||" >"$tree/etc/modules-load"
echo "distro: $(wc -l <"$tree/etc/modules-load") modules for the guest"

SUITES="${SUITES?}" PLAIN="${PLAIN:-}" ALONE="${ALONE:-}" \
	OVERLAY=$tree OUT=$out/initramfs.cpio.gz \
	"$top/scripts/initramfs.sh" "$@"
