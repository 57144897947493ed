import PaywallSQLite

extension Schema {
    /// The `PRAGMA application_id` of every PaywallAnalytics store: `0x5057414E`, the ASCII bytes
    /// `PWAN` (1347895630).
    public static let applicationID: Int32 = 0x5057_414E

    /// How a store is recognised: marked with ``applicationID``; a store from before the mark
    /// (application id 0: the count-based versions 1–9, and stores recording migrations by identifier
    /// before `store/application-id`) by the tables and columns every version has.
    public static let identity = DatabaseIdentity(
        applicationID: applicationID, name: "PaywallAnalytics store",
        markers: [
            "events": ["id", "name", "occurred_at", "user_id", "pw_id", "source", "catalog_version"],
            "outbox": ["occurred_at", "attempts", "next_attempt_at"],
            "quarantine": ["reasons", "payload"],
            "dead_letters": ["event_id", "status", "reason"],
            "drops": ["dropped_at", "count"],
            "meta": ["key", "value"],
        ])

    /// `store/application-id`: marks a store created before application ids with ``applicationID`` (the
    /// migrator marks a new store in its first transaction already). `StoreIdentityTests` holds the
    /// literal equal to the constant.
    static let storeApplicationID = Migration(
        "application-id",
        sql: """
            PRAGMA application_id = 1347895630;
            """)
}
