#!/usr/bin/env python3
"""Checks the daily conversion points of report.html independently (standard library only).

usage: daily_titles_check.py REPORT.html
Every SVG <circle> whose <title> reads like a daily conversion point must be exactly
`DATE: RATE% (X of N; 95% LO–HI%)` (an en dash, U+2013, between the bounds), or, for the offering
trends' points (counted from the range's first day), exactly
`FIRST to DATE: X of N customers who saw offering O at P converted, RATE% (95% LO–HI%)` ("1 customer"),
FIRST not after DATE. From X and N this recomputes the rate and the 95 % Wilson score interval by its
formula, with z from statistics.NormalDist (not the library's constant), and expects each shown
figure to be that value rounded to one decimal (within half a tenth of a percent). Prints one JSON
line (points checked, of them offering trend points, mismatches) and exits 1 on any mismatch or
malformed title.
"""
import html, json, math, re, statistics, sys

text = open(sys.argv[1], encoding="utf-8").read()
z = statistics.NormalDist().inv_cdf(0.975)
pattern = re.compile(
    r"^(\d{4}-\d{2}-\d{2}): (\d+\.\d)% \((\d+) of (\d+); 95% (\d+\.\d)\u2013(\d+\.\d)%\)$")
cumulative_pattern = re.compile(
    r"^(\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}): (\d+) of (\d+) (customers?) who saw offering .+ at .+ converted, "
    r"(\d+\.\d)% \(95% (\d+\.\d)\u2013(\d+\.\d)%\)$")
problems = []
checked = 0
cumulative = 0


def wilson(x, n):
    p = x / n
    denominator = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, center - half), min(1.0, center + half)


for title in re.findall(r"<circle[^>]*><title>([^<]*)</title></circle>", text):
    title = html.unescape(title)
    if " of " not in title or "95%" not in title:
        continue  # another kind of point (impressions)
    match = pattern.match(title)
    trend = cumulative_pattern.match(title)
    if match:
        _, rate, x, n, low, high = match.groups()
        x, n = int(x), int(n)
    elif trend:
        first, date, x, n, word, rate, low, high = trend.groups()
        x, n = int(x), int(n)
        if first > date or word != ("customer" if n == 1 else "customers"):
            problems.append(f"{title!r}: first day after the date, or '{word}' for {n}")
        cumulative += 1
    else:
        problems.append(f"malformed title: {title!r}")
        continue
    expected_low, expected_high = wilson(x, n)
    for shown, value, what in ((rate, x / n, "rate"), (low, expected_low, "low"), (high, expected_high, "high")):
        if abs(float(shown) - value * 100) > 0.05 + 1e-9:
            problems.append(f"{title!r}: {what} {shown}, expected {value * 100:.4f}")
    checked += 1

print(json.dumps({"checked": checked, "offering_trend_points": cumulative, "problems": problems[:20]}))
sys.exit(1 if problems or checked == 0 else 0)
