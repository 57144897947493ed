-- Presentation building blocks, the reference definition of the report_presentations rollup: one
-- row per pw_id over all stored events, as funnels.md defines them:
--   first event  = smallest (occurred_at, id); its source is the placement, its user_id the customer,
--                  its platform and app_version the presentation's (NULL when it has none)
--   impression   = earliest paywall_shown (NULL when the presentation has none); its id and
--                  offering_id are those of the first paywall_shown by (occurred_at, id)
--   close        = earliest paywall_closed by (occurred_at, id) (NULL when unclosed)
--   last_at      = its newest event's time, each occurred_at capped at its recorded_at
-- The events table holds each id once (duplicates count once). The library folds the events in
-- Swift, chunk by chunk, and merges each chunk with rollup_merge_presentation.sql (min/max merges,
-- so late events in any order give the same row); it stores the ids as their 16 bytes and the
-- placement and customer as report_placements / report_customers keys. The tests require the
-- stored rollup, read back through those keys, to equal this query.
WITH firsts AS (
  SELECT pw_id, occurred_at, id, source, user_id, platform, app_version,
         row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
  FROM events
),
closes AS (
  SELECT pw_id, occurred_at, id, result, via, open_s, product,
         row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
  FROM events
  WHERE name = 'paywall_closed'
),
impressions AS (
  SELECT pw_id, id, offering_id,
         row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
  FROM events
  WHERE name = 'paywall_shown'
),
flags AS (
  SELECT pw_id,
         min(CASE WHEN name = 'paywall_shown' THEN occurred_at END) AS impression_at,
         max(name = 'paywall_plan_selected') AS plan_selected,
         max(name = 'paywall_purchase_started') AS purchase_started,
         max(min(occurred_at, recorded_at)) AS last_at
  FROM events
  GROUP BY pw_id
)
SELECT f.pw_id, f.occurred_at AS first_at, f.id AS first_id, f.source AS placement, f.user_id,
       g.impression_at, g.plan_selected, g.purchase_started,
       c.occurred_at AS close_at, c.id AS close_id, c.result AS close_result, c.via AS close_via,
       c.open_s AS close_open_s, c.product AS close_product, i.id AS impression_id, i.offering_id AS offering,
       f.platform, f.app_version, g.last_at
FROM firsts AS f
JOIN flags AS g ON g.pw_id = f.pw_id
LEFT JOIN impressions AS i ON i.pw_id = f.pw_id AND i.rank = 1
LEFT JOIN closes AS c ON c.pw_id = f.pw_id AND c.rank = 1
WHERE f.rank = 1
ORDER BY f.pw_id;
