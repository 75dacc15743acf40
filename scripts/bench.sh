#!/bin/bash
# make bench: the stock Debian tree (tag debian-base, in a worktree) and
# ours (build/linux, the series applied), built from the same fragments
# (base, no KUnit, plus kernel/config/bench/: -O2) into build/bench/,
# booted alternately RUNS times each with
# bench/nscaps_bench, then once each under -icount for instruction counts.
# Results: build/bench/runs.csv, summary.csv, bench.png.  Then the EROFS
# part: our kernel mounting a verified image in a user namespace against
# the same files through FUSE: erofs.csv, erofs-summary.csv, erofs.png.
# BENCH_PARTS="caps erofs" by default; one of them runs that part alone.
# BENCH_CONFIG=distro builds both kernels from Debian's cloud-amd64 config
# instead (as make check-distro, with kernel/config/bench/distro.config;
# mitigations, audit and Debian's LSMs as shipped), images only, into
# build/bench-distro/, and runs the capability part alone.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
tree=$top/build/linux
stock_tree=$top/build/bench/stock-tree
runs=${RUNS:-5}
icount_runs=${ICOUNT_RUNS:-2}
limit=${BENCH_TIMEOUT:-900}
parts=" ${BENCH_PARTS:-caps erofs} "
kconfig() { # the environment of scripts/kernel.sh for both kernels
	FRAGMENTS="$top/kernel/config/base.config $top/kernel/config/keys.config
		   $top/kernel/config/bench/bench.config
		   $top/kernel/config/erofs.config $top/kernel/config/bench/fuse.config" \
		"$@"
}
case ${BENCH_CONFIG:-tiny} in
tiny) ;;
distro)
	out=$top/build/bench-distro
	parts=" ${BENCH_PARTS:-caps} "
	case $parts in *" erofs "*)
		echo "bench: BENCH_CONFIG=distro measures the capability" \
		     "part only (its guest loads no modules)" >&2
		exit 1
	esac
	"$top/scripts/deps.sh" linux-config-6.12 dwarves
	kconfig() {
		BASE_CONFIG=${DISTRO_CONFIG:-/usr/src/linux-config-6.12/config.amd64_none_cloud-amd64.xz} \
			FRAGMENTS=$top/kernel/config/bench/distro.config \
			MODULES=no "$@"
	} ;;
*)
	echo "bench: BENCH_CONFIG is tiny or distro, not '$BENCH_CONFIG'" >&2
	exit 1 ;;
esac
mkdir -p "$out"

git -C "$tree" worktree prune
[ -d "$stock_tree" ] ||
	git -C "$tree" worktree add -q --detach "$stock_tree" debian-base
git -C "$stock_tree" checkout -q --detach debian-base
for k in stock ours; do
	src=$tree
	[ "$k" = stock ] && src=$stock_tree
	echo "bench: building the $k kernel ($(git -C "$src" describe --always --tags))"
	# The stock tree lacks the EROFS userns mount option, and only that.
	missing_ok=
	[ "$k" = stock ] && missing_ok=1
	kconfig env KCONFIG_MISSING_OK=$missing_ok KSRC="$src" \
		KBUILD_OUT="$out/kbuild-$k" BZIMAGE="$out/bzImage-$k" \
		"$top/scripts/kernel.sh"
done

case $parts in *" caps "*)
gcc -O2 -Wall -Wextra -Wno-unused-parameter -static \
	-o "$out/nscaps_bench" "$top/bench/nscaps_bench.c"
# On Debian's config, the BPF LSM version of the clamps (alt/) runs on the
# stock kernel too, loaded at boot with the mask of ours' second pass.
bpf_kernels=
bpf_loader=
if [ "${BENCH_CONFIG:-tiny}" = distro ]; then
	bpf_kernels=bpf
	bpf_loader=$top/build/alt/userns-mask
fi
# shellcheck disable=SC2086 # empty or one file
SUITES="" OUT=$out/initramfs.cpio.gz "$top/scripts/initramfs.sh" \
	"$out/nscaps_bench" $bpf_loader

