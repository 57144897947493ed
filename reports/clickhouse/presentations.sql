-- The building blocks of funnels.md as a view: one row per presentation (pw_id).
--   first event = smallest (occurred_at, id); its source is the placement, its user_id the customer,
--                 its platform and app_version the segment ('' when it has none)
--   impression  = earliest paywall_shown; close = earliest paywall_closed by (occurred_at, id)
--   offering    = offering_id of the first paywall_shown by (occurred_at, id), '' when it has none
-- Duplicate event ids count once (LIMIT 1 BY id). The close's columns are taken as one tuple so a
-- NULL product or open_s is never replaced by a later close's value.
CREATE OR REPLACE VIEW presentations AS
WITH events_once AS (SELECT * FROM events LIMIT 1 BY id)
SELECT
  pw_id,
  min(occurred_at) AS first_at,
  argMin(source, (occurred_at, id)) AS placement,
  argMin(user_id, (occurred_at, id)) AS user_id,
  -- the first event's context (tuples, so a NULL of the first event is not skipped for a later one's)
  ifNull(argMin(tuple(platform), (occurred_at, id)).1, '') AS platform,
  ifNull(argMin(tuple(app_version), (occurred_at, id)).1, '') AS app_version,
  countIf(name = 'paywall_shown') > 0 AS has_impression,
  minIf(occurred_at, name = 'paywall_shown') AS impression_at,
  -- a tuple, so a NULL offering_id of the first impression is not skipped for a later one's
  ifNull(argMinIf(tuple(offering_id), (occurred_at, id), name = 'paywall_shown').1, '') AS offering,
  countIf(name = 'paywall_plan_selected') > 0 AS has_plan_selected,
  countIf(name = 'paywall_purchase_started') > 0 AS has_purchase_started,
  countIf(name = 'paywall_closed') > 0 AS is_closed,
  minIf(occurred_at, name = 'paywall_closed') AS close_at,
  argMinIf((result, via, open_s, product), (occurred_at, id), name = 'paywall_closed') AS close,
  close.1 AS close_result,
  close.2 AS close_via,
  close.3 AS close_open_s,
  close.4 AS close_product
FROM events_once
GROUP BY pw_id;
