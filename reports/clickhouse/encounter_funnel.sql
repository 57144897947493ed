-- Encounter funnel (funnels.md), ClickHouse. Needs presentations.sql.
-- Parameters: {from:String} {to:String} (YYYY-MM-DD, inclusive), {tz:String} (IANA zone),
--             {placements_json:String} (JSON array of placements; '[]' for all).
SELECT
  toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) AS date,
  placement,
  count() AS presentations,
  countIf(has_impression) AS impressions,
  countIf(is_closed AND NOT has_impression) AS dwell_bounces,
  uniqExactIf(user_id, has_impression) AS unique_viewers,
  countIf(has_impression) / count() AS impression_rate
FROM presentations
WHERE date BETWEEN toDate({from:String}) AND toDate({to:String})
  AND (JSONLength({placements_json:String}) = 0
       OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
GROUP BY date, placement
ORDER BY date, placement;
