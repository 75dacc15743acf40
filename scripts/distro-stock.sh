#!/bin/bash
# The stock tree (tag debian-base) on Debian's cloud-amd64 config, as
# BENCH_CONFIG=distro make bench builds it (kernel/config/bench/
# distro.config: Debian's debug information kept, for its BTF), the image
# alone, into build/bench-distro/, which the bench shares: make
# check-distro boots it with the BPF LSM version of the clamps (alt/).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench-distro
stock_tree=$top/build/bench/stock-tree

"$top/scripts/deps.sh" linux-config-6.12 dwarves
git -C "$top/build/linux" worktree prune
[ -d "$stock_tree" ] ||
	git -C "$top/build/linux" worktree add -q --detach "$stock_tree" debian-base
mkdir -p "$out"
echo "distro-stock: building the stock kernel on Debian's config"
BASE_CONFIG=${DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz} \
	FRAGMENTS=$top/kernel/config/bench/distro.config MODULES=no \
	KCONFIG_MISSING_OK=1 KSRC=$stock_tree KBUILD_OUT=$out/kbuild-stock \
	BZIMAGE=$out/bzImage-stock "$top/scripts/kernel.sh"
