import PaywallSQLite

extension Schema {
    /// `deliveries.by_device`: 1 when the impression was forwarded to RevenueCat by the app install
    /// that recorded it (written with ``NewImpressions/forwardedByDevice``, or imported from such an
    /// install's file), 0 when by this store's forwarder (or imported with `--no-forward`). A partial
    /// index keeps the count of device deliveries cheap for `stats`; `export events` shows them as
    /// `forwarded_by_device`.
    static let deliveriesByDevice = Migration(
        "deliveries-by-device",
        sql: """
            ALTER TABLE deliveries ADD COLUMN by_device INTEGER NOT NULL DEFAULT 0;
            CREATE INDEX deliveries_by_device ON deliveries (event_rowid) WHERE by_device = 1;
            """)
}
