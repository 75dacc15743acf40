#!/bin/bash
# make fuzz SEED=S N=N: boot the guest and run N random trees from seed S
# against the model (tests/fuzz_test.c); the log is build/fuzz.log.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
seed=$1
n=$2
case "$seed$n" in
*[!0-9]*) echo "fuzz: SEED and N must be unsigned numbers" >&2; exit 2 ;;
esac
[ "$n" -gt 0 ] || { echo "fuzz: N must be at least 1" >&2; exit 2; }
log=$top/build/fuzz.log
# A tree takes a few seconds under TCG; allow ten.
APPEND="nscaps.fuzz=$seed,$n" "$top/scripts/qemu.sh" fuzz "$log" \
	$((120 + 10 * n)) || true
tr -d '\r' <"$log" | sed -n '/^==> fuzz$/,/^==> fuzz done/p' | sed '1d;$d'
grep -q '^==> fuzz done rc=0' "$log" ||
	{ echo "fuzz: divergences, or the run did not finish; see $log" >&2; exit 1; }
