#!/bin/bash
# Build every prefix of the series, one patch at a time, and run
# checkpatch.pl --strict on each patch: every patch must build on its own.
# Uses a worktree of build/linux (build/series-tree) and its own output
# directory, so the main build is left alone.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/series-tree
git -C "$tree" worktree prune
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" debian-base

fail=0
for c in $(git -C "$tree" rev-list --reverse debian-base..HEAD); do
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	if KSRC=$wt KBUILD_OUT=$top/build/series-kbuild \
	   BZIMAGE=$top/build/series-bzImage "$top/scripts/kernel.sh" \
	   >"$top/build/series-build.log" 2>&1 &&
	   ! grep -q 'warning:' "$top/build/series-build.log"; then
		build=ok
	else
		build=FAILED; fail=1
		grep -m5 'error\|warning:' "$top/build/series-build.log" || true
	fi
	if git -C "$tree" format-patch -1 --stdout "$c" |
	   (cd "$wt" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		--terse --no-summary -) >"$top/build/series-checkpatch.log" 2>&1; then
		style=clean
	else
		style=FAILED; fail=1
		cat "$top/build/series-checkpatch.log"
	fi
	printf '%-8s %-8s %s\n' "$build" "$style" "$subject"
done
exit $fail
