#!/bin/bash
# Write the postings of kernel/series, ready to mail, to build/postings/:
# the cover letter and every patch of a posting addressed alike, to all
# that get_maintainer.pl names for any of its patches (maintainers in To,
# reviewers and lists in Cc, each address once), so that no patch goes
# out to nobody and every reviewer sees the whole posting; the Cc: lines
# of a cover letter's text (which git send-email reads there) are added
# to each patch's Cc.  Then check that each posting applies with git am on the
# pristine tree with the postings before it, in a scratch worktree
# (build/postings-tree).  Send one with: git send-email build/postings/DIR/
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
out=$top/build/postings
wt=$top/build/postings-tree

# recipients ROLE PATCH...: one line of them, comma-separated, each
# address once (MAINTAINERS may spell one person's name two ways).
recipients() {
	local role=$1
	shift
	(cd "$tree" && ./scripts/get_maintainer.pl --no-rolestats --no-git \
		--no-git-fallback $role "$@") |
		awk 'NF { a = $0; sub(/.*</, "", a); sub(/>.*/, "", a)
			  if (!seen[tolower(a)]++) print }' |
		paste -sd, - | sed 's/,/, /g'
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
	to=$(recipients '--no-r --no-l' "${patches[@]}")
	cc=$(recipients '--no-m' "${patches[@]}" |
	     tr ',' '\n' | grep -viFf <(printf '%s\n' "$to" | tr ',' '\n' |
					sed -n 's/.*<\(.*\)>.*/<\1>/p') |
	     sed 's/^ *//' | paste -sd, - | sed 's/,/, /g')
	# The cover letter's own Cc: lines go to every patch as well.
	extra=$(sed -n 's/^Cc: //p' "$top/kernel/$dir/0000-cover-letter.patch" |
		paste -sd, - | sed 's/,/, /g')
	for f in "$out/$name"/0*.patch; do
		case $f in
		*/0000-cover-letter.patch) address "$f" "$to" "$cc" ;;
		*) address "$f" "$to" "$cc${extra:+${cc:+, }$extra}" ;;
		esac
	done
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
