-- The subscription side's building blocks (funnels.md "Revenue") as views, needs presentations.sql.
--   subscription_production: the stored subscription events once per id, without SANDBOX and TEST
--   subscription_attribution: one row per attributed subscription (original_transaction_id): its start
--     (the INITIAL_PURCHASE or NON_RENEWING_PURCHASE with the smallest purchased_at_ms, ties by id) goes to
--     the presentation with an impression of one of the start's customer keys whose first impression is
--     within 72 h before to 5 minutes after the purchase, the latest one (ties: the greatest pw_id), with
--     what the subscription earned (revenue events: INITIAL_PURCHASE, RENEWAL, NON_RENEWING_PURCHASE, and
--     CANCELLATION with a negative price, a refund), in micro-dollars.
CREATE OR REPLACE VIEW subscription_production AS
SELECT * FROM (SELECT * FROM subscription_events LIMIT 1 BY id)
WHERE NOT (ifNull(environment, '') = 'SANDBOX' OR ifNull(type, '') = 'TEST');

CREATE OR REPLACE VIEW subscription_attribution AS
WITH
starts AS (
  SELECT otid, s.1 AS start_id, s.2 AS period_type, s.3 AS purchased_at_ms, s.4 AS expiration_at_ms
  FROM (
    SELECT assumeNotNull(original_transaction_id) AS otid,
           argMin(tuple(id, period_type, purchased_at_ms, expiration_at_ms),
                  tuple(isNull(purchased_at_ms), ifNull(purchased_at_ms, 0), id)) AS s
    FROM subscription_production
    WHERE original_transaction_id IS NOT NULL AND type IN ('INITIAL_PURCHASE', 'NON_RENEWING_PURCHASE')
    GROUP BY otid
  )
),
candidates AS (
  SELECT st.otid AS otid, p.pw_id AS pw_id, p.impression_at AS impression_at, p.first_at AS first_at,
         p.placement AS placement, p.offering AS offering, p.user_id AS user_id
  FROM starts AS st
  INNER JOIN (SELECT DISTINCT customer_key, event_id FROM subscription_customer_keys) AS k ON k.event_id = st.start_id
  INNER JOIN presentations AS p ON p.user_id = k.customer_key
  WHERE p.has_impression AND st.purchased_at_ms IS NOT NULL
    AND p.impression_at >= assumeNotNull(st.purchased_at_ms) - 259200000
    AND p.impression_at <= assumeNotNull(st.purchased_at_ms) + 300000
),
chosen AS (
  SELECT otid, c.1 AS first_at, c.2 AS placement, c.3 AS offering, c.4 AS user_id
  FROM (
    SELECT otid, argMax(tuple(first_at, placement, offering, user_id), tuple(impression_at, pw_id)) AS c
    FROM candidates GROUP BY otid
  )
),
money AS (
  SELECT assumeNotNull(original_transaction_id) AS otid,
         countIf(type = 'RENEWAL' AND is_trial_conversion = 1) > 0 AS any_conversion,
         countIf(type = 'CANCELLATION' AND ifNull(price_micros, 0) < 0) AS refunds,
         sumIf(ifNull(price_micros, 0), type IN ('INITIAL_PURCHASE', 'RENEWAL', 'NON_RENEWING_PURCHASE')
                                        OR (type = 'CANCELLATION' AND ifNull(price_micros, 0) < 0)) AS revenue_micros,
         sumIf(ifNull(proceeds_micros, 0), type IN ('INITIAL_PURCHASE', 'RENEWAL', 'NON_RENEWING_PURCHASE')
                                           OR (type = 'CANCELLATION' AND ifNull(price_micros, 0) < 0)) AS proceeds_micros
  FROM subscription_production
  WHERE original_transaction_id IS NOT NULL
  GROUP BY otid
)
SELECT st.otid AS otid, c.first_at AS first_at, c.placement AS placement, c.offering AS offering,
       c.user_id AS user_id, ifNull(st.period_type, '') = 'TRIAL' AS trial, st.expiration_at_ms AS expiration_at_ms,
       trial AND m.any_conversion AS converted, m.refunds AS refunds, m.revenue_micros AS revenue_micros,
       m.proceeds_micros AS proceeds_micros
FROM starts AS st
INNER JOIN chosen AS c ON c.otid = st.otid
INNER JOIN money AS m ON m.otid = st.otid;
