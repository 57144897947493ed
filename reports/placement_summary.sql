-- Placement summary (funnels.md "Placement summary"): one row per placement over the whole range.
-- unique_viewers is distinct over the range (not a sum of days); purchased, restored, the rate and
-- the open_s percentiles are over the presentations that have an impression, as in the conversion
-- funnel. Parameters as in encounter_funnel.sql.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
presentations AS (
  SELECT l.placement, p.customer_key, p.impression_at IS NOT NULL AS seen, p.close_at, p.close_result, p.close_open_s
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE :placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements))
),
summary AS (
  SELECT placement,
         count(*) AS presentations,
         sum(seen) AS impressions,
         count(DISTINCT CASE WHEN seen THEN customer_key END) AS unique_viewers,
         sum(seen AND close_result IS 'purchased') AS purchased,
         sum(seen AND close_result IS 'restored') AS restored
  FROM presentations
  GROUP BY placement
),
ranked AS (
  SELECT placement, close_open_s,
         row_number() OVER (PARTITION BY placement ORDER BY close_open_s) AS rank,
         count(*) OVER (PARTITION BY placement) AS n
  FROM presentations
  WHERE seen AND close_at IS NOT NULL
),
percentiles AS (
  SELECT placement,
         max(CASE WHEN rank = (50 * n + 99) / 100 THEN close_open_s END) AS open_s_p50,
         max(CASE WHEN rank = (90 * n + 99) / 100 THEN close_open_s END) AS open_s_p90
  FROM ranked
  GROUP BY placement
)
SELECT s.placement, s.presentations, s.impressions, s.unique_viewers, s.purchased, s.restored,
       CASE WHEN s.impressions > 0 THEN 1.0 * s.purchased / s.impressions END AS conversion_rate,
       p.open_s_p50, p.open_s_p90
FROM summary AS s
LEFT JOIN percentiles AS p ON p.placement = s.placement
ORDER BY s.placement;
