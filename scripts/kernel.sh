#!/bin/bash
# Configure and build the guest kernel: tinyconfig plus the fragments in
# kernel/config/, checked option by option, built with ccache into
# build/kbuild.  The image is copied to build/bzImage.  KSRC, KBUILD_OUT
# and BZIMAGE build another tree, elsewhere (make check-series); FRAGMENTS
# replaces the list of fragments (make bench: no KUnit); BASE_CONFIG, a
# config file (.xz too), replaces tinyconfig (make check-distro: Debian's).
# Modules are installed under $KBUILD_OUT/modroot; MODULES=no builds the
# image alone (make bench on Debian's config: its guest loads none).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src=${KSRC:-$top/build/linux}
out=${KBUILD_OUT:-$top/build/kbuild}
fragments="${FRAGMENTS:-$(ls "$top"/kernel/config/*.config)} ${EXTRA_FRAGMENTS:-}"
kmake() { make -s -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }

mkdir -p "$out"
cd "$out"
new=$out/.config
if [ -n "${BASE_CONFIG:-}" ]; then
	xzcat -f "$BASE_CONFIG" >"$new"
else
	kmake tinyconfig >/dev/null
fi
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$new" $fragments >/dev/null
kmake olddefconfig >/dev/null

# kconfig drops options whose dependencies are unmet without a word; every
# line a fragment asks for must be in the final configuration.  A later
# fragment may override an earlier one (the debug kernel builds the KUnit
# suites in): the last word on each option counts.
declare -A want from
for f in $fragments; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%%=*}
			want[$opt]="# $opt is not set" ;;
		CONFIG_*) opt=${line%%=*}
			want[$opt]=$line ;;
		*) continue ;;
		esac
		from[$opt]="$(basename "$f") asks for '$line'"
	done <"$f"
done
# With KCONFIG_MISSING_OK (make check-series), an option that the tree
# does not define yet (an early prefix of the series) is passed over.
defined() {
	grep -rqsx --include='Kconfig*' -- "config ${1#CONFIG_}" "$src"
}
bad=0
for opt in "${!want[@]}"; do
	if [ -n "${KCONFIG_MISSING_OK:-}" ] && ! defined "$opt"; then
		continue
	fi
	if ! grep -qxF -- "${want[$opt]}" "$new"; then
		echo "kernel: ${from[$opt]}, the final .config has:" \
		     "$(grep -E "(^|# )${opt}[= ]" "$new" || echo nothing)" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] || exit 1

if [ "${MODULES:-yes}" = no ]; then
	kmake -j"$(nproc)" bzImage
	kmake headers_install INSTALL_HDR_PATH="$out/headers" >/dev/null
	cp "$out/arch/x86/boot/bzImage" "${BZIMAGE:-$top/build/bzImage}"
	exit 0
fi
kmake -j"$(nproc)" bzImage modules
kmake headers_install INSTALL_HDR_PATH="$out/headers" >/dev/null
# Modules (the KUnit suites, built as distributions build them) go to
# $out/modroot/lib/modules/RELEASE, which the initramfs carries.
rm -rf "$out/modroot"
kmake modules_install INSTALL_MOD_PATH="$out/modroot" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod >/dev/null
cp "$out/arch/x86/boot/bzImage" "${BZIMAGE:-$top/build/bzImage}"
