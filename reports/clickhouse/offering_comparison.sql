-- Offering comparison (funnels.md), ClickHouse. Needs presentations.sql and subscriptions.sql. Parameters
-- as in encounter_funnel.sql, plus control_json: a JSON array holding the --control offering, or '[]'.
-- By customer: a customer seen with two offerings at a placement counts in both. The control is the
-- --control offering where the placement has it, else the most customers (ties: the smaller offering;
-- String comparison is by bytes, so by code points). Wilson interval at z = 1.959964; p-value of the
-- pooled two-proportion z-test, erfc(abs(z) / sqrt(2)). Money: the attributed subscriptions of the
-- range's presentations, revenue per customer over all the offering's customers (0 for those without)
-- with its mean interval and Welch test; diff with the always-valid (normal mixture, tau = 0.05,
-- alpha = 0.05) interval and p-value; the placement's sample-ratio chi-square over its non-empty
-- offerings (upper tail from the closed forms for integer degrees of freedom).
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
attributed AS (
  SELECT * FROM subscription_attribution
  WHERE toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) BETWEEN toDate({from:String}) AND toDate({to:String})
),
money AS (
  SELECT placement, offering, countIf(NOT trial) AS paid_starts, countIf(trial) AS trial_starts,
         sum(revenue_micros) AS revenue
  FROM attributed GROUP BY placement, offering
),
stats AS (
  SELECT o.placement AS placement, o.offering AS offering, o.customers AS customers, o.impressions AS impressions,
         o.converted AS converted, o.rate AS rate, ifNull(m.paid_starts, 0) AS paid_starts,
         ifNull(m.trial_starts, 0) AS trial_starts, ifNull(m.revenue, 0) AS revenue,
         ifNull(m.revenue, 0) / 1000000. / o.customers AS mean
  FROM offerings AS o LEFT JOIN money AS m ON m.placement = o.placement AND m.offering = o.offering
  SETTINGS join_use_nulls = 1
),
spread AS (
  SELECT s.placement AS placement, s.offering AS offering,
         sum((c.x - s.mean) * (c.x - s.mean)) AS squares, count() AS buyers
  FROM (SELECT placement, offering, user_id, sum(revenue_micros) / 1000000. AS x
        FROM attributed GROUP BY placement, offering, user_id) AS c
  INNER JOIN stats AS s ON s.placement = c.placement AND s.offering = c.offering
  GROUP BY placement, offering
),
samples AS (
  SELECT s.*, if(s.customers > 1,
                 sqrt((ifNull(p.squares, 0) + (s.customers - ifNull(p.buyers, 0)) * s.mean * s.mean) / (s.customers - 1)),
                 0.) AS sd
  FROM stats AS s LEFT JOIN spread AS p ON p.placement = s.placement AND p.offering = s.offering
  SETTINGS join_use_nulls = 1
),
controls AS (
  SELECT
    placement,
    argMin((offering, customers, converted, rate, mean, sd),
           (NOT has(JSONExtract({control_json:String}, 'Array(String)'), offering), -toInt64(customers), offering)) AS chosen
  FROM samples
  GROUP BY placement
),
ratios AS (
  SELECT placement, k, if(k < 2 OR total = 0, NULL, x2) AS x2, k - 1 AS df
  FROM (
    SELECT placement, count() AS k, sum(customers) AS total,
           arraySum(arrayMap(c -> (c - total / k) * (c - total / k) / (total / k), groupArray(customers))) AS x2
    FROM samples WHERE offering != '' GROUP BY placement
  )
),
srm AS (
  SELECT placement,
         if(x2 IS NULL, NULL,
            if(assumeNotNull(x2) = 0, 1.,
               if(df % 2 = 0,
                  exp(-assumeNotNull(x2) / 2)
                    * arraySum(arrayMap(i -> exp(i * log(assumeNotNull(x2) / 2) - lgamma(i + 1)), range(toUInt32(df / 2)))),
                  erfc(sqrt(assumeNotNull(x2) / 2))
                    + exp(-assumeNotNull(x2) / 2)
                      * arraySum(arrayMap(i -> exp((i - 0.5) * log(assumeNotNull(x2) / 2) - lgamma(i + 0.5)),
                                          range(1, toUInt32(intDiv(df - 1, 2)) + 1)))))) AS srm_p_value
  FROM ratios
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
  if(NOT control AND se > 0, erfc(abs(conversion_rate - control_rate) / se / sqrt(2.)), NULL) AS p_value,
  paid_starts,
  trial_starts,
  money_text(revenue, 1, 2) AS revenue_usd,
  money_text(revenue, customers, 4) AS revenue_per_customer,
  if(customers > 1, mean - 1.959964 * sd / sqrt(customers), NULL) AS rpc_ci_low,
  if(customers > 1, mean + 1.959964 * sd / sqrt(customers), NULL) AS rpc_ci_high,
  if(NOT control AND customers > 1 AND control_customers > 1 AND welch_se > 0,
     erfc(abs(mean - control_mean) / welch_se / sqrt(2.)), NULL) AS revenue_p_value,
  if(control, NULL, conversion_rate - control_rate) AS diff,
  if(control OR v = 0, NULL, conversion_rate - control_rate - seq_half) AS seq_ci_low,
  if(control OR v = 0, NULL, conversion_rate - control_rate + seq_half) AS seq_ci_high,
  if(control OR v = 0, NULL,
     least(1., sqrt((v + 0.0025) / v) * exp(-0.0025 * (conversion_rate - control_rate) * (conversion_rate - control_rate)
                                            / (2 * v * (v + 0.0025))))) AS seq_p_value,
  srm_p_value
FROM (
  SELECT
    o.placement AS placement,
    o.offering AS offering,
    o.customers AS customers,
    o.impressions AS impressions,
    o.converted AS converted,
    o.rate AS conversion_rate,
    o.paid_starts AS paid_starts,
    o.trial_starts AS trial_starts,
    o.revenue AS revenue,
    o.mean AS mean,
    o.sd AS sd,
    o.offering = c.chosen.1 AS control,
    c.chosen.2 AS control_customers,
    c.chosen.4 AS control_rate,
    c.chosen.5 AS control_mean,
    (o.converted + c.chosen.3) / (o.customers + c.chosen.2) AS pooled,
    sqrt(pooled * (1 - pooled) * (1 / o.customers + 1 / c.chosen.2)) AS se,
    1.959964 * 1.959964 AS z2,
    (conversion_rate + z2 / (2 * o.customers)) / (1 + z2 / o.customers) AS center,
    1.959964 * sqrt(conversion_rate * (1 - conversion_rate) / o.customers + z2 / (4 * o.customers * o.customers))
      / (1 + z2 / o.customers) AS half,
    sqrt(o.sd * o.sd / o.customers + c.chosen.6 * c.chosen.6 / c.chosen.2) AS welch_se,
    conversion_rate * (1 - conversion_rate) / o.customers + control_rate * (1 - control_rate) / c.chosen.2 AS v,
    if(v > 0, sqrt(v * (v + 0.0025) / 0.0025 * (2 * log(1 / 0.05) + log((v + 0.0025) / v))), 0) AS seq_half,
    r.srm_p_value AS srm_p_value
  FROM samples AS o
  INNER JOIN controls AS c ON c.placement = o.placement
  LEFT JOIN srm AS r ON r.placement = o.placement
  SETTINGS join_use_nulls = 1
)
ORDER BY placement, offering;
