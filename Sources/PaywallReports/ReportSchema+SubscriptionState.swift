import PaywallSQLite

extension ReportSchema {
    /// Meta key of the last `subscription_events` rowid folded into the nightly job's subscription
    /// state (``SubscriptionState``); absent when there is no state (it is rebuilt in full).
    static let subscriptionWatermarkKey = "reports.subscription_watermark_rowid"
    /// Meta key of the time zone the subscription state's money days are cut in (``SubscriptionState``).
    static let subscriptionTimezoneKey = "reports.subscription_timezone"

    /// The nightly job's subscription state's tables (``SubscriptionState``).
    static let subscriptionStateTables = [
        "report_subscriptions", "report_subscription_buyers", "report_subscription_buckets", "report_money_days",
    ]

    /// Reports migration: the nightly job's subscription state (``SubscriptionState``), which lets a
    /// nightly run fold only the subscription events stored since the last one:
    /// - `report_subscriptions`: one row per subscription with a start (its start event, whether a
    ///   trial converted, and the presentation it is attributed to, if any);
    /// - `report_subscription_buyers`: each start's customer names by purchase time, to find the
    ///   subscriptions a new or changed presentation could take;
    /// - `report_subscription_buckets`: subscription events per 15-minute bucket of their stamp
    ///   (production, unattributed, sandbox, and the production stamps' extremes, for the as-of time);
    /// - `report_money_days`: what the attributed subscriptions add up to per day of their presentation;
    /// - two indexes the attribution looks presentations and customers up by (a customer's
    ///   presentations with an impression; a customer's key by name).
    /// Derived data: the state starts empty and the next nightly run builds it.
    static let subscriptionState = Migration("subscription-state", sql: subscriptionStateSQL)

    static let subscriptionStateSQL = """
        CREATE TABLE report_subscriptions (
          original_transaction_id TEXT PRIMARY KEY NOT NULL,
          start_rowid INTEGER NOT NULL, start_id TEXT NOT NULL, purchased_at INTEGER,
          trial INTEGER NOT NULL, expiration_at INTEGER, converted INTEGER NOT NULL,
          pw_id BLOB, first_at INTEGER, placement_key INTEGER, offering TEXT, customer_key INTEGER,
          buyer_names BLOB NOT NULL) STRICT, WITHOUT ROWID;
        CREATE INDEX report_subscriptions_by_presentation ON report_subscriptions (pw_id) WHERE pw_id IS NOT NULL;
        CREATE TABLE report_subscription_buyers (
          purchased_at INTEGER NOT NULL, name TEXT NOT NULL, original_transaction_id TEXT NOT NULL,
          PRIMARY KEY (purchased_at, name, original_transaction_id)) STRICT, WITHOUT ROWID;
        CREATE TABLE report_subscription_buckets (
          bucket INTEGER PRIMARY KEY, production INTEGER NOT NULL, unattributed INTEGER NOT NULL,
          sandbox INTEGER NOT NULL, first_production INTEGER, last_production INTEGER) STRICT;
        CREATE TABLE report_money_days (day_start INTEGER PRIMARY KEY, day_end INTEGER NOT NULL, money BLOB NOT NULL) STRICT;
        CREATE INDEX report_presentations_by_buyer ON report_presentations (customer_key, impression_at)
          WHERE impression_at IS NOT NULL;
        CREATE INDEX report_customers_by_name ON report_customers (user_id);
        """
}
