-- Offering trends (funnels.md "Offering comparison", "Over time"): for each day of the range on which a
-- (placement, offering) was seen, the offering comparison's customers and converted customers counted
-- from the range's first day through the end of that day. Offerings, customers and conversions as in
-- offering_comparison.sql: a presentation's offering is its first impression's (empty when none), only
-- presentations with an impression count, a customer counts once per (placement, offering) from the
-- first day it saw the offering, and converted from the first day one of those presentations closed
-- `purchased` (by the presentation's first event day). Not a CSV: the page draws it (the money per
-- customer is added in Swift from the subscription attribution, as for the comparison).
-- Columns: date, placement, offering, customers, converted; sorted by day, placement, offering.
-- Parameters as in encounter_funnel.sql.
WITH days AS (
  SELECT CAST(key AS INTEGER) AS day, value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms
  FROM json_each(:days)
),
presentations AS (
  SELECT d.day, l.placement, coalesce(p.offering, '') AS offering, p.customer_key,
         p.close_result IS 'purchased' AS purchased
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE p.impression_at IS NOT NULL
    AND (:placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements)))
),
firsts AS (
  SELECT placement, offering, customer_key, min(day) AS first_seen,
         min(CASE WHEN purchased THEN day END) AS first_converted
  FROM presentations
  GROUP BY placement, offering, customer_key
),
seen AS (
  SELECT DISTINCT day, placement, offering FROM presentations
),
new_customers AS (
  SELECT placement, offering, first_seen AS day, count(*) AS n FROM firsts GROUP BY placement, offering, first_seen
),
new_converted AS (
  SELECT placement, offering, first_converted AS day, count(*) AS n FROM firsts
  WHERE first_converted IS NOT NULL
  GROUP BY placement, offering, first_converted
)
SELECT d.date, s.placement, s.offering,
       sum(coalesce(c.n, 0)) OVER running AS customers,
       sum(coalesce(v.n, 0)) OVER running AS converted
FROM seen AS s
JOIN days AS d ON d.day = s.day
LEFT JOIN new_customers AS c ON c.placement = s.placement AND c.offering = s.offering AND c.day = s.day
LEFT JOIN new_converted AS v ON v.placement = s.placement AND v.offering = s.offering AND v.day = s.day
WINDOW running AS (PARTITION BY s.placement, s.offering ORDER BY s.day ROWS UNBOUNDED PRECEDING)
ORDER BY s.day, s.placement, s.offering;
