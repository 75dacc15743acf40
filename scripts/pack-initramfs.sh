#!/bin/bash
# pack-initramfs.sh ROOT OUT: pack the tree ROOT into OUT, a gzip'd newc
# archive with every file owned by root, in sorted order so that the same
# tree packs the same; OUT is replaced whole or not at all.
set -eu

root=${1:?pack-initramfs.sh ROOT OUT}
out=${2:?pack-initramfs.sh ROOT OUT}
(cd "$root" && find . | sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
