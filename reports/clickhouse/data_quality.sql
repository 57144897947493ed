-- Data quality (funnels.md), ClickHouse. Parameters {from:String} {to:String} {tz:String}.
-- Delivery columns come from the exported events' delivery_state (pending: in the store's outbox,
-- delivered or forwarded_by_device: in its deliveries, dead: with an open dead letter).
WITH
  stored AS (
    SELECT toDate(fromUnixTimestamp64Milli(occurred_at, {tz:String})) AS date,
           count() AS events_stored,
           countIf(name = 'paywall_shown') AS impressions_stored,
           countIf(name = 'paywall_shown' AND delivery_state IN ('delivered', 'forwarded_by_device')) AS impressions_delivered,
           countIf(name = 'paywall_shown' AND delivery_state = 'pending') AS impressions_pending,
           countIf(name = 'paywall_shown' AND delivery_state = 'dead') AS impressions_dead_lettered,
           countIf(name = 'paywall_shown' AND delivery_state = 'forwarded_by_device') AS impressions_forwarded_by_device
    FROM (SELECT * FROM events LIMIT 1 BY id) GROUP BY date
  ),
  quarantined AS (
    SELECT toDate(fromUnixTimestamp64Milli(quarantined_at, {tz:String})) AS date, count() AS quarantined
    FROM quarantine GROUP BY date
  ),
  dropped AS (
    SELECT toDate(fromUnixTimestamp64Milli(dropped_at, {tz:String})) AS date, sum(count) AS dropped
    FROM drops GROUP BY date
  ),
  suppressed AS (
    SELECT toDate(fromUnixTimestamp64Milli(suppressed_at, {tz:String})) AS date, sum(count) AS suppressed
    FROM suppressed_events GROUP BY date
  ),
  dates AS (
    SELECT date FROM stored UNION DISTINCT SELECT date FROM quarantined UNION DISTINCT SELECT date FROM dropped
    UNION DISTINCT SELECT date FROM suppressed
  )
SELECT
  d.date AS date,
  coalesce(s.events_stored, 0) AS events_stored,
  coalesce(q.quarantined, 0) AS quarantined,
  coalesce(r.dropped, 0) AS dropped,
  coalesce(u.suppressed, 0) AS suppressed,
  coalesce(s.impressions_stored, 0) AS impressions_stored,
  coalesce(s.impressions_delivered, 0) AS impressions_delivered,
  coalesce(s.impressions_pending, 0) AS impressions_pending,
  coalesce(s.impressions_dead_lettered, 0) AS impressions_dead_lettered,
  coalesce(s.impressions_forwarded_by_device, 0) AS impressions_forwarded_by_device
FROM dates AS d
LEFT JOIN stored AS s ON s.date = d.date
LEFT JOIN quarantined AS q ON q.date = d.date
LEFT JOIN dropped AS r ON r.date = d.date
LEFT JOIN suppressed AS u ON u.date = d.date
WHERE d.date BETWEEN toDate({from:String}) AND toDate({to:String})
ORDER BY date
SETTINGS join_use_nulls = 1;
