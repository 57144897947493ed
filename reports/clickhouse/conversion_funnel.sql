-- Conversion funnel (funnels.md), ClickHouse. Needs presentations.sql. Parameters as in
-- encounter_funnel.sql. Percentiles are nearest rank: element ceil(p/100 * n) of the sorted values.
SELECT * EXCEPT (open_s_sorted) FROM (
  SELECT
    toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) AS date,
    placement,
    countIf(has_impression) AS impressions,
    countIf(has_impression AND has_plan_selected) AS plan_selected,
    countIf(has_impression AND has_purchase_started) AS purchase_started,
    countIf(has_impression AND is_closed AND close_result = 'purchased') AS purchased,
    countIf(has_impression AND is_closed AND close_result = 'restored') AS restored,
    countIf(has_impression AND is_closed AND close_result = 'dismissed' AND close_via = 'close_button') AS dismissed_close_button,
    countIf(has_impression AND is_closed AND close_result = 'dismissed' AND close_via = 'continue_free') AS dismissed_continue_free,
    countIf(has_impression AND NOT is_closed) AS unclosed,
    countIf(has_impression AND is_closed AND close_result = 'dismissed' AND NOT has_purchase_started) AS bounces,
    countIf(has_impression AND is_closed AND close_result = 'dismissed' AND has_purchase_started) AS purchase_cancellations,
    if(impressions = 0, NULL, purchased / impressions) AS conversion_rate,
    arraySort(groupArrayIf(close_open_s, has_impression AND is_closed)) AS open_s_sorted,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(50 * length(open_s_sorted) + 99, 100)]) AS open_s_p50,
    if(length(open_s_sorted) = 0, NULL, open_s_sorted[intDiv(90 * length(open_s_sorted) + 99, 100)]) AS open_s_p90,
    countIf(has_impression AND is_closed AND close_result = 'dismissed' AND close_via = 'gesture') AS dismissed_gesture,
    countIf(has_impression AND is_closed AND close_via = 'abandoned') AS abandoned
  FROM presentations
  WHERE date BETWEEN toDate({from:String}) AND toDate({to:String})
    AND (JSONLength({placements_json:String}) = 0
         OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
  GROUP BY date, placement
)
ORDER BY date, placement;
