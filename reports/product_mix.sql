-- Product mix (funnels.md "Product mix"): one row per (placement, product) over the whole range.
-- purchases: presentations with an impression whose close is 'purchased' with that product;
-- share: purchases / all such purchases at the placement. Parameters as in encounter_funnel.sql.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
purchases AS (
  SELECT l.placement, p.close_product AS product, count(*) AS purchases
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE p.impression_at IS NOT NULL AND p.close_result = 'purchased'
    AND (:placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements)))
  GROUP BY l.placement, p.close_product
)
SELECT placement, product, purchases,
       1.0 * purchases / sum(purchases) OVER (PARTITION BY placement) AS share
FROM purchases
ORDER BY placement, product;
