-- Data quality (funnels.md "Data quality"): one row per date of :days that has anything to show.
-- events_stored / impressions_stored come from report_event_buckets (15-minute buckets of
-- occurred_at; every day of :days starts and ends on a bucket boundary), impressions_delivered from
-- report_delivery_buckets (deliveries per bucket of the impression's occurred_at, kept by triggers;
-- impressions_forwarded_by_device from its by_device count, those of them the app install forwarded),
-- impressions_dead_lettered from report_dead_buckets (stored impressions with an open dead letter per
-- bucket of their occurred_at, kept by triggers on dead_letters), and impressions_pending is the rest
-- (never below 0 when a delivery outruns the rollup of its event).
-- quarantined comes from quarantine.quarantined_at, dropped from drops.dropped_at and suppressed (events
-- of forgotten customers, refused) from suppressed_events.suppressed_at. The placement
-- filter does not apply. Parameters: :days as in encounter_funnel.sql.
WITH days AS (
  SELECT value ->> 0 AS date, value ->> 1 AS start_ms, value ->> 2 AS end_ms FROM json_each(:days)
),
stored AS (
  SELECT d.date, sum(b.events) AS events_stored, sum(b.impressions) AS impressions_stored
  FROM days AS d
  JOIN report_event_buckets AS b ON b.bucket >= d.start_ms / 900000 AND b.bucket < d.end_ms / 900000
  GROUP BY d.date
),
quarantined AS (
  SELECT d.date, count(*) AS quarantined
  FROM days AS d JOIN quarantine AS q ON q.quarantined_at >= d.start_ms AND q.quarantined_at < d.end_ms
  GROUP BY d.date
),
dropped AS (
  SELECT d.date, sum(r.count) AS dropped
  FROM days AS d JOIN drops AS r ON r.dropped_at >= d.start_ms AND r.dropped_at < d.end_ms
  GROUP BY d.date
),
suppressed AS (
  SELECT d.date, sum(r.count) AS suppressed
  FROM days AS d JOIN suppressed_events AS r ON r.suppressed_at >= d.start_ms AND r.suppressed_at < d.end_ms
  GROUP BY d.date
),
delivered AS (
  SELECT d.date, sum(b.delivered) AS delivered, sum(b.by_device) AS by_device
  FROM days AS d
  JOIN report_delivery_buckets AS b ON b.bucket >= d.start_ms / 900000 AND b.bucket < d.end_ms / 900000
  WHERE b.delivered > 0
  GROUP BY d.date
),
dead AS (
  SELECT d.date, sum(b.dead) AS dead
  FROM days AS d
  JOIN report_dead_buckets AS b ON b.bucket >= d.start_ms / 900000 AND b.bucket < d.end_ms / 900000
  WHERE b.dead > 0
  GROUP BY d.date
)
SELECT d.date,
       coalesce(s.events_stored, 0) AS events_stored,
       coalesce(q.quarantined, 0) AS quarantined,
       coalesce(r.dropped, 0) AS dropped,
       coalesce(u.suppressed, 0) AS suppressed,
       coalesce(s.impressions_stored, 0) AS impressions_stored,
       coalesce(v.delivered, 0) AS impressions_delivered,
       max(0, coalesce(s.impressions_stored, 0) - coalesce(v.delivered, 0) - coalesce(x.dead, 0)) AS impressions_pending,
       coalesce(x.dead, 0) AS impressions_dead_lettered,
       coalesce(v.by_device, 0) AS impressions_forwarded_by_device
FROM days AS d
LEFT JOIN stored AS s ON s.date = d.date
LEFT JOIN quarantined AS q ON q.date = d.date
LEFT JOIN dropped AS r ON r.date = d.date
LEFT JOIN suppressed AS u ON u.date = d.date
LEFT JOIN delivered AS v ON v.date = d.date
LEFT JOIN dead AS x ON x.date = d.date
WHERE s.date IS NOT NULL OR q.date IS NOT NULL OR r.date IS NOT NULL OR u.date IS NOT NULL OR v.date IS NOT NULL
   OR x.date IS NOT NULL
ORDER BY d.date;
