-- Merges one presentation, folded from a batch of events by the caller (the same folding as
-- rollup_presentations.sql: first event, earliest impression with its id and offering, flags,
-- earliest close, the first event's platform and app_version), into
-- report_presentations. The merge is the same min/max merge, so batches may arrive in any order.
-- Ids are the UUIDs' 16 bytes (blobs compare like the canonical text); placement_key /
-- customer_key are the report_placements / report_customers keys of the first event's source and
-- user_id; the close's texts are stored as they are.
INSERT INTO report_presentations (
  pw_id, first_at, first_id, placement_key, customer_key, impression_at, plan_selected, purchase_started,
  close_at, close_id, close_result, close_via, close_open_s, close_product, impression_id, offering, platform,
  app_version, last_at)
VALUES (:pw_id, :first_at, :first_id, :placement_key, :customer_key, :impression_at, :plan_selected, :purchase_started,
        :close_at, :close_id, :close_result, :close_via, :close_open_s, :close_product, :impression_id, :offering,
        :platform, :app_version, :last_at)
ON CONFLICT (pw_id) DO UPDATE SET
  -- SET expressions read the old row, so every column below compares against the old first event
  first_at      = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.first_at      ELSE first_at      END,
  first_id      = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.first_id      ELSE first_id      END,
  placement_key = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.placement_key ELSE placement_key END,
  customer_key  = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.customer_key  ELSE customer_key  END,
  platform      = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.platform      ELSE platform      END,
  app_version   = CASE WHEN (excluded.first_at, excluded.first_id) < (first_at, first_id) THEN excluded.app_version   ELSE app_version   END,
  impression_at    = coalesce(min(impression_at, excluded.impression_at), impression_at, excluded.impression_at),
  impression_id = CASE WHEN excluded.impression_at IS NOT NULL AND (impression_at IS NULL OR (excluded.impression_at, excluded.impression_id) < (impression_at, impression_id)) THEN excluded.impression_id ELSE impression_id END,
  offering      = CASE WHEN excluded.impression_at IS NOT NULL AND (impression_at IS NULL OR (excluded.impression_at, excluded.impression_id) < (impression_at, impression_id)) THEN excluded.offering      ELSE offering      END,
  last_at          = max(coalesce(last_at, excluded.last_at), coalesce(excluded.last_at, last_at)),
  plan_selected    = max(plan_selected, excluded.plan_selected),
  purchase_started = max(purchase_started, excluded.purchase_started),
  close_at      = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_at      ELSE close_at      END,
  close_id      = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_id      ELSE close_id      END,
  close_result  = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_result  ELSE close_result  END,
  close_via     = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_via     ELSE close_via     END,
  close_open_s  = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_open_s  ELSE close_open_s  END,
  close_product = CASE WHEN excluded.close_at IS NOT NULL AND (close_at IS NULL OR (excluded.close_at, excluded.close_id) < (close_at, close_id)) THEN excluded.close_product ELSE close_product END;
