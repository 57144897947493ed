-- Encounter funnel (funnels.md "Encounter funnel"): one row per (date, placement).
-- Parameters:
--   :days        JSON array of [date 'YYYY-MM-DD', start_ms, end_ms): the report's calendar days in
--                the report time zone (computed by the caller, DST-correct), ascending
--   :placements  JSON array of placements to keep, or NULL for all
-- Reads report_presentations (rollup_presentations.sql); a presentation's placement is its
-- placement_key's name in report_placements, its customer its customer_key (one key per user_id).
-- The caller formats rates to 4 decimals.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
presentations AS (
  SELECT d.date, l.placement, p.customer_key, p.impression_at, p.close_at
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE :placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements))
)
SELECT date,
       placement,
       count(*) AS presentations,
       count(impression_at) AS impressions,
       sum(close_at IS NOT NULL AND impression_at IS NULL) AS dwell_bounces,
       count(DISTINCT CASE WHEN impression_at IS NOT NULL THEN customer_key END) AS unique_viewers,
       1.0 * count(impression_at) / count(*) AS impression_rate
FROM presentations
GROUP BY date, placement
ORDER BY date, placement;
