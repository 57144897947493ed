#!/usr/bin/env python3
"""Recomputes offering_comparison.csv's statistics independently (standard library only) and
compares them with the file to 4 decimals.

usage: offering_check.py OFFERING_COMPARISON.csv [CONTROL]
From each row's customers and converted it recomputes conversion_rate, the Wilson score interval
(z from statistics.NormalDist, not the constant the library uses), and against the placement's
control the lift and the two-sided pooled two-proportion p-value, once with math.erfc and once
with NormalDist.cdf. It also checks the control rule: CONTROL where the placement has it, else
the most customers, ties by the smaller offering in code points. Exits 0 when everything matches;
prints every mismatch and exits 1 otherwise.
"""
import csv, math, statistics, sys
from collections import defaultdict

path = sys.argv[1]
control_given = sys.argv[2] if len(sys.argv) > 2 else None
rows = list(csv.DictReader(open(path, encoding="utf-8", newline="")))
problems = []
z = statistics.NormalDist().inv_cdf(0.975)


def close(cell, value, what):
    if value is None:
        if cell != "":
            problems.append(f"{what}: {cell!r}, expected empty")
        return
    if cell == "" or abs(float(cell) - value) > 0.00005 + 1e-12:
        problems.append(f"{what}: {cell!r}, expected {value:.6f}")


def wilson(x, n):
    p = x / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


by_placement = defaultdict(list)
for row in rows:
    by_placement[row["placement"]].append(row)

for placement, offered in by_placement.items():
    keys = [r["offering"] for r in offered]
    if keys != sorted(keys, key=lambda s: s.encode("utf-8")):
        problems.append(f"{placement}: offerings not sorted by code points: {keys}")
    if control_given is not None and control_given in keys:
        expected_control = control_given
    else:
        expected_control = sorted(offered, key=lambda r: (-int(r["customers"]), r["offering"].encode("utf-8")))[0]["offering"]
    controls = [r["offering"] for r in offered if r["is_control"] == "true"]
    if controls != [expected_control]:
        problems.append(f"{placement}: control {controls}, expected [{expected_control!r}]")
        continue
    control = next(r for r in offered if r["offering"] == expected_control)
    cx, cn = int(control["converted"]), int(control["customers"])
    for r in offered:
        what = f"{placement}/{r['offering']}"
        x, n = int(r["converted"]), int(r["customers"])
        close(r["conversion_rate"], x / n, what + " conversion_rate")
        low, high = wilson(x, n)
        close(r["ci_low"], low, what + " ci_low")
        close(r["ci_high"], high, what + " ci_high")
        if not (float(r["ci_low"]) <= x / n <= float(r["ci_high"])):
            problems.append(f"{what}: the rate is outside its interval")
        if r is control:
            close(r["lift"], None, what + " lift")
            close(r["p_value"], None, what + " p_value")
            continue
        close(r["lift"], (x / n) / (cx / cn) - 1 if cx > 0 else None, what + " lift")
        pooled = (x + cx) / (n + cn)
        se = math.sqrt(pooled * (1 - pooled) * (1 / n + 1 / cn))
        if se == 0:
            close(r["p_value"], None, what + " p_value")
            continue
        score = (x / n - cx / cn) / se
        close(r["p_value"], math.erfc(abs(score) / math.sqrt(2)), what + " p_value (erfc)")
        close(r["p_value"], 2 * (1 - statistics.NormalDist().cdf(abs(score))), what + " p_value (NormalDist)")

if not rows:
    problems.append("no rows")
for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
