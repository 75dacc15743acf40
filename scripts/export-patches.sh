#!/bin/bash
# Turn the commits on top of debian-base in build/linux into the postings
# under kernel/postings/, as kernel/series cuts them: each posting folder
# takes, in order, as many commits as the series lists in it (change the
# cut by editing the series first).  Each posting gets its patches from
# git format-patch, numbered on their own, and its cover letter
# (0000-cover-letter.patch) anew, keeping the subject prefix ("PATCH",
# "RFC PATCH"), subject and text of the one it had; git's shortlog and
# diffstat follow the commits (without its create/delete mode lines).
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tree=$top/build/linux
series=$top/kernel/series
git -C "$tree" diff --quiet HEAD ||
	{ echo "export-patches: build/linux has uncommitted changes" >&2; exit 1; }

mapfile -t commits < <(git -C "$tree" rev-list --reverse debian-base..HEAD)
mapfile -t listed < <(grep -v '^\s*\(#\|$\)' "$series")
if [ "${#commits[@]}" != "${#listed[@]}" ]; then
	echo "export-patches: build/linux has ${#commits[@]} commits, kernel/series" \
	     "lists ${#listed[@]} patches; cut the series first" >&2
	exit 1
fi

# cover_part FILE subject|prefix|blurb: a part of a cover letter.  The
# subject may be folded over lines; the blurb runs from the end of the
# headers to git's shortlog ("Author Name (N):").
cover_part() {
	awk -v part="$2" '
	hdr && /^Subject: / { subj = $0; insub = 1; next }
	hdr && insub && /^[ \t]/ { subj = subj $0; next }
	hdr { insub = 0 }
	hdr && /^$/ { hdr = 0; next }
	!hdr && /^[^ ].* \([0-9]+\):$/ { exit }
	!hdr && part == "blurb" { body = body $0 "\n" }
	BEGIN { hdr = 1 }
	END {
		sub(/^Subject: \[/, "", subj)
		prefix = subj; sub(/ [0-9]+\/[0-9]+\].*/, "", prefix)
		sub(/^[^\]]*\] */, "", subj)
		sub(/\n+$/, "\n", body)
		if (part == "subject") print subj
		else if (part == "prefix") print prefix
		else printf "%s", body
	}' "$1"
}

new=$top/kernel/series.new
grep '^#' "$series" >"$new"
i=0
for dir in $(printf '%s\n' "${listed[@]}" | xargs -n1 dirname | uniq); do
	n=$(printf '%s\n' "${listed[@]}" | grep -c "^$dir/")
	cover=$top/kernel/$dir/0000-cover-letter.patch
	[ -f "$cover" ] ||
		{ echo "export-patches: $dir has no 0000-cover-letter.patch" >&2; exit 1; }
	out=$(mktemp -d)
	git -C "$tree" format-patch -q --no-signature --cover-letter \
		--subject-prefix="$(cover_part "$cover" prefix)" -o "$out" \
		"${commits[$i]}^..${commits[$((i + n - 1))]}"
	cover_part "$cover" blurb >"$out/blurb"
	subject=$(cover_part "$cover" subject)
	awk -v subject="$subject" -v blurb="$out/blurb" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		while ((getline line <blurb) > 0) print line
		next
	}
	# The file list of the diffstat stands; its mode lines would run past the
	# 75 columns checkpatch holds a cover letter to.
	/^ (create|delete) mode [0-7]+ / { next }
	{ print }' "$out/0000-cover-letter.patch" >"$out/cover"
	mv "$out/cover" "$out/0000-cover-letter.patch"
	rm "$out/blurb"
	rm -f "$top/kernel/$dir"/*.patch
	mv "$out"/*.patch "$top/kernel/$dir/"
	rmdir "$out"
	(cd "$top/kernel" && ls "$dir"/*.patch | grep -v '/0000-') >>"$new"
	i=$((i + n))
done
mv "$new" "$series"
"$top/scripts/tree.sh" --record
cat "$series"
