#!/usr/bin/env python3
# make bench, the EROFS part: erofs.csv (MEASURE,WHO,SECONDS) into
# erofs-summary.csv, with the ratios the targets are about, and
# erofs-chart.dat for erofs_chart.gp.
import csv
import sys

src, out = sys.argv[1], sys.argv[2]
t = {}
with open(src) as f:
    for measure, who, secs in csv.reader(f):
        t[(measure, who)] = float(secs)

rows = [
    # measure, slow, fast, what the ratio means, target
    ("walk", "fuse", "kernel", "FUSE / kernel, find + stat, cold", 3.0),
    ("walk_warm", "fuse", "kernel", "FUSE / kernel, find + stat, warm", None),
    ("read", "fuse", "kernel", "FUSE / kernel, 64 MiB read, cold", 1.0),
    ("mount", "userns", "root", "userns mount / root's plain mount", None),
    # What verification costs: the same image without fs-verity.
    ("walk", "kernel", "plain", "verified / unverified EROFS, walk, cold", None),
    ("walk_warm", "kernel", "plain", "verified / unverified EROFS, walk, warm", None),
    ("read", "kernel", "plain", "verified / unverified EROFS, read, cold", None),
    ("walk", "fuse", "plain", "FUSE / unverified EROFS, walk, cold", None),
    ("read", "fuse", "plain", "FUSE / unverified EROFS, read, cold", None),
]
with open(out + "/erofs-summary.csv", "w") as f:
    w = csv.writer(f)
    w.writerow(["measure", "a", "b", "a_seconds", "b_seconds", "ratio",
                "target", "met"])
    for m, a, b, what, target in rows:
        r = t[(m, a)] / t[(m, b)]
        if m == "mount":
            met = r <= 2.0
            target_text = "<= 2"
        else:
            met = target is None or r > target
            target_text = "" if target is None else "> %g" % target
        w.writerow([m, a, b, "%.6f" % t[(m, a)], "%.6f" % t[(m, b)],
                    "%.2f" % r, target_text, "yes" if met else "NO"])
        print("%-10s %-7s %9.4f s  %-7s %9.4f s  ratio %6.2f  %s  %s" %
              (m, a, t[(m, a)], b, t[(m, b)], r, what,
               "" if not target_text else
               "(target %s: %s)" % (target_text, "met" if met else "MISSED")))
with open(out + "/erofs-chart.dat", "w") as f:
    for m in ("walk", "walk_warm", "read"):
        f.write("%s %.6f %.6f\n" % (m, t[(m, "kernel")], t[(m, "fuse")]))
