#!/bin/bash
# Lint the man pages in docs/man/ as linux-man lints its own: mandoc
# -Tlint and groff's warnings, with the (date) of .TH filled in as the
# man-pages build fills it.  TAP, appended to the guest's log so that the
# summary counts it; one result for each page.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pages=("$top"/docs/man/*)
echo "==> suite man_pages"
echo "1..${#pages[@]}"
n=0
for page in "${pages[@]}"; do
	n=$((n + 1))
	src=$(sed "s/(date)/$(date +%F)/" "$page")
	out=$( { printf '%s\n' "$src" | mandoc -man -Tlint -Wwarning
		 printf '%s\n' "$src" | groff -man -ww -z -Tutf8; } 2>&1 || true)
	if [ -z "$out" ]; then
		echo "ok $n ${page#"$top"/}"
	else
		echo "not ok $n ${page#"$top"/}"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
done
echo "<== suite man_pages rc=0"
