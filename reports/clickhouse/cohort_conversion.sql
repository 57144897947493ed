-- Cohort conversion (funnels.md), ClickHouse. Needs presentations.sql. Parameters as in
-- encounter_funnel.sql plus {window_ms:Int64} (259200000 = 3 days). A customer converts with a
-- presentation whose close is 'purchased' (any placement) within [first impression, + window].
WITH
  firsts AS (
    SELECT user_id, placement, min(impression_at) AS first_impression_at
    FROM presentations WHERE has_impression GROUP BY user_id, placement
  ),
  purchases AS (
    SELECT user_id, close_at FROM presentations WHERE is_closed AND close_result = 'purchased'
  ),
  cohorts AS (
    SELECT toDate(fromUnixTimestamp64Milli(first_impression_at, {tz:String})) AS cohort_date, user_id, placement,
           first_impression_at
    FROM firsts
    WHERE cohort_date BETWEEN toDate({from:String}) AND toDate({to:String})
      AND (JSONLength({placements_json:String}) = 0
           OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  ),
  outcomes AS (
    SELECT c.cohort_date AS cohort_date, c.placement AS placement, c.user_id AS user_id,
           max(p.close_at >= c.first_impression_at AND p.close_at <= c.first_impression_at + {window_ms:Int64}) AS converted
    FROM cohorts AS c LEFT JOIN purchases AS p ON p.user_id = c.user_id
    GROUP BY cohort_date, placement, user_id
  )
SELECT
  cohort_date,
  placement,
  count() AS customers,
  countIf(converted) AS converted_3d,
  converted_3d / customers AS conversion_rate_3d,
  if((SELECT max(least(occurred_at, recorded_at)) FROM events)
       >= toUnixTimestamp(toDateTime(cohort_date + 1, {tz:String})) * 1000 + {window_ms:Int64}, 'true', 'false')
    AS window_complete
FROM outcomes
GROUP BY cohort_date, placement
ORDER BY cohort_date, placement;