csv=$out/runs.csv
echo "kernel,clock,run,label,op,iterations,ticks_per_op,ns_per_op" >"$csv"
boot() { # kernel clock run
	local log=$out/boot-$1-$2-$3.log opts= image=$1 append=
	[ "$2" = icount ] && opts="-icount shift=0,sleep=off"
	if [ "$1" = bpf ]; then
		image=stock
		append=nscaps.bpf=1fffffcffff
	fi
	echo "bench: $1 kernel, $2 clock, run $3"
	KERNEL=$out/bzImage-$image INITRD=$out/initramfs.cpio.gz SMP=1 \
		APPEND="$append" QEMU_OPTS="$opts" \
		"$top/scripts/qemu.sh" bench "$log" "$limit"
	grep -q '^==> bench done rc=0' "$log" ||
		{ echo "bench: the run failed, see $log" >&2; exit 1; }
	sed -n "s/^bench,/$1,$2,$3,/p" "$log" | tr -d '\r' >>"$csv"
}
for run in $(seq "$runs"); do
	for k in stock ours $bpf_kernels; do
		boot "$k" wall "$run"
	done
done
for run in $(seq "$icount_runs"); do
	for k in stock ours $bpf_kernels; do
		boot "$k" icount "$run"
	done
done

python3 "$top/bench/report.py" "$csv" "$out"
gnuplot -e "data='$out/chart.dat'; out='$out/bench.png'" "$top/bench/chart.gp"
echo "bench: $csv, $out/summary.csv, $out/bench.png"
;; esac
case $parts in *" erofs "*) ;; *) exit 0 ;; esac

# The EROFS part: our kernel, wall clock, two CPUs (FUSE has a daemon),
# a disk of its own with the bench images, squashfuse_ll and its
# libraries copied into the initramfs.
echo "bench: the EROFS part"
BENCH=1 "$top/scripts/disk.sh" "$out/bench-disk.img" /dev/null
rm -rf "$out/overlay"
mkdir -p "$out/overlay/usr/bin"
cp /usr/bin/squashfuse_ll "$out/overlay/usr/bin/"
for lib in $(ldd /usr/bin/squashfuse_ll | grep -o '/[^ ]*'); do
	mkdir -p "$out/overlay$(dirname "$lib")"
	cp -L "$lib" "$out/overlay$lib"
done
gcc -O2 -Wall -Wextra -Wno-unused-parameter -static -D_GNU_SOURCE \
	-isystem "$out/kbuild-ours/headers/include" -I"$top/tests" \
	-o "$out/erofs_bench" "$top/bench/erofs_bench.c" -lcap
SUITES="" OVERLAY=$out/overlay OUT=$out/initramfs-erofs.cpio.gz \
	"$top/scripts/initramfs.sh" "$out/erofs_bench"
log=$out/boot-erofs.log
# BENCH_EROFS_CPU=max gives the guest AVX2 (QEMU 7.2's TCG has no SHA-NI):
# fs-verity then hashes with sha256-avx2, which TCG emulates at half the
# speed of generic C, so the default CPU model stays.
KERNEL=$out/bzImage-ours INITRD=$out/initramfs-erofs.cpio.gz SMP=2 \
	DISK=$out/bench-disk.img \
	QEMU_OPTS="${BENCH_EROFS_CPU:+-cpu $BENCH_EROFS_CPU}" \
	"$top/scripts/qemu.sh" erofsbench "$log" "$limit"
grep -q '^==> erofsbench done rc=0' "$log" ||
	{ echo "bench: the EROFS run failed, see $log" >&2; exit 1; }
sed -n 's/^erofsbench-sha256,//p' "$log" | tr -d '\r' |
	sed 's/^/bench: sha256 driver,priority: /'
sed -n 's/^erofsbench,//p' "$log" | tr -d '\r' >"$out/erofs.csv"
python3 "$top/bench/erofs_report.py" "$out/erofs.csv" "$out"
gnuplot -e "data='$out/erofs-chart.dat'; out='$out/erofs.png'" \
	"$top/bench/erofs_chart.gp"
echo "bench: $out/erofs.csv, $out/erofs-summary.csv, $out/erofs.png"
