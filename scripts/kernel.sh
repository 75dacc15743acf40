#!/bin/bash
# Configure and build the guest kernel: tinyconfig plus the fragments in
# kernel/config/, checked option by option, built with ccache into
# build/kbuild.  The image is copied to build/bzImage.  KSRC, KBUILD_OUT
# and BZIMAGE build another tree, elsewhere (make check-series); FRAGMENTS
# replaces the list of fragments (make bench: no KUnit).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
src=${KSRC:-$top/build/linux}
out=${KBUILD_OUT:-$top/build/kbuild}
fragments="${FRAGMENTS:-$(ls "$top"/kernel/config/*.config)} ${EXTRA_FRAGMENTS:-}"
kmake() { make -s -C "$src" O="$out" ARCH=x86_64 CC="ccache gcc" "$@"; }

mkdir -p "$out"
cd "$out"
new=$out/.config
kmake tinyconfig >/dev/null
# shellcheck disable=SC2086
"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$new" $fragments >/dev/null
kmake olddefconfig >/dev/null

# kconfig drops options whose dependencies are unmet without a word; every
# line a fragment asks for must be in the final configuration.
bad=0
for f in $fragments; do
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=n) opt=${line%%=*}
			want="# $opt is not set" ;;
		CONFIG_*) want=$line ;;
		*) continue ;;
		esac
		if ! grep -qxF -- "$want" "$new"; then
			echo "kernel: $(basename "$f") asks for '$line'," \
			     "the final .config has: $(grep -E "(^|# )${line%%=*}[= ]" "$new" || echo nothing)" >&2
			bad=1
		fi
	done <"$f"
done
[ "$bad" = 0 ] || exit 1

kmake -j"$(nproc)" bzImage
kmake headers_install INSTALL_HDR_PATH="$out/headers" >/dev/null
cp "$out/arch/x86/boot/bzImage" "${BZIMAGE:-$top/build/bzImage}"
