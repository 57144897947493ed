import PaywallSQLite

extension ReportSchema {
    /// Reports migration: earlier versions interned close products as Swift `String`s, which merged
    /// canonically equivalent products (`pro\u{E9}` and `proe\u{301}`, `K` and the Kelvin sign) into
    /// one spelling in `report_presentations` and the nightly partials. When any stored product holds
    /// a character outside printable ASCII (the only way two products can be canonically equivalent),
    /// the rollups, their keys and the nightly partials are emptied and the watermark is forgotten, so
    /// the next report run rebuilds them from the events; a store of ASCII products keeps its rollups.
    static let exactProducts = Migration("exact-products") { db in
        guard try db.scalar("SELECT EXISTS (SELECT 1 FROM events WHERE product GLOB '*[^ -~]*')")?.int64 == 1 else {
            return
        }
        try db.execute(exactProductsResetSQL)
        try forget([watermarkKey, newestKey, partialsTimezoneKey], in: db)
    }

    static let exactProductsResetSQL = """
        DELETE FROM report_presentations;
        DELETE FROM report_customers;
        DELETE FROM report_placements;
        DELETE FROM report_event_buckets;
        DELETE FROM report_day_partials;
        DELETE FROM report_dirty_buckets;
        """

    /// Reports migration: the newest event time the cohorts' `window_complete` reads is now capped
    /// at each event's arrival (`min(occurred_at, recorded_at)`), so one device with its clock set
    /// ahead cannot mark every young cohort complete. A store whose rollups already folded events
    /// gets the value recomputed over the events folded so far (the rest are folded capped).
    static let newestAtArrival = Migration("newest-at-arrival") { db in
        guard try db.scalar("SELECT count(*) FROM sqlite_schema WHERE name = 'events'")?.int64 == 1,
            let watermark = try db.scalar(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?1", [.text(watermarkKey)])?.int64
        else { return }
        if let newest = try db.scalar(
            "SELECT max(min(occurred_at, recorded_at)) FROM events WHERE rowid <= ?1", [.integer(watermark)])?.int64
        {
            try db.run(
                "INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS TEXT)) "
                    + "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [.text(newestKey), .integer(newest)])
        } else {
            try forget([newestKey], in: db)
        }
    }
}
