#!/usr/bin/env python3
"""Recomputes segments.csv from the store's raw events table (pandas, without the library's rollup)
and compares it with the file.

usage: segments_check.py STORE.sqlite SEGMENTS.csv START_MS END_MS
One presentation per pw_id (each event id once): its first event is the smallest (occurred_at, id);
that event's source is the placement, its platform and app_version the segment ('' when NULL), its
user_id the customer. Presentations whose first event is in [START_MS, END_MS) count. impression =
any paywall_shown; the close is the smallest (occurred_at, id) paywall_closed. Per segment:
presentations, impressions, unique viewers (distinct customers with an impression), purchased and
restored (with an impression), conversion_rate, the open_s nearest-rank percentiles 50 and 90 over
the closed presentations with an impression, impression_rate and its difference to the placement's.
Rows sorted by placement, platform, app_version in code points. Exits 0 when the file matches.
"""
import csv, sqlite3, sys
import pandas as pd

store, path, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
events = pd.read_sql_query(
    "SELECT id, name, occurred_at, user_id, pw_id, source, result, open_s, platform, app_version FROM events",
    sqlite3.connect(store)).drop_duplicates("id")
events = events.sort_values(["occurred_at", "id"], kind="mergesort")
first = events.groupby("pw_id", sort=False).head(1).set_index("pw_id")
first = first[(first.occurred_at >= start) & (first.occurred_at < end)]
shown = set(events[events.name == "paywall_shown"].pw_id)
closes = events[events.name == "paywall_closed"].groupby("pw_id", sort=False).head(1).set_index("pw_id")

rows = []
for pw, f in first.iterrows():
    close = closes.loc[pw] if pw in closes.index else None
    rows.append({
        "placement": f.source, "platform": "" if pd.isna(f.platform) else f.platform,
        "app_version": "" if pd.isna(f.app_version) else f.app_version,
        "user": f.user_id, "seen": pw in shown,
        "result": None if close is None else close.result,
        "open_s": None if close is None else close.open_s,
    })
p = pd.DataFrame(rows)


def rate(a, b):
    return None if b == 0 else a / b


def percentile(values, q):
    values = sorted(values)
    return None if not values else values[(q * len(values) + 99) // 100 - 1]


placement_rate = {k: g.seen.sum() / len(g) for k, g in p.groupby("placement")}
expected = []
keys = sorted({(r.placement, r.platform, r.app_version) for r in p.itertuples()},
              key=lambda k: tuple(s.encode("utf-32-be") for s in k))
for key in keys:
    g = p[(p.placement == key[0]) & (p.platform == key[1]) & (p.app_version == key[2])]
    seen = g[g.seen]
    purchased = int((seen.result == "purchased").sum())
    closed = [v for v, r in zip(seen.open_s, seen.result) if r is not None and not pd.isna(r)]
    impressions = int(g.seen.sum())
    expected.append([*key, len(g), impressions, seen.user.nunique(), purchased,
                     int((seen.result == "restored").sum()), rate(purchased, impressions),
                     percentile(closed, 50), percentile(closed, 90), impressions / len(g),
                     impressions / len(g) - placement_rate[key[0]]])

actual = list(csv.reader(open(path, encoding="utf-8", newline="")))[1:]
problems = []
if len(actual) != len(expected):
    problems.append(f"{len(actual)} rows, expected {len(expected)}")
for a, e in zip(actual, expected):
    a = [c[1:] if c[:1] == "'" and c[1:2] in "=+-@" else c for c in a]  # the formula guard's quote
    for column, (cell, value) in enumerate(zip(a, e)):
        if isinstance(value, str):
            ok = cell == value
        elif value is None:
            ok = cell == ""
        else:
            ok = cell != "" and abs(float(cell) - value) <= 0.00005 + 1e-12
        if not ok:
            problems.append(f"row {e[:3]} column {column}: {cell!r}, expected {value!r}")
for line in problems[:40]:
    print(line)
print(f"segments: {len(expected)} rows checked")
sys.exit(1 if problems else 0)
