-- Segments (funnels.md), ClickHouse: the placement summary per (placement, platform, app_version)
-- of the presentations' first events, with impression_rate and its difference to the placement's.
-- Needs presentations.sql. Parameters as in encounter_funnel.sql.
SELECT * EXCEPT (open_s_sorted, placement_rate) FROM (
  SELECT
    placement, platform, app_version,
    count() AS presentations,
    countIf(has_impression) AS impressions,
    uniqExactIf(user_id, has_impression) AS unique_viewers,
    countIf(has_impression AND is_closed AND close_result = 'purchased') AS purchased,
    countIf(has_impression AND is_closed AND close_result = 'restored') AS restored,
    if(impressions = 0, NULL, purchased / impressions) AS conversion_rate,
    arraySort(groupArrayIf(close_open_s, has_impression AND is_closed)) AS open_s_sorted,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(50 * length(open_s_sorted) + 99, 100)]) AS open_s_p50,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(90 * length(open_s_sorted) + 99, 100)]) AS open_s_p90,
    impressions / presentations AS impression_rate,
    any(placement_rate) AS placement_rate,
    if(abs(impression_rate - placement_rate) < 0.00005, 0., impression_rate - placement_rate)
      AS impression_rate_vs_placement
  FROM (
    SELECT *, countIf(has_impression) OVER (PARTITION BY placement) / count() OVER (PARTITION BY placement)
      AS placement_rate
    FROM presentations
    WHERE toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) BETWEEN toDate({from:String}) AND toDate({to:String})
      AND (JSONLength({placements_json:String}) = 0
           OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  )
  GROUP BY placement, platform, app_version
)
ORDER BY placement, platform, app_version;
