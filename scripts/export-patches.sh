#!/bin/bash
# Turn the commits on top of debian-base in build/linux into kernel/patches
# and kernel/series, the form in which the series lives in this repository.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
git -C "$tree" diff --quiet HEAD ||
	{ echo "export-patches: build/linux has uncommitted changes" >&2; exit 1; }
rm -f "$top"/kernel/patches/*.patch
git -C "$tree" format-patch -q --no-signature debian-base..HEAD -o "$top/kernel/patches"
{
	sed -n '/^#/p' "$top/kernel/series"
	(cd "$top/kernel/patches" && ls -- *.patch)
} >"$top/kernel/series.new"
mv "$top/kernel/series.new" "$top/kernel/series"
"$top/scripts/tree.sh" --record
cat "$top/kernel/series"
