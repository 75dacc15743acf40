#!/usr/bin/awk -f
# The series against its BPF LSM version, result by result: the first log
# is a make check run on our kernel, the second make check-bpf's run of the
# same suites on the stock tree with alt/'s program attached.  Prints each
# test of the suites the second log ran with both results ("pass", "FAIL",
# "skip"), then, per suite, how many pass on each.

function result(line,    r) {
	r = line ~ /^not ok/ ? "FAIL" : "pass"
	if (line ~ /# *SKIP/)
		r = "skip"
	return r
}
{ sub(/\r$/, "") }
/^==> suite / { suite = $3; next }
/^<== suite / { suite = ""; next }
suite != "" && /^(not )?ok [0-9]+ / {
	name = $0
	sub(/^(not )?ok [0-9]+ /, "", name)
	sub(/ *#.*/, "", name)
	key = suite SUBSEP name
	if (FILENAME == ARGV[1]) {
		ours[key] = result($0)
	} else {
		if (!(key in bpf)) order[++n] = key
		bpf[key] = result($0)
		ran[suite] = 1
	}
}
END {
	printf "%-16s %-58s %-6s %s\n", "suite", "test", "series", "bpf"
	for (i = 1; i <= n; i++) {
		split(order[i], k, SUBSEP)
		o = (order[i] in ours) ? ours[order[i]] : "-"
		printf "%-16s %-58s %-6s %s\n", k[1], k[2], o, bpf[order[i]]
		total[k[1]]++
		if (o == "pass") ours_pass[k[1]]++
		if (bpf[order[i]] == "pass") bpf_pass[k[1]]++
	}
	print ""
	for (s in ran)
		printf "%s: %d tests, %d pass on the series, %d on the BPF version\n",
		       s, total[s], ours_pass[s], bpf_pass[s]
}
