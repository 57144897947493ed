-- Offering comparison (funnels.md "Offering comparison"): one row per (placement, offering) over the
-- whole range, by customer. A presentation's offering is the offering_id of its first impression
-- (empty when it has none); only presentations with an impression count. A customer seen with two
-- offerings at a placement counts in both. The control is :control where the placement has it, else
-- the offering with the most customers (ties: the smaller offering by code points, SQLite's BINARY
-- order of UTF-8). Interval: Wilson score at 95 % (z = 1.959964); p-value: two-sided two-proportion
-- z-test with the pooled rate, erfc(abs(z) / sqrt(2)). erfc() and square_root() are functions the library
-- registers on the connection (Database.defineMathFunctions: SQLite has no erfc, and its own sqrt exists
-- only in builds with its math functions). Parameters as in encounter_funnel.sql, plus :control (text or NULL).
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
presentations AS (
  SELECT l.placement, coalesce(p.offering, '') AS offering, p.customer_key,
         p.close_result IS 'purchased' AS purchased
  FROM days AS d
  JOIN report_presentations AS p ON p.first_at >= d.start_ms AND p.first_at < d.end_ms
  JOIN report_placements AS l ON l.key = p.placement_key
  WHERE p.impression_at IS NOT NULL
    AND (:placements IS NULL OR l.placement IN (SELECT value FROM json_each(:placements)))
),
customers AS (
  SELECT placement, offering, customer_key, count(*) AS impressions, max(purchased) AS converted
  FROM presentations
  GROUP BY placement, offering, customer_key
),
offerings AS (
  SELECT placement, offering, count(*) AS customers, sum(impressions) AS impressions, sum(converted) AS converted,
         1.0 * sum(converted) / count(*) AS rate
  FROM customers
  GROUP BY placement, offering
),
controls AS (
  SELECT placement, offering AS control, customers AS control_customers, converted AS control_converted,
         rate AS control_rate
  FROM (SELECT *, row_number() OVER (PARTITION BY placement
                                     ORDER BY offering IS :control DESC, customers DESC, offering) AS rank
        FROM offerings)
  WHERE rank = 1
),
compared AS (
  SELECT o.*, o.offering = c.control AS is_control, c.control_rate,
         1.0 * (o.converted + c.control_converted) / (o.customers + c.control_customers) AS pooled,
         1.0 / o.customers + 1.0 / c.control_customers AS inverse_sizes,
         1.959964 * 1.959964 AS z2
  FROM offerings AS o
  JOIN controls AS c ON c.placement = o.placement
),
tested AS (
  SELECT *, square_root(pooled * (1 - pooled) * inverse_sizes) AS se,
         (rate + z2 / (2 * customers)) / (1 + z2 / customers) AS center,
         1.959964 * square_root(rate * (1 - rate) / customers + z2 / (4.0 * customers * customers)) / (1 + z2 / customers) AS half
  FROM compared
)
SELECT placement, offering, customers, impressions, converted, rate AS conversion_rate,
       max(0.0, center - half) AS ci_low, min(1.0, center + half) AS ci_high,
       CASE WHEN is_control THEN 'true' ELSE 'false' END AS is_control,
       CASE WHEN NOT is_control AND control_rate > 0 THEN rate / control_rate - 1 END AS lift,
       CASE WHEN NOT is_control AND se > 0 THEN erfc(abs(rate - control_rate) / se / square_root(2.0)) END AS p_value
FROM tested
ORDER BY placement, offering;
