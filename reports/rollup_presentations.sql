-- Presentation rollup: folds the stored events with rowid in (:after_rowid, :through_rowid]
-- into report_presentations, one row per pw_id, holding the building blocks of funnels.md:
--   first event  = smallest (occurred_at, id); its source is the placement, its user_id the customer
--   impression   = earliest paywall_shown (NULL when the presentation has none)
--   close        = earliest paywall_closed by (occurred_at, id) (NULL when unclosed)
-- Every fold is a min/max merge, so late events (any order, any batch) give the same row
-- as one pass over all events. The events table holds each id once (duplicates count once).
WITH batch AS (
  SELECT id, name, occurred_at, user_id, pw_id, source, product, result, via, open_s
  FROM events
  WHERE rowid > :after_rowid AND rowid <= :through_rowid
),
firsts AS (
  SELECT pw_id, occurred_at, id, source, user_id,
         row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
  FROM batch
),
closes AS (
  SELECT pw_id, occurred_at, id, result, via, open_s, product,
         row_number() OVER (PARTITION BY pw_id ORDER BY occurred_at, id) AS rank
  FROM batch
  WHERE name = 'paywall_closed'
),
flags AS (
  SELECT pw_id,
         min(CASE WHEN name = 'paywall_shown' THEN occurred_at END) AS impression_at,
         max(name = 'paywall_plan_selected') AS plan_selected,
         max(name = 'paywall_purchase_started') AS purchase_started
  FROM batch
  GROUP BY pw_id
)
INSERT INTO report_presentations (
  pw_id, first_at, first_id, placement, user_id, impression_at, plan_selected, purchase_started,
  close_at, close_id, close_result, close_via, close_open_s, close_product)
SELECT f.pw_id, f.occurred_at, f.id, f.source, f.user_id, g.impression_at, g.plan_selected, g.purchase_started,
       c.occurred_at, c.id, c.result, c.via, c.open_s, c.product
FROM firsts AS f
JOIN flags AS g ON g.pw_id = f.pw_id
LEFT JOIN closes AS c ON c.pw_id = f.pw_id AND c.rank = 1
WHERE f.rank = 1
ON CONFLICT (pw_id) DO UPDATE SET
  -- SET expressions read the old row, so every column below compares against the old first event
  first_at  = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.first_at  ELSE first_at  END,
  first_id  = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.first_id  ELSE first_id  END,
  placement = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.placement ELSE placement END,
  user_id   = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.user_id   ELSE user_id   END,
  impression_at    = coalesce(min(impression_at, excluded.impression_at), impression_at, excluded.impression_at),
  plan_selected    = max(plan_selected, excluded.plan_selected),
  purchase_started = max(purchase_started, excluded.purchase_started),
  close_at      = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_at      ELSE close_at      END,
  close_id      = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_id      ELSE close_id      END,
  close_result  = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_result  ELSE close_result  END,
  close_via     = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_via     ELSE close_via     END,
  close_open_s  = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_open_s  ELSE close_open_s  END,
  close_product = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_product ELSE close_product END;
