-- Placement summary (funnels.md), ClickHouse. Needs presentations.sql. Parameters as in
-- encounter_funnel.sql. unique_viewers is distinct over the whole range.
SELECT * EXCEPT (open_s_sorted) FROM (
  SELECT
    placement,
    count() AS presentations,
    countIf(has_impression) AS impressions,
    uniqExactIf(user_id, has_impression) AS unique_viewers,
    countIf(has_impression AND is_closed AND close_result = 'purchased') AS purchased,
    countIf(has_impression AND is_closed AND close_result = 'restored') AS restored,
    if(impressions = 0, NULL, purchased / impressions) AS conversion_rate,
    arraySort(groupArrayIf(close_open_s, has_impression AND is_closed)) AS open_s_sorted,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(50 * length(open_s_sorted) + 99, 100)]) AS open_s_p50,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(90 * length(open_s_sorted) + 99, 100)]) AS open_s_p90
  FROM presentations
  WHERE toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) BETWEEN toDate({from:String}) AND toDate({to:String})
    AND (JSONLength({placements_json:String}) = 0
         OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  GROUP BY placement
)
ORDER BY placement;
