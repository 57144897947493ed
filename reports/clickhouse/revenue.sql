-- Revenue (funnels.md), ClickHouse. Needs presentations.sql and subscriptions.sql. Parameters as in
-- encounter_funnel.sql, plus now_ms: the run's time (as-of is the latest production subscription
-- event stamped at or before it, or it when there is none). One row per row of conversion_funnel.sql.
WITH
as_of AS (
  SELECT if(count() = 0, {now_ms:Int64}, max(assumeNotNull(event_timestamp_ms))) AS t
  FROM subscription_production
  WHERE event_timestamp_ms IS NOT NULL AND event_timestamp_ms <= {now_ms:Int64}
),
funnel AS (
  SELECT toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) AS date, placement,
         countIf(has_impression) AS impressions
  FROM presentations
  WHERE date BETWEEN toDate({from:String}) AND toDate({to:String})
    AND (JSONLength({placements_json:String}) = 0
         OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  GROUP BY date, placement
),
attributed AS (
  SELECT toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) AS date, placement,
         countIf(NOT trial) AS paid_starts, countIf(trial) AS trial_starts, countIf(converted) AS trial_conversions,
         countIf(trial AND NOT converted AND expiration_at_ms IS NOT NULL
                 AND assumeNotNull(expiration_at_ms) > (SELECT t FROM as_of)) AS trials_pending,
         sum(refunds) AS refunds, sum(revenue_micros) AS revenue, sum(proceeds_micros) AS proceeds
  FROM subscription_attribution
  GROUP BY date, placement
)
SELECT
  f.date AS date,
  f.placement AS placement,
  f.impressions AS impressions,
  ifNull(a.paid_starts, 0) AS paid_starts,
  ifNull(a.trial_starts, 0) AS trial_starts,
  ifNull(a.trial_conversions, 0) AS trial_conversions,
  ifNull(a.trials_pending, 0) AS trials_pending,
  if(trial_starts - trials_pending > 0, trial_conversions / (trial_starts - trials_pending), NULL) AS trial_conversion_rate,
  ifNull(a.refunds, 0) AS refunds,
  money_text(ifNull(a.revenue, 0), 1, 2) AS revenue_usd,
  money_text(ifNull(a.proceeds, 0), 1, 2) AS proceeds_usd,
  if(f.impressions > 0, money_text(ifNull(a.revenue, 0), f.impressions, 4), NULL) AS revenue_per_impression
FROM funnel AS f
LEFT JOIN attributed AS a ON a.date = f.date AND a.placement = f.placement
ORDER BY date, placement
SETTINGS join_use_nulls = 1;
