-- Segments (funnels.md "Segments"): one row per (placement, platform, app_version) over the whole
-- range. A presentation's platform and app_version are those of its first event, kept in the rollup
-- ('' when that event has none: catalog version 1 events, or a device that did not say), and empty
-- values are their own segment. The columns of placement_summary.sql over the segment's
-- presentations, then impression_rate and its difference to the placement's (unrounded here, the
-- writer rounds to 4 places). Both engines agree with this file. Parameters as in encounter_funnel.sql.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
presentations AS (
  SELECT l.placement, coalesce(p.platform, '') AS platform, coalesce(p.app_version, '') AS app_version,
         p.customer_key, p.impression_at IS NOT NULL AS seen, p.close_at, p.close_result, p.close_open_s
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE :placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements))
),
placement_rates AS (
  SELECT placement, 1.0 * sum(seen) / count(*) AS rate FROM presentations GROUP BY placement
),
summary AS (
  SELECT placement, platform, app_version,
         count(*) AS presentations,
         sum(seen) AS impressions,
         count(DISTINCT CASE WHEN seen THEN customer_key END) AS unique_viewers,
         sum(seen AND close_result IS 'purchased') AS purchased,
         sum(seen AND close_result IS 'restored') AS restored
  FROM presentations
  GROUP BY placement, platform, app_version
),
ranked AS (
  SELECT placement, platform, app_version, close_open_s,
         row_number() OVER (PARTITION BY placement, platform, app_version ORDER BY close_open_s) AS rank,
         count(*) OVER (PARTITION BY placement, platform, app_version) AS n
  FROM presentations
  WHERE seen AND close_at IS NOT NULL
),
percentiles AS (
  SELECT placement, platform, app_version,
         max(CASE WHEN rank = (50 * n + 99) / 100 THEN close_open_s END) AS open_s_p50,
         max(CASE WHEN rank = (90 * n + 99) / 100 THEN close_open_s END) AS open_s_p90
  FROM ranked
  GROUP BY placement, platform, app_version
)
SELECT s.placement, s.platform, s.app_version, s.presentations, s.impressions, s.unique_viewers, s.purchased,
       s.restored,
       CASE WHEN s.impressions > 0 THEN 1.0 * s.purchased / s.impressions END AS conversion_rate,
       p.open_s_p50, p.open_s_p90,
       1.0 * s.impressions / s.presentations AS impression_rate,
       -- a difference that rounds to 0 is written as 0.0000, never -0.0000
       CASE WHEN abs(1.0 * s.impressions / s.presentations - r.rate) < 0.00005 THEN 0.0
            ELSE 1.0 * s.impressions / s.presentations - r.rate END AS impression_rate_vs_placement
FROM summary AS s
JOIN placement_rates AS r ON r.placement = s.placement
LEFT JOIN percentiles AS p ON p.placement = s.placement AND p.platform = s.platform AND p.app_version = s.app_version
ORDER BY s.placement, s.platform, s.app_version;
