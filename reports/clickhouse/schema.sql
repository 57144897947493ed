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

-- The subscription side (funnels.md "Revenue"): RevenueCat's subscription events and their customer
-- keys, exported from the store with sqlite3 (the raw bodies stay in the store):
--   sqlite3 -csv -header STORE 'SELECT id, type, environment, event_timestamp_ms, app_user_id,
--     original_app_user_id, period_type, purchased_at_ms, expiration_at_ms, original_transaction_id,
--     is_trial_conversion, price_micros, proceeds_micros FROM subscription_events' > subscription_events.csv
--   sqlite3 -csv -header STORE 'SELECT k.customer_key, e.id AS event_id FROM subscription_customer_keys AS k
--     JOIN subscription_events AS e ON e.rowid = k.event_rowid' > subscription_customer_keys.csv
-- Loading either file twice is harmless (events count once per id, keys once per pair).
CREATE TABLE IF NOT EXISTS subscription_events (
  id String, type Nullable(String), environment Nullable(String), event_timestamp_ms Nullable(Int64),
  app_user_id Nullable(String), original_app_user_id Nullable(String), period_type Nullable(String),
  purchased_at_ms Nullable(Int64), expiration_at_ms Nullable(Int64), original_transaction_id Nullable(String),
  is_trial_conversion Nullable(Int64), price_micros Nullable(Int64), proceeds_micros Nullable(Int64)
) ENGINE = MergeTree ORDER BY id;

CREATE TABLE IF NOT EXISTS subscription_customer_keys (customer_key String, event_id String)
ENGINE = MergeTree ORDER BY (event_id, customer_key);

-- Money as exact text: micro-dollars m divided by d, rounded half to even to p (0…6) decimal places.
CREATE OR REPLACE FUNCTION money_units AS (a, v) ->
  intDiv(a, v) + if((a % v) * 2 > v OR ((a % v) * 2 = v AND intDiv(a, v) % 2 = 1), 1, 0);

CREATE OR REPLACE FUNCTION money_text AS (m, d, p) ->
  concat(
    if(m < 0 AND money_units(toUInt64(abs(m)), toUInt64(d) * intExp10(6 - p)) > 0, '-', ''),
    toString(intDiv(money_units(toUInt64(abs(m)), toUInt64(d) * intExp10(6 - p)), intExp10(p))),
    if(p > 0,
       concat('.', leftPad(toString(money_units(toUInt64(abs(m)), toUInt64(d) * intExp10(6 - p)) % intExp10(p)), p, '0')),
       ''));
