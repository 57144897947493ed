-- Data quality (funnels.md), ClickHouse. Needs presentations.sql and subscriptions.sql (for the
-- subscription columns). Parameters {from:String} {to:String} {tz:String}.
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
  subscriptions AS (
    -- by event_timestamp_ms (stamps past the year 2299, such as RevenueCat's sample TRANSFER, fall on no day here)
    SELECT toDate(fromUnixTimestamp64Milli(assumeNotNull(event_timestamp_ms), {tz:String})) AS date,
           countIf(production) AS subscription_events,
           countIf(production AND NOT attributed) AS subscription_events_unattributed,
           countIf(NOT production) AS subscription_events_sandbox
    FROM (
      SELECT event_timestamp_ms,
             NOT (ifNull(environment, '') = 'SANDBOX' OR ifNull(type, '') = 'TEST') AS production,
             original_transaction_id IS NOT NULL
               AND assumeNotNull(original_transaction_id) IN (SELECT otid FROM subscription_attribution) AS attributed
      FROM (SELECT * FROM subscription_events LIMIT 1 BY id)
      WHERE event_timestamp_ms IS NOT NULL AND event_timestamp_ms BETWEEN 0 AND 10413791999999
    )
    GROUP BY date
  ),
  dates AS (
    SELECT date FROM stored UNION DISTINCT SELECT date FROM quarantined UNION DISTINCT SELECT date FROM dropped
    UNION DISTINCT SELECT date FROM suppressed UNION DISTINCT SELECT date FROM subscriptions
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
  coalesce(s.impressions_forwarded_by_device, 0) AS impressions_forwarded_by_device,
  coalesce(b.subscription_events, 0) AS subscription_events,
  coalesce(b.subscription_events_unattributed, 0) AS subscription_events_unattributed,
  coalesce(b.subscription_events_sandbox, 0) AS subscription_events_sandbox
FROM dates AS d
LEFT JOIN stored AS s ON s.date = d.date
LEFT JOIN quarantined AS q ON q.date = d.date
LEFT JOIN dropped AS r ON r.date = d.date
LEFT JOIN suppressed AS u ON u.date = d.date
LEFT JOIN subscriptions AS b ON b.date = d.date
WHERE d.date BETWEEN toDate({from:String}) AND toDate({to:String})
ORDER BY date
SETTINGS join_use_nulls = 1;
