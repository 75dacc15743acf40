#!/bin/bash
# Build every prefix of the series, one patch at a time, twice (the KUnit
# suites as a module, as distributions build KUnit, and built in), and run
# checkpatch.pl --strict on each patch: every patch must build on its own,
# either way, without a warning.  Options of the fragments that a prefix
# does not define yet are passed over.  Uses a worktree of build/linux
# (build/series-tree) and output directories of its own, so the main build
# is left alone.  SERIES_BUILDS="m" builds the module variant only (the
# one distributions need; about half the time), SERIES_BUILDS="y" the
# built-in one only.  SERIES_FROM=N starts at patch N (the prefixes before
# it are taken as checked: for resuming a run that was stopped).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
wt=$top/build/series-tree
git -C "$tree" worktree prune
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" debian-base

# build NAME [FRAGMENT]: build the worktree into build/series-kbuild-NAME.
build() {
	local log=$top/build/series-build-$1.log
	if KCONFIG_MISSING_OK=1 EXTRA_FRAGMENTS=${2:-} KSRC=$wt \
	   KBUILD_OUT=$top/build/series-kbuild-$1 \
	   BZIMAGE=$top/build/series-bzImage-$1 "$top/scripts/kernel.sh" \
	   >"$log" 2>&1 && ! grep -q 'warning:' "$log"; then
		echo ok
	else
		echo FAILED
		grep -m5 'error\|warning:\|ERROR' "$log" >&2 || true
	fi
}

from=${SERIES_FROM:-1}
total=$(git -C "$tree" rev-list --count debian-base..HEAD)
case $from in
'' | *[!0-9]* | 0*)
	echo "check-series: SERIES_FROM is a patch number from 1, not '$from'" >&2
	exit 1 ;;
esac
if [ "$from" -gt "$total" ]; then
	echo "check-series: SERIES_FROM=$from, but the series has $total patches" >&2
	exit 1
fi
fail=0
n=0
printf '%-8s %-8s %-8s %s\n' module builtin style patch
for c in $(git -C "$tree" rev-list --reverse debian-base..HEAD); do
	n=$((n + 1))
	[ "$n" -ge "$from" ] || continue
	subject=$(git -C "$tree" log -1 --format=%s "$c")
	git -C "$wt" checkout -q --detach "$c"
	module=skipped
	builtin=skipped
	case " ${SERIES_BUILDS:-m y} " in *" m "*)
		module=$(build m)
	esac
	case " ${SERIES_BUILDS:-m y} " in *" y "*)
		builtin=$(build y "$top/kernel/config/variant/kunit-builtin.config")
	esac
	if git -C "$tree" format-patch -1 --stdout "$c" |
	   (cd "$wt" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict \
		--terse --no-summary -) >"$top/build/series-checkpatch.log" 2>&1; then
		style=clean
	else
		style=FAILED
		cat "$top/build/series-checkpatch.log"
	fi
	case "$module $builtin $style" in
	"ok ok clean" | "ok skipped clean" | "skipped ok clean") ;;
	*) fail=1 ;;
	esac
	printf '%-8s %-8s %-8s %04d %s\n' "$module" "$builtin" "$style" \
		"$n" "$subject"
done
exit $fail
