#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise make bench: runs.csv -> a table, summary.csv and chart.dat.

Each "ours" run is compared with the "stock" run booted just before it
(the boots alternate), so drift of the machine between boots cancels;
the ratio ours/stock is given as min, median and max over the runs.
Ratios are of time stamp counter ticks per operation: the host's TSC in
wall-clock runs, guest instructions under -icount shift=0.
"""

import csv
import statistics
import sys
from collections import defaultdict

# The cost of creating and freeing a user namespace alone: the timed
# clone+unshare+exit less the same clone+exit.
NET = ("unshare_userns_net", "clone_vm_unshare_userns", "clone_vm_exit")
HOT_LIMIT = {"ours": 1.01, "ours+mask": 1.02}
CREATE_LIMIT = 1.02


def load(path):
    runs = defaultdict(dict)  # (clock, variant, op) -> {run: ticks}
    ns = defaultdict(dict)    # the same, in nanoseconds
    order = []
    with open(path) as f:
        for row in csv.DictReader(f):
            # The second pass: under a mask on ours, plain on stock,
            # which has none; each is compared with its like.
            variant = row["kernel"]
            if row["label"] == "masked":
                variant += "+mask"
            op = row["op"]
            if op not in order:
                order.append(op)
            key = row["clock"], variant, op
            runs[key][row["run"]] = float(row["ticks_per_op"])
            ns[key][row["run"]] = float(row["ns_per_op"])
    for table in (runs, ns):
        for key in list(table):
            clock, variant, op = key
            if op != NET[1]:
                continue
            base = table.get((clock, variant, NET[2]), {})
            table[clock, variant, NET[0]] = {
                r: v - base[r] for r, v in table[key].items() if r in base}
    order.append(NET[0])
    return runs, ns, order


def stock_of(variant):
    """The stock pass a variant is compared with: its like."""
    return "stock+mask" if variant.endswith("+mask") else "stock"


def compare(runs, ns, clock, variant, op):
    base = stock_of(variant)
    stock = runs.get((clock, base, op), {})
    ours = runs.get((clock, variant, op), {})
    pairs = sorted(r for r in ours if r in stock)
    if not pairs:
        return None
    ratios = [ours[r] / stock[r] for r in pairs]
    # Wall clock: nanoseconds; -icount: instructions, which are the ticks.
    shown = ns if clock == "wall" else runs
    return {
        "stock": statistics.median(shown[clock, base, op][r] for r in pairs),
        "ours": statistics.median(shown[clock, variant, op][r] for r in pairs),
        "min": min(ratios), "median": statistics.median(ratios),
        "max": max(ratios), "runs": len(pairs),
    }


def spread(runs, clock, variant, op):
    """Stock's own range over its boots, relative to its median.

    A row whose stock figure moves between boots by more than the margin
    of its target cannot show whether ours is within it: the capability
    paths repeat to the instruction, the clone loops do not.
    """
    values = list(runs.get((clock, stock_of(variant), op), {}).values())
    if len(values) < 2:
        return None
    return (max(values) - min(values)) / statistics.median(values)


def main(path, outdir):
    runs, ns, order = load(path)
    rows = []
    # The BPF LSM version of the clamps (BENCH_CONFIG=distro): the stock
    # kernel with alt/'s program attached, under the second pass's mask.
    variants = ["ours", "ours+mask"]
    if any(v == "bpf" for _, v, _ in runs):
        variants.append("bpf")
    for clock in ("wall", "icount"):
        unit = "ops/s" if clock == "wall" else "instructions/op"
        show = (lambda v: 1e9 / v) if clock == "wall" else (lambda v: v)
        print(f"\n{clock}: {unit} (median), ratio to stock min median max")
        print(f"{'operation':26} {'stock':>9}" +
              "".join(f" {v:>9} {'ratio (min med max)':>24}" for v in variants))
        for op in order:
            line = f"{op:26}"
            for variant in variants:
                c = compare(runs, ns, clock, variant, op)
                if not c:
                    line += f" {'-':>9}" * (2 if variant == "ours" else 1) + f" {'-':>24}"
                    continue
                if variant == "ours":
                    line += f" {show(c['stock']):9.0f}"
                line += (f" {show(c['ours']):9.0f}   {c['min']:.4f} {c['median']:.4f}"
                         f" {c['max']:.4f}")
                rows.append((clock, op, variant, c))
            print(line)

    with open(f"{outdir}/summary.csv", "w") as f:
        f.write("clock,op,variant,runs,unit,stock_per_op,variant_per_op,"
                "stock_ops_per_s,variant_ops_per_s,ratio_min,ratio_median,"
                "ratio_max\n")
        for clock, op, variant, c in rows:
            unit = "ns" if clock == "wall" else "instructions"
            rate = (f"{1e9 / c['stock']:.0f},{1e9 / c['ours']:.0f}"
                    if clock == "wall" else ",")
            f.write(f"{clock},{op},{variant},{c['runs']},{unit},"
                    f"{c['stock']:.1f},{c['ours']:.1f},{rate},"
                    f"{c['min']:.4f},{c['median']:.4f},{c['max']:.4f}\n")

    # One line per operation: wall ratio (median, min, max) of ours and
    # the icount ratios of ours and ours+mask, each as a percentage.
    by = {(clock, op, variant): c for clock, op, variant, c in rows}
    with open(f"{outdir}/chart.dat", "w") as f:
        f.write("# op wall wall_min wall_max icount icount_mask\n")
        for op in order:
            w = by.get(("wall", op, "ours"))
            i = by.get(("icount", op, "ours"))
            m = by.get(("icount", op, "ours+mask"))
            if not (w and i):
                continue
            pct = lambda x: (x - 1) * 100
            f.write(f"{op} {pct(w['median']):.3f} {pct(w['min']):.3f} "
                    f"{pct(w['max']):.3f} {pct(i['median']):.3f} "
                    f"{pct(m['median']) if m else 0:.3f}\n")

    print("\ntargets, by instruction count (icount medians):")
    for clock, op, variant, c in rows:
        if clock != "icount" or op.startswith("clone_vm") or \
           variant not in HOT_LIMIT:
            continue
        limit = CREATE_LIMIT if op == NET[0] else HOT_LIMIT[variant]
        verdict = "within" if c["median"] <= limit else "OVER"
        noise = spread(runs, clock, variant, op)
        if noise is not None and noise > limit - 1:
            verdict = f"unresolved (stock varies {noise:.1%} between boots)"
        print(f"  {op:26} {variant:10} {c['median']:.4f} {verdict} {limit}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RUNS.CSV OUTDIR")
    main(sys.argv[1], sys.argv[2])
