import PaywallSQLite

extension ReportSchema {
    /// Meta key of the last `subscription_events` rowid folded into the nightly job's subscription
    /// state (``SubscriptionState``); absent when there is no state (it is rebuilt in full).
    static let subscriptionWatermarkKey = "reports.subscription_watermark_rowid"
    /// Meta key of the time zone the subscription state's money days are cut in (``SubscriptionState``).
    static let subscriptionTimezoneKey = "reports.subscription_timezone"
    /// Meta key counting the nightly runs that found the subscription state inconsistent with itself
    /// and built it again (a defect to report: the state's updates are meant to keep it exact).
    static let subscriptionRepairsKey = "reports.subscription_repairs"
    /// Meta key of the largest customer key when the subscription state was last brought up to date:
    /// a buyer's name without a customer then can only have one among the keys above it.
    static let subscriptionCustomerMarkKey = "reports.subscription_customer_mark"

    /// The nightly job's subscription state's tables (``SubscriptionState``).
    static let subscriptionStateTables = [
        "report_subscriptions", "report_subscription_buyers", "report_subscription_buckets", "report_money_days",
    ]

    /// Reports migration: the nightly job's subscription state (``SubscriptionState``), which lets a
    /// nightly run fold only the subscription events stored since the last one:
    /// - `report_subscriptions`: one row per subscription with a start (its start event, whether a
    ///   trial converted, and the presentation it is attributed to, if any);
    /// - `report_subscription_buyers`: each start's customer names by purchase time with their
    ///   customer key (`-1`: no such customer yet), to find the subscriptions a new or changed
    ///   presentation could take;
    /// - `report_subscription_buckets`: subscription events per 15-minute bucket of their stamp
    ///   (production, unattributed, sandbox, and the production stamps' extremes, for the as-of time);
    /// - `report_money_days`: what the attributed subscriptions add up to per day of their presentation;
    /// - the presentations with an impression by impression time, with their customer: the
    ///   attribution reads a purchase's window from it. (An index by customer was measured first: its
    ///   inserts land all over a large index, and a first report build took 1.4x as long.)
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
          customer_key INTEGER NOT NULL,
          PRIMARY KEY (purchased_at, name, original_transaction_id, customer_key)) STRICT, WITHOUT ROWID;
        CREATE TABLE report_subscription_buckets (
          bucket INTEGER PRIMARY KEY, production INTEGER NOT NULL, unattributed INTEGER NOT NULL,
          sandbox INTEGER NOT NULL, first_production INTEGER, last_production INTEGER) STRICT;
        CREATE TABLE report_money_days (day_start INTEGER PRIMARY KEY, day_end INTEGER NOT NULL, money BLOB NOT NULL) STRICT;
        CREATE INDEX report_presentations_by_impression ON report_presentations (impression_at, customer_key)
          WHERE impression_at IS NOT NULL;
        """
}
