-- Event counts per 15-minute bucket of occurred_at (bucket = occurred_at / 900000), folded from
-- the stored events with rowid in (:after_rowid, :through_rowid]. Every time zone's day starts on
-- a 15-minute boundary, so a day's counts are the sum of its buckets (data_quality.sql).
INSERT INTO report_event_buckets (bucket, events, impressions)
SELECT occurred_at / 900000, count(*), sum(name = 'paywall_shown')
FROM events
WHERE rowid > :after_rowid AND rowid <= :through_rowid
GROUP BY 1
ON CONFLICT (bucket) DO UPDATE SET
  events = events + excluded.events,
  impressions = impressions + excluded.impressions;
