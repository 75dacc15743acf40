#!/bin/bash
# Write the postings of kernel/series, ready to mail, to build/postings/:
# each patch addressed as get_maintainer.pl says (maintainers in To,
# reviewers and lists in Cc), each cover letter to all of its posting's
# recipients.  Then check that each posting applies with git am on the
# pristine tree with the postings before it, in a scratch worktree
# (build/postings-tree).  Send one with: git send-email build/postings/DIR/
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
out=$top/build/postings
wt=$top/build/postings-tree

# recipients ROLE PATCH...: one line of them, comma-separated.
recipients() {
	local role=$1
	shift
	(cd "$tree" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback $role "$@") |
		awk 'NF && !seen[$0]++' | paste -sd, - | sed 's/,/, /g'
}

# address FILE TO CC: add To: and Cc: after the headers' Subject.
address() {
	awk -v to="$2" -v cc="$3" '
	!done && /^$/ {
		if (to != "") print "To: " to
		if (cc != "") print "Cc: " cc
		done = 1
	}
	{ print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

rm -rf "$out"
git -C "$tree" worktree prune
[ -d "$wt" ] || git -C "$tree" worktree add -q --detach "$wt" debian-base
git -C "$wt" am --abort >/dev/null 2>&1 || true
git -C "$wt" checkout -q --detach debian-base
git -C "$wt" clean -q -fdx

mapfile -t listed < <(grep -v '^\s*\(#\|$\)' "$top/kernel/series")
fail=0
for dir in $(printf '%s\n' "${listed[@]}" | xargs -n1 dirname | uniq); do
	name=${dir#postings/}
	mkdir -p "$out/$name"
	cp "$top/kernel/$dir"/*.patch "$out/$name/"
	mapfile -t patches < <(printf '%s\n' "${listed[@]}" | grep "^$dir/" |
			       sed "s|^|$top/kernel/|")
	for p in "${patches[@]}"; do
		address "$out/$name/$(basename "$p")" \
			"$(recipients '--no-r --no-l' "$p")" \
			"$(recipients '--no-m' "$p")"
	done
	address "$out/$name/0000-cover-letter.patch" \
		"$(recipients '--no-r --no-l' "${patches[@]}")" \
		"$(recipients '--no-m' "${patches[@]}")"
	if git -C "$wt" -c user.name=nscaps -c user.email=nscaps@localhost \
	   am -q "${patches[@]}" >/dev/null 2>&1; then
		status="applies"
	else
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		status="DOES NOT APPLY"
		fail=1
	fi
	printf '%-28s %2d patches  %s\n' "$name" "${#patches[@]}" "$status"
	sed -n 's/^To: /    To: /p; s/^Cc: /    Cc: /p' \
		"$out/$name/0000-cover-letter.patch"
done
[ "$fail" = 0 ] || { echo "postings: a posting does not apply" >&2; exit 1; }
echo "postings: build/postings/, each applying on debian-base and those before it"
