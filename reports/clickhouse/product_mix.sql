-- Product mix (funnels.md), ClickHouse. Needs presentations.sql. Parameters as in encounter_funnel.sql.
SELECT
  placement,
  close_product AS product,
  count() AS purchases,
  purchases / sum(purchases) OVER (PARTITION BY placement) AS share
FROM presentations
WHERE has_impression AND is_closed AND close_result = 'purchased'
  AND toDate(fromUnixTimestamp64Milli(first_at, {tz:String})) BETWEEN toDate({from:String}) AND toDate({to:String})
  AND (JSONLength({placements_json:String}) = 0
       OR has(JSONExtract({placements_json:String}, 'Array(String)'), placement))
GROUP BY placement, product
ORDER BY placement, product;
