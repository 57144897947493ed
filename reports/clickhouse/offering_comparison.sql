-- Offering comparison (funnels.md), ClickHouse. Needs presentations.sql. Parameters as in
-- encounter_funnel.sql, plus control_json: a JSON array holding the --control offering, or '[]'.
-- By customer: a customer seen with two offerings at a placement counts in both. The control is the
-- --control offering where the placement has it, else the most customers (ties: the smaller offering;
-- String comparison is by bytes, so by code points). Wilson interval at z = 1.959964; p-value of the
-- pooled two-proportion z-test, erfc(abs(z) / sqrt(2)).
WITH
offerings AS (
  SELECT
    placement,
    offering,
    uniqExact(user_id) AS customers,
    count() AS impressions,
    uniqExactIf(user_id, is_closed AND close_result = 'purchased') AS converted,
    converted / customers AS rate
  FROM presentations
  WHERE has_impression
    AND toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) BETWEEN toDate({from:String}) AND toDate({to:String})
    AND (JSONLength({placements_json:String}) = 0
         OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  GROUP BY placement, offering
),
controls AS (
  SELECT
    placement,
    argMin((offering, customers, converted, rate),
           (NOT has(JSONExtract({control_json:String}, 'Array(String)'), offering), -toInt64(customers), offering)) AS chosen
  FROM offerings
  GROUP BY placement
)
SELECT
  placement,
  offering,
  customers,
  impressions,
  converted,
  conversion_rate,
  greatest(0., center - half) AS ci_low,
  least(1., center + half) AS ci_high,
  if(control, 'true', 'false') AS is_control,
  if(NOT control AND control_rate > 0, conversion_rate / control_rate - 1, NULL) AS lift,
  if(NOT control AND se > 0, erfc(abs(conversion_rate - control_rate) / se / sqrt(2.)), NULL) AS p_value
FROM (
  SELECT
    o.placement AS placement,
    o.offering AS offering,
    o.customers AS customers,
    o.impressions AS impressions,
    o.converted AS converted,
    o.rate AS conversion_rate,
    o.offering = c.chosen.1 AS control,
    c.chosen.4 AS control_rate,
    (o.converted + c.chosen.3) / (o.customers + c.chosen.2) AS pooled,
    sqrt(pooled * (1 - pooled) * (1 / o.customers + 1 / c.chosen.2)) AS se,
    1.959964 * 1.959964 AS z2,
    (conversion_rate + z2 / (2 * o.customers)) / (1 + z2 / o.customers) AS center,
    1.959964 * sqrt(conversion_rate * (1 - conversion_rate) / o.customers + z2 / (4 * o.customers * o.customers))
      / (1 + z2 / o.customers) AS half
  FROM offerings AS o
  INNER JOIN controls AS c ON c.placement = o.placement
)
ORDER BY placement, offering;
