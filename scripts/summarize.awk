#!/usr/bin/awk -f
# Count the results in a guest console log and print the closing line
# 'N passed, N failed[, N skipped]'.  Exits 1 on any failure.
#
# The log holds KTAP from KUnit, printed by the kernel before init runs, and
# TAP from each userspace suite, which guest/init brackets with
#   ==> suite NAME          and          <== suite NAME rc=N
# A result line counts as one test unless it closes a subtest, which is told
# by a deeper result line before it.  A suite whose results fall short of its
# plan, that exits non-zero without a failing test, or that never ends, is a
# failure; so is a kernel BUG, WARNING, oops or panic anywhere in the log.
#
# Variables: expect="kunit suite1 suite2 ...", the suites that must report.

function fail(msg) { failed++; print "FAIL: " msg }
function result(line, indent,    m, name, skip) {
	skip = line ~ /# *SKIP/
	name = line
	sub(/^ *(not )?ok [0-9]+ ?(- )?/, "", name)
	if (deeper[indent]) { deeper[indent] = 0; suite_results[indent]++; return }
	for (m = 0; m < indent; m++) deeper[m] = 1
	suite_results[indent]++
	if (line ~ /^ *not ok/ && !skip) { fail(cur ": " name); suite_failed[cur]++ }
	else if (skip) { skipped++; print "SKIP: " cur ": " name }
	else passed++
	counted[cur]++
}
function close_plan(   i) {
	if (cur != "" && plan[cur] != "" && suite_results[0] < plan[cur])
		fail(cur ": " plan[cur] - suite_results[0] " of " plan[cur] " planned tests did not report")
	for (i in suite_results) delete suite_results[i]
	for (i in deeper) delete deeper[i]
}
BEGIN { cur = "kunit"; n = split(expect, want, " ") }
{ sub(/\r$/, "") }
!/^ *(#|ok |not ok )/ && /(BUG:|WARNING:|Oops|Kernel panic|general protection fault|UBSAN:|KASAN|ODEBUG:|list_add corruption|list_del corruption|Call Trace:)/ {
	fail("kernel: " $0)
}
/^==> suite / { close_plan(); cur = $3; delete plan[cur]; started[cur] = 1; next }
/^<== suite / {
	close_plan()
	rc = $4; sub(/rc=/, "", rc)
	ended[$3] = 1
	if (rc != 0 && !suite_failed[$3])
		fail($3 ": exited with status " rc " without a failing test")
	cur = "(between suites)"
	next
}
/^==> all suites done/ { done = 1; close_plan(); next }
/^==> qemu timed out/ { fail("guest: " substr($0, 5)) }
/^ *1\.\.[0-9]+/ {
	indent = match($0, /[^ ]/) - 1
	if (indent == 0 && plan[cur] == "") { p = $0; sub(/^ *1\.\./, "", p); plan[cur] = p + 0 }
	next
}
/^ *(not )?ok [0-9]+/ { result($0, match($0, /[^ ]/) - 1) }
END {
	if (!done) fail("guest: the run did not finish (no '==> all suites done')")
	for (i = 1; i <= n; i++) {
		s = want[i]
		if (s == "kunit") { if (!counted["kunit"]) fail("kunit: no KUnit results in the log") }
		else if (!started[s]) fail(s ": did not run")
		else if (!ended[s]) fail(s ": did not finish")
		else if (!counted[s]) fail(s ": reported no test")
	}
	line = passed + 0 " passed, " failed + 0 " failed"
	if (skipped) line = line ", " skipped " skipped"
	print line
	exit failed > 0
}
