#!/usr/bin/env python3
"""Reads report CSVs back the way a consumer would and compares them value by value.

usage: read_back.py OUT_DIR EXPECTATIONS.json
EXPECTATIONS: {"file.csv": {"columns": [...], "rows": [[cell, ...], ...]}} where each cell is the
string the csv module must return; pandas must agree (numbers numerically, empty cells as NaN).
Exits 0 when everything matches; prints every mismatch and exits 1 otherwise.
"""
import csv, io, json, math, sys

try:
    import pandas as pd
except ImportError:
    sys.exit("pandas is missing: pip install pandas (the reports tests need it)")

out_dir, expectations_path = sys.argv[1], sys.argv[2]
expectations = json.load(open(expectations_path, encoding="utf-8"))
problems = []

for name, expected in expectations.items():
    raw = open(f"{out_dir}/{name}", "rb").read()
    if raw.startswith(b"\xef\xbb\xbf"):
        problems.append(f"{name}: starts with a BOM")
    text = raw.decode("utf-8")  # raises on invalid UTF-8
    if text and not text.endswith("\r\n"):
        problems.append(f"{name}: last record does not end with CRLF")
    records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    if records[0] != expected["columns"]:
        problems.append(f"{name}: header {records[0]} != {expected['columns']}")
    if records[1:] != expected["rows"]:
        for i, (got, want) in enumerate(zip(records[1:], expected["rows"])):
            if got != want:
                problems.append(f"{name} row {i + 1} (csv): {got} != {want}")
        if len(records) - 1 != len(expected["rows"]):
            problems.append(f"{name}: {len(records) - 1} rows, expected {len(expected['rows'])}")
    frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    if list(frame.columns) != expected["columns"] or frame.values.tolist() != expected["rows"]:
        problems.append(f"{name} (pandas, as text): differs from csv module")
    typed = pd.read_csv(io.StringIO(text))
    for i, row in enumerate(expected["rows"]):
        for column, want in zip(expected["columns"], row):
            got = typed[column].iloc[i]
            if want == "":
                ok = isinstance(got, float) and math.isnan(got)
            elif want in ("true", "false"):
                ok = type(got).__name__ in ("bool", "bool_") and bool(got) == (want == "true")
            else:
                try:
                    ok = float(got) == float(want)
                except (TypeError, ValueError):
                    ok = str(got) == want
            if not ok:
                problems.append(f"{name} row {i + 1} column {column} (pandas): {got!r} != {want!r}")

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
