#!/usr/bin/env python3
"""Recomputes the offering comparison's money and sequential statistics independently with numpy
and the standard library, for the cases the Swift test sends.

usage: revenue_statistics_check.py < cases.json
Input: a JSON list of cases, each {"a": [dollars...], "b": [dollars...], "x": int, "n": int,
"x0": int, "n0": int}. Output: a JSON list, per case, of
{"ci": [low, high] | null, "welch": p | null, "seq": [low, high] | null, "seq_p": p | null}:
the mean of "a" ± z·s/√n with z = 1.959964 (the constant the definitions fix) and s = numpy's std(ddof=1); the
Welch z-test of a against b with NormalDist's cdf; the mixture sequential interval and p-value
(τ = 0.05, α = 0.05) of x/n − x0/n0, written from the formulas with numpy's log and exp.
"""
import json, math, statistics, sys
import numpy as np

TAU2 = 0.05 ** 2
ALPHA = 0.05
normal = statistics.NormalDist()
z = 1.959964
out = []
for case in json.load(sys.stdin):
    a = np.array(case["a"], dtype=np.float64)
    b = np.array(case["b"], dtype=np.float64)
    result = {"ci": None, "welch": None, "seq": None, "seq_p": None}
    if len(a) >= 2:
        m, s = float(np.mean(a)), float(np.std(a, ddof=1))
        result["ci"] = [m - z * s / math.sqrt(len(a)), m + z * s / math.sqrt(len(a))]
        if len(b) >= 2:
            se = math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))
            if se > 0:
                result["welch"] = 2 * (1 - normal.cdf(abs(m - float(np.mean(b))) / se))
    p, p0 = case["x"] / case["n"], case["x0"] / case["n0"]
    v = p * (1 - p) / case["n"] + p0 * (1 - p0) / case["n0"]
    if v > 0:
        d = p - p0
        half = math.sqrt(v * (v + TAU2) / TAU2 * (2 * np.log(1 / ALPHA) + np.log((v + TAU2) / v)))
        result["seq"] = [d - half, d + half]
        result["seq_p"] = min(1.0, float(np.sqrt((v + TAU2) / v) * np.exp(-TAU2 * d * d / (2 * v * (v + TAU2)))))
    out.append(result)
json.dump(out, sys.stdout)
