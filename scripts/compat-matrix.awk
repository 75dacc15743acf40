#!/usr/bin/awk -f
# The compat matrix from the console logs of make check-compat: the lines
#   # compat CONFIG ROW KIND RESULT
# that tests/compat_test.c prints, one per row and configuration (CONFIG
# "stock" for the run on the kernel without the series).  Prints a row per
# invocation and a column per configuration, and says under which of them
# a refusal is meant (the clamps, or the switches that turn unprivileged
# user namespaces off); exits 1 if our default column differs from
# stock's on a row both ran.

BEGIN {
	ncols = split("stock default mask mask_raw nnp setpcap boot clone0 maxns0 bpf", cols, " ")
	meant["sandbox"] = "no clamp; every switch"
	meant["surface"] = "every clamp and switch"
	meant["setuid-helper"] = "no_new_privs; every switch"
	meant["root-container"] = "a set root lowered; max_user_namespaces=0"
}
{ sub(/\r$/, "") }
$1 == "#" && $2 == "compat" && NF == 6 {
	if (!($4 in kind)) { rows[++nrows] = $4; kind[$4] = $5 }
	cell[$4, $3] = $6
	seen[$3] = 1
}
END {
	printf "%-24s", "row"
	for (c = 1; c <= ncols; c++)
		if (seen[cols[c]]) printf " %-8s", cols[c]
	printf "  %s\n", "refused, as meant, under"
	for (r = 1; r <= nrows; r++) {
		row = rows[r]
		printf "%-24s", row
		for (c = 1; c <= ncols; c++) {
			if (!seen[cols[c]])
				continue
			v = "-"
			if ((row, cols[c]) in cell)
				v = cell[row, cols[c]]
			printf " %-8s", v
		}
		printf "  %s\n", meant[kind[row]]
		if ((row, "stock") in cell && (row, "default") in cell &&
		    cell[row, "stock"] != cell[row, "default"]) {
			print "compat: " row ": default " cell[row, "default"] \
			      ", stock " cell[row, "stock"]
			differs++
		}
	}
	if (seen["stock"])
		print (differs ? differs " rows differ from stock" : \
		       "default column identical to stock on every row")
	exit differs > 0
}
