-- ClickHouse tables for the exported store (run once). Load them from the CSV exports:
--   paywall-analytics export events --raw --out events.csv      -> events
--   paywall-analytics export quarantine --raw --out quarantine.csv -> quarantine
--   sqlite3 -csv -header STORE 'SELECT dropped_at, count FROM drops' > drops.csv -> drops
--   sqlite3 -csv -header STORE 'SELECT suppressed_at, count FROM suppressed_events' > suppressed_events.csv
--     -> suppressed_events
-- e.g. INSERT INTO events SELECT * FROM file('events.csv', CSVWithNames)
--      SETTINGS format_csv_null_representation = ''
-- Loading the same file twice is harmless: every report counts each event id once. The *_iso columns are
-- the times as ISO 8601 text (the export writes them beside the milliseconds, the reports read the
-- milliseconds). A table made before them takes them with
--   ALTER TABLE events ADD COLUMN occurred_at_iso String AFTER occurred_at,
--     ADD COLUMN recorded_at_iso Nullable(String) AFTER recorded_at
-- The context columns (where an event came from: app_version … locale, empty for catalog version 1
-- events) follow open_s. A table made before them takes them with
--   ALTER TABLE events ADD COLUMN app_version Nullable(String) AFTER open_s,
--     ADD COLUMN build Nullable(String) AFTER app_version, ADD COLUMN platform Nullable(String) AFTER build,
--     ADD COLUMN os_version Nullable(String) AFTER platform, ADD COLUMN sdk_version Nullable(String) AFTER os_version,
--     ADD COLUMN locale Nullable(String) AFTER sdk_version
CREATE TABLE IF NOT EXISTS events (
  id String, name LowCardinality(String), occurred_at Int64, occurred_at_iso String,
  recorded_at Int64, recorded_at_iso Nullable(String), user_id String,
  session_id Nullable(String), catalog_version Int32, pw_id String, source String,
  offering_id Nullable(String), placement_id Nullable(String), product Nullable(String),
  result Nullable(String), via Nullable(String), open_s Nullable(Float64),
  app_version Nullable(String), build Nullable(String), platform Nullable(String), os_version Nullable(String),
  sdk_version Nullable(String), locale Nullable(String), delivery_state Nullable(String)
) ENGINE = MergeTree ORDER BY (pw_id, occurred_at, id);

CREATE TABLE IF NOT EXISTS quarantine (
  seq Int64, quarantined_at Int64, reasons String, origin Nullable(String), line Nullable(Int64), payload String
) ENGINE = MergeTree ORDER BY seq;

CREATE TABLE IF NOT EXISTS drops (dropped_at Int64, count Int64) ENGINE = MergeTree ORDER BY dropped_at;

CREATE TABLE IF NOT EXISTS suppressed_events (suppressed_at Int64, count Int64) ENGINE = MergeTree ORDER BY suppressed_at;
