#!/usr/bin/env python3
"""Loads exported CSVs into ClickHouse (chDB, in-process), runs reports/clickhouse/*.sql and compares
every value with the CSV files the SQLite path wrote (raw, no formula guard) for the same range.

usage: clickhouse_compare.py REPORTS_DIR SQLITE_OUT_DIR EXPORT_DIR FROM TO TZ WINDOW_MS PLACEMENTS_JSON CONTROL_JSON NOW_MS
EXPORT_DIR holds events.csv, quarantine.csv (paywall-analytics export --raw), drops.csv,
suppressed_events.csv, subscription_events.csv and subscription_customer_keys.csv.
Exits 0 when every file matches; prints each difference and exits 1 otherwise.
"""
import csv, io, json, sys

try:
    from chdb import session
except ImportError:
    sys.exit("chdb is missing: pip install chdb (the ClickHouse parity test needs it)")

reports_dir, sqlite_dir, export_dir, date_from, date_to, tz, window_ms, placements = sys.argv[1:9]
control = sys.argv[9] if len(sys.argv) > 9 else "[]"
now_ms = int(sys.argv[10]) if len(sys.argv) > 10 else 0
RATES = {"impression_rate", "conversion_rate", "conversion_rate_3d", "share", "ci_low", "ci_high", "lift", "p_value",
         "impression_rate_vs_placement", "trial_conversion_rate", "rpc_ci_low", "rpc_ci_high", "revenue_p_value", "diff",
         "seq_ci_low", "seq_ci_high", "seq_p_value", "srm_p_value"}
SECONDS = {"open_s_p50", "open_s_p90"}

db = session.Session()
def run(sql, params=None):
    return db.query(sql, "JSONCompact", params=params or {})

for statement in open(f"{reports_dir}/schema.sql").read().split(";"):
    if statement.strip() and not all(l.startswith("--") for l in statement.strip().splitlines()):
        run(statement)
for table in ("events", "quarantine", "drops", "suppressed_events", "subscription_events", "subscription_customer_keys"):
    run(f"INSERT INTO {table} SELECT * FROM file('{export_dir}/{table}.csv', CSVWithNames) "
        "SETTINGS format_csv_null_representation = ''")
run(open(f"{reports_dir}/presentations.sql").read().rstrip().rstrip(";"))
for statement in open(f"{reports_dir}/subscriptions.sql").read().split(";"):
    if statement.strip() and not all(l.startswith("--") for l in statement.strip().splitlines()):
        run(statement)

def cell(column, value):
    if value is None:
        return ""
    if column in RATES:
        return "%.4f" % float(value)
    if column in SECONDS:
        return "%.3f" % float(value)
    return str(value)

# ClickHouse reads String query parameters in its escaped format: a backslash must be doubled.
params = {"from": date_from, "to": date_to, "tz": tz, "window_ms": int(window_ms),
          "placements_json": placements.replace("\\", "\\\\"), "control_json": control.replace("\\", "\\\\"),
          "now_ms": now_ms}
problems = []
for name in ["encounter_funnel", "conversion_funnel", "cohort_conversion", "placement_summary", "product_mix",
             "offering_comparison", "data_quality", "segments", "revenue"]:
    sql = open(f"{reports_dir}/{name}.sql").read().rstrip().rstrip(";")
    result = json.loads(str(run(sql + "\nSETTINGS output_format_json_quote_64bit_integers = 0", params)) if "SETTINGS" not in sql
                        else str(run(sql.replace("SETTINGS ", "SETTINGS output_format_json_quote_64bit_integers = 0, "), params)))
    columns = [c["name"] for c in result["meta"]]
    rows = [[cell(c, v) for c, v in zip(columns, row)] for row in result["data"]]
    with open(f"{sqlite_dir}/{name}.csv", newline="", encoding="utf-8") as f:
        sqlite_rows = list(csv.reader(f))
    if sqlite_rows[0] != columns:
        problems.append(f"{name}: columns {columns} != SQLite {sqlite_rows[0]}")
    if rows != sqlite_rows[1:]:
        for i, (a, b) in enumerate(zip(rows, sqlite_rows[1:])):
            if a != b:
                problems.append(f"{name} row {i + 1}: ClickHouse {a} != SQLite {b}")
        if len(rows) != len(sqlite_rows) - 1:
            problems.append(f"{name}: ClickHouse {len(rows)} rows, SQLite {len(sqlite_rows) - 1}")
    print(f"{name}: {len(rows)} rows compared")
for p in problems[:50]:
    print(p)
sys.exit(1 if problems else 0)
