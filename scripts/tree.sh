#!/bin/bash
# Unpack Debian's linux-source-6.12 into build/linux as a git repository whose
# first commit is the pristine tree (tag debian-base), then apply every patch
# named in kernel/series (paths under kernel/: the postings, in the order
# they go out) with git am.  Re-running with the same series is a
# no-op; a changed series resets the tree to debian-base and applies it anew.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
tarball=/usr/src/linux-source-6.12.tar.xz
series=$top/kernel/series
stamp=$top/build/tree.stamp

git_k() { git -C "$tree" -c user.name=nscaps -c user.email=nscaps@localhost "$@"; }

# The stamp names the tarball and the exact bytes of every listed patch.
want=$( { ls -l --time-style=+%s "$tarball"; cat "$series";
	  grep -v '^\s*\(#\|$\)' "$series" | while read -r p; do
		cat "$top/kernel/$p"; done; } | sha256sum | cut -d' ' -f1)
head() { git -C "$tree" rev-parse -q --verify HEAD 2>/dev/null || true; }
if [ "${1:-}" = --record ]; then
	# export-patches.sh: the tree is the series, as exported.
	printf '%s %s\n' "$want" "$(head)" >"$stamp"
	exit 0
fi
if [ -f "$stamp" ] && [ -d "$tree/.git" ]; then
	read -r had had_head <"$stamp"
	[ "$had" = "$want" ] && [ "$had_head" = "$(head)" ] && exit 0
	# Never throw away work done in build/linux that is not in the series.
	if [ "$had_head" != "$(head)" ] || ! git -C "$tree" diff --quiet HEAD; then
		echo "tree: build/linux has commits or changes that are not in" \
		     "kernel/series; run 'make export-patches' or reset it" \
		     "(git -C build/linux reset --hard $had_head)" >&2
		exit 1
	fi
fi

if ! git_k rev-parse -q --verify debian-base >/dev/null 2>&1; then
	echo "tree: unpacking $tarball"
	rm -rf "$tree" "$top/build/linux.tmp"
	mkdir -p "$top/build/linux.tmp"
	tar -C "$top/build/linux.tmp" -xf "$tarball"
	mv "$top/build/linux.tmp"/linux-source-6.12 "$tree"
	rmdir "$top/build/linux.tmp"
	version=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	git -C "$tree" init -q -b main
	git_k add -A -f
	git_k commit -q -m "Debian linux-source-6.12 $version, pristine"
	git_k tag debian-base
fi

echo "tree: applying kernel/series on debian-base"
git_k am --abort >/dev/null 2>&1 || true
git_k reset -q --hard debian-base
git_k clean -q -fdx
grep -v '^\s*\(#\|$\)' "$series" | while read -r p; do
	if ! git_k am -q "$top/kernel/$p" >/dev/null 2>&1; then
		git_k am --abort >/dev/null 2>&1 || true
		echo "tree: patch does not apply: $p" >&2
		exit 1
	fi
	echo "  applied $p"
done
printf '%s %s\n' "$want" "$(head)" >"$stamp"
