-- Cohort conversion (funnels.md "Cohort conversion"): one row per (cohort_date, placement).
-- A customer (user_id; here its customer_key) joins the cohort of the day of their first impression
-- at the placement, over all stored history; only cohort dates inside :days are reported. converted_3d counts the
-- customers with a presentation (at any placement) whose close is 'purchased' and occurred within
-- :window_ms at or after that first impression (both ends inclusive).
-- Parameters as in encounter_funnel.sql, plus:
--   :window_ms   the cohort window in milliseconds (259200000 for the default 3 days)
--   :now_ms      the time of the run (Unix milliseconds)
-- window_complete: the newest stored event (meta 'reports.newest_occurred_at', kept by the
-- rollup, each event's occurred_at capped at its recorded_at), capped at :now_ms, is at least
-- :window_ms after the end of cohort_date: a device clock set ahead completes no cohort early.
-- A run filtered by platform or app version binds :newest_ms, the newest event of the presentations
-- it keeps (the rollup's last_at), as a store holding only them would have it.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
firsts AS (
  SELECT p.customer_key, l.placement, min(p.impression_at) AS first_impression_at
  FROM report_presentations AS p
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE p.impression_at IS NOT NULL
  GROUP BY p.customer_key, l.placement
),
cohorts AS (
  SELECT d.date AS cohort_date, d.end_ms, f.customer_key, f.placement, f.first_impression_at
  FROM days AS d
  JOIN firsts AS f ON f.first_impression_at >= d.start_ms AND f.first_impression_at < d.end_ms
  WHERE :placements IS NULL OR f.placement IN (SELECT value FROM json_each(:placements))
),
outcomes AS (
  SELECT c.cohort_date, c.placement, c.end_ms,
         EXISTS (
           SELECT 1 FROM report_presentations AS b
           WHERE b.customer_key = c.customer_key AND b.close_result = 'purchased'
             AND b.close_at >= c.first_impression_at AND b.close_at <= c.first_impression_at + :window_ms
         ) AS converted
  FROM cohorts AS c
)
SELECT cohort_date, placement,
       count(*) AS customers,
       sum(converted) AS converted_3d,
       1.0 * sum(converted) / count(*) AS conversion_rate_3d,
       CASE WHEN min(coalesce(:newest_ms,
                              (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'reports.newest_occurred_at'), 0),
                     :now_ms)
                 >= end_ms + :window_ms THEN 'true' ELSE 'false' END AS window_complete
FROM outcomes
GROUP BY cohort_date, placement
ORDER BY cohort_date, placement;
