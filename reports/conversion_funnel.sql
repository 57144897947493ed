-- Conversion funnel (funnels.md "Conversion funnel"): one row per (date, placement) that has
-- presentations; every count is over the presentations that have an impression (a row may have 0
-- impressions, and then an empty conversion_rate). Parameters as in encounter_funnel.sql.
-- open_s percentiles use the nearest rank: the value at 1-based rank ceil(p/100 * n) among the
-- closed presentations' close open_s, sorted ascending; NULL when none is closed.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
presentations AS (
  SELECT d.date, l.placement, p.impression_at IS NOT NULL AS seen, p.plan_selected, p.purchase_started,
         p.close_at, p.close_result, p.close_via, p.close_open_s
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE :placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements))
),
funnel AS (
  SELECT date, placement,
         sum(seen) AS impressions,
         sum(seen AND plan_selected) AS plan_selected,
         sum(seen AND purchase_started) AS purchase_started,
         sum(seen AND close_result IS 'purchased') AS purchased,
         sum(seen AND close_result IS 'restored') AS restored,
         sum(seen AND close_result IS 'dismissed' AND close_via IS 'close_button') AS dismissed_close_button,
         sum(seen AND close_result IS 'dismissed' AND close_via IS 'continue_free') AS dismissed_continue_free,
         sum(seen AND close_at IS NULL) AS unclosed,
         sum(seen AND close_result IS 'dismissed' AND NOT purchase_started) AS bounces,
         sum(seen AND close_result IS 'dismissed' AND purchase_started) AS purchase_cancellations,
         sum(seen AND close_result IS 'dismissed' AND close_via IS 'gesture') AS dismissed_gesture,
         sum(seen AND close_via IS 'abandoned') AS abandoned
  FROM presentations
  GROUP BY date, placement
),
ranked AS (
  SELECT date, placement, close_open_s,
         row_number() OVER (PARTITION BY date, placement ORDER BY close_open_s) AS rank,
         count(*) OVER (PARTITION BY date, placement) AS n
  FROM presentations
  WHERE seen AND close_at IS NOT NULL
),
percentiles AS (
  SELECT date, placement,
         max(CASE WHEN rank = (50 * n + 99) / 100 THEN close_open_s END) AS open_s_p50,
         max(CASE WHEN rank = (90 * n + 99) / 100 THEN close_open_s END) AS open_s_p90
  FROM ranked
  GROUP BY date, placement
)
SELECT f.date, f.placement, f.impressions, f.plan_selected, f.purchase_started, f.purchased, f.restored,
       f.dismissed_close_button, f.dismissed_continue_free, f.unclosed, f.bounces, f.purchase_cancellations,
       CASE WHEN f.impressions > 0 THEN 1.0 * f.purchased / f.impressions END AS conversion_rate,
       p.open_s_p50, p.open_s_p90, f.dismissed_gesture, f.abandoned
FROM funnel AS f
LEFT JOIN percentiles AS p ON p.date = f.date AND p.placement = f.placement
ORDER BY f.date, f.placement;
