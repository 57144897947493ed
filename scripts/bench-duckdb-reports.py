#!/usr/bin/env python3
"""DuckDB baseline for `paywall-bench report`: the seven reports of funnels.md (UTC) over an events
CSV exported by `paywall-analytics export events --raw`, timed two ways:
  csv:   read_csv + every aggregation in one go (what a user does with the export);
  table: the same aggregations over a table already loaded into DuckDB (query time only).
usage: bench-duckdb-reports.py EVENTS_CSV FROM TO     prints JSON with seconds and checksums.
"""
import json, sys, time

try:
    import duckdb
except ImportError:
    sys.exit("duckdb is missing: pip install duckdb (the report benchmark needs it)")

path, date_from, date_to = sys.argv[1:4]
WINDOW = 259_200_000

PRESENTATIONS = """
CREATE OR REPLACE TEMP TABLE presentations AS
SELECT pw_id,
       min(occurred_at) AS first_at,
       CAST(epoch_ms(min(occurred_at)) AS DATE) AS date,
       arg_min(source, struct_pack(t := occurred_at, i := id)) AS placement,
       arg_min(user_id, struct_pack(t := occurred_at, i := id)) AS user_id,
       count(*) FILTER (WHERE name = 'paywall_shown') > 0 AS seen,
       min(occurred_at) FILTER (WHERE name = 'paywall_shown') AS impression_at,
       count(*) FILTER (WHERE name = 'paywall_plan_selected') > 0 AS has_plan,
       count(*) FILTER (WHERE name = 'paywall_purchase_started') > 0 AS has_start,
       count(*) FILTER (WHERE name = 'paywall_closed') > 0 AS closed,
       min(occurred_at) FILTER (WHERE name = 'paywall_closed') AS close_at,
       arg_min(struct_pack(r := result, v := via, o := open_s, p := product), struct_pack(t := occurred_at, i := id))
         FILTER (WHERE name = 'paywall_closed') AS c,
       arg_min(struct_pack(o := offering_id), struct_pack(t := occurred_at, i := id))
         FILTER (WHERE name = 'paywall_shown') AS sh
FROM {source}
GROUP BY pw_id
"""
REPORTS = {
    "encounter_funnel": """
SELECT date, placement, count(*), count(*) FILTER (WHERE seen), count(*) FILTER (WHERE closed AND NOT seen),
       count(DISTINCT user_id) FILTER (WHERE seen), count(*) FILTER (WHERE seen) / count(*)
FROM presentations WHERE date BETWEEN DATE '{f}' AND DATE '{t}' GROUP BY date, placement ORDER BY date, placement""",
    "conversion_funnel": """
SELECT date, placement, count(*) FILTER (WHERE seen) AS i, count(*) FILTER (WHERE seen AND has_plan),
       count(*) FILTER (WHERE seen AND has_start), count(*) FILTER (WHERE seen AND c.r = 'purchased') AS p,
       count(*) FILTER (WHERE seen AND c.r = 'restored'),
       count(*) FILTER (WHERE seen AND c.r = 'dismissed' AND c.v = 'close_button'),
       count(*) FILTER (WHERE seen AND c.r = 'dismissed' AND c.v = 'continue_free'),
       count(*) FILTER (WHERE seen AND NOT closed),
       count(*) FILTER (WHERE seen AND c.r = 'dismissed' AND NOT has_start),
       count(*) FILTER (WHERE seen AND c.r = 'dismissed' AND has_start),
       CASE WHEN i > 0 THEN p / i END,
       list_sort(list(c.o) FILTER (WHERE seen AND closed)) AS s,
       s[(50 * len(s) + 99) // 100], s[(90 * len(s) + 99) // 100]
FROM presentations WHERE date BETWEEN DATE '{f}' AND DATE '{t}' GROUP BY date, placement ORDER BY date, placement""",
    "placement_summary": """
SELECT placement, count(*), count(*) FILTER (WHERE seen) AS i, count(DISTINCT user_id) FILTER (WHERE seen),
       count(*) FILTER (WHERE seen AND c.r = 'purchased') AS p, count(*) FILTER (WHERE seen AND c.r = 'restored'),
       CASE WHEN i > 0 THEN p / i END, list_sort(list(c.o) FILTER (WHERE seen AND closed)) AS s,
       s[(50 * len(s) + 99) // 100], s[(90 * len(s) + 99) // 100]
FROM presentations WHERE date BETWEEN DATE '{f}' AND DATE '{t}' GROUP BY placement ORDER BY placement""",
    "product_mix": """
SELECT placement, c.p AS product, count(*) AS n, n / sum(n) OVER (PARTITION BY placement)
FROM presentations WHERE seen AND c.r = 'purchased' AND date BETWEEN DATE '{f}' AND DATE '{t}'
GROUP BY placement, product ORDER BY placement, product""",
    "offering_comparison": """
WITH o AS (SELECT placement, coalesce(sh.o, '') AS offering, count(DISTINCT user_id) AS n, count(*) AS i,
                  count(DISTINCT user_id) FILTER (WHERE c.r = 'purchased') AS x, x / n AS rate
           FROM presentations WHERE seen AND date BETWEEN DATE '{f}' AND DATE '{t}' GROUP BY placement, offering),
     k AS (SELECT placement, arg_min(struct_pack(o := offering, n := n, x := x, r := rate), struct_pack(a := -n, b := offering)) AS c
           FROM o GROUP BY placement),
     s AS (SELECT o.*, o.offering = k.c.o AS control, k.c.r AS cr, (o.x + k.c.x) / (o.n + k.c.n) AS pooled,
                  sqrt(pooled * (1 - pooled) * (1 / o.n + 1 / k.c.n)) AS se, 1.959964 * 1.959964 AS z2
           FROM o JOIN k USING (placement))
SELECT placement, offering, n, i, x, rate,
       greatest(0, (rate + z2 / (2 * n)) / (1 + z2 / n) - 1.959964 * sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)),
       least(1, (rate + z2 / (2 * n)) / (1 + z2 / n) + 1.959964 * sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)),
       control, CASE WHEN NOT control AND cr > 0 THEN rate / cr - 1 END,
       CASE WHEN NOT control AND se > 0 THEN abs(rate - cr) / se END  -- the z score (the p-value is erfc of it: same work)
FROM s ORDER BY placement, offering""",
    "cohort_conversion": """
WITH firsts AS (SELECT user_id, placement, min(impression_at) AS fi FROM presentations WHERE seen GROUP BY user_id, placement),
     buys AS (SELECT user_id, close_at FROM presentations WHERE c.r = 'purchased'),
     cohorts AS (SELECT CAST(epoch_ms(fi) AS DATE) AS cohort_date, * FROM firsts
                 WHERE CAST(epoch_ms(fi) AS DATE) BETWEEN DATE '{f}' AND DATE '{t}'),
     outcomes AS (SELECT cohort_date, k.placement, k.user_id,
                         bool_or(b.close_at BETWEEN k.fi AND k.fi + {w}) AS converted
                  FROM cohorts k LEFT JOIN buys b ON b.user_id = k.user_id GROUP BY cohort_date, k.placement, k.user_id)
SELECT cohort_date, placement, count(*), count(*) FILTER (WHERE converted), count(*) FILTER (WHERE converted) / count(*),
       (SELECT max(occurred_at) FROM {source}) >= epoch_ms(cohort_date + 1) + {w}
FROM outcomes GROUP BY cohort_date, placement ORDER BY cohort_date, placement""",
    "data_quality": """
SELECT CAST(epoch_ms(occurred_at) AS DATE) AS date, count(*), count(*) FILTER (WHERE name = 'paywall_shown'),
       count(*) FILTER (WHERE name = 'paywall_shown' AND delivery_state = 'delivered'),
       count(*) FILTER (WHERE name = 'paywall_shown' AND delivery_state = 'pending'),
       count(*) FILTER (WHERE name = 'paywall_shown' AND delivery_state = 'dead')
FROM {source} WHERE CAST(epoch_ms(occurred_at) AS DATE) BETWEEN DATE '{f}' AND DATE '{t}' GROUP BY date ORDER BY date""",
}

def run_all(con, source):
    con.execute(PRESENTATIONS.format(source=source))
    results = {}
    for name, sql in REPORTS.items():
        results[name] = con.execute(sql.format(f=date_from, t=date_to, w=WINDOW, source=source)).fetchall()
    return results

reader = f"read_csv('{path}', header = true, auto_detect = true, nullstr = '')"
con = duckdb.connect()
start = time.perf_counter()
csv_results = run_all(con, reader)
csv_seconds = time.perf_counter() - start

con = duckdb.connect()
start = time.perf_counter()
con.execute(f"CREATE TABLE events AS SELECT * FROM {reader}")
load_seconds = time.perf_counter() - start
start = time.perf_counter()
table_results = run_all(con, "events")
table_seconds = time.perf_counter() - start

encounter = table_results["encounter_funnel"]
print(json.dumps({
    "csv_seconds": csv_seconds, "load_seconds": load_seconds, "table_seconds": table_seconds,
    "presentations": sum(r[2] for r in encounter), "impressions": sum(r[3] for r in encounter),
    "encounter_rows": len(encounter), "same_results": csv_results == table_results,
}))
