import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore

/// Hand-built events covering every rule of funnels.md; the expected numbers are worked out by hand
/// in `Golden/utc/*.csv` (see the comments on each presentation below).
enum ReportFixture {
    static let hour: Int64 = 3_600_000
    /// 2026-11-01T00:00:00Z (in America/New_York, the day DST ends: a 25-hour day).
    static let day1: Int64 = 1_793_491_200_000
    static let day2 = day1 + 24 * hour
    static let day5 = day1 + 96 * hour

    struct Event {
        var id: Int
        var name: String
        var at: Int64
        var user: String
        var pw: Int
        var source: String
        var product: String? = nil
        var result: String? = nil
        var via: String? = nil
        var openS: Double? = nil
        var delivery: String = "delivered"
        var offering: String? = nil
        /// The context of catalog version 2 (`nil`: the event does not say, as a version 1 event).
        var platform: String? = nil
        var appVersion: String? = nil

        /// The oldest catalog version the event is valid in: 2 for a `via` that version 2 added,
        /// else 1 (so the fixture holds events of both versions).
        var catalogVersion: Int {
            via.map { Catalog.bundled.property(named: "via")?.version(introducing: $0) ?? 1 } ?? 1
        }
    }

    static func shown(
        _ id: Int, _ at: Int64, _ user: String, _ pw: Int, _ source: String,
        delivery: String = "delivered", offering: String? = nil
    ) -> Event {
        Event(
            id: id, name: "paywall_shown", at: at, user: user, pw: pw, source: source, delivery: delivery,
            offering: offering)
    }

    static func closed(
        _ id: Int, _ at: Int64, _ user: String, _ pw: Int, _ source: String, _ result: String,
        _ via: String, _ openS: Double, product: String? = nil
    ) -> Event {
        Event(
            id: id, name: "paywall_closed", at: at, user: user, pw: pw, source: source, product: product,
            result: result, via: via, openS: openS)
    }

    static func step(
        _ id: Int, _ name: String, _ at: Int64, _ user: String, _ pw: Int, _ source: String,
        _ product: String
    ) -> Event {
        Event(id: id, name: name, at: at, user: user, pw: pw, source: source, product: product)
    }

    /// Event ids are `00000000-0000-0000-0000-0000000000NN` (hex), so ties break in a known order.
    static func uuid(_ n: Int, prefix: String = "00000000") -> String {
        let hex = String(n, radix: 16, uppercase: true)
        return prefix + "-0000-0000-0000-" + String(repeating: "0", count: 12 - hex.count) + hex
    }

    static let events: [Event] = {
        let d1 = day1
        let d2 = day2
        let h = hour
        return [
            // P1 onboarding u1: second impression counts once; plan, purchase, purchased 12.5 s.
            // Offerings at onboarding: P1 and P2 "annual", P3 "monthly", P5 and P8 none ("").
            shown(0x01, d1 + 10 * h, "u1", 1, "onboarding", offering: "annual"),
            shown(0x02, d1 + 10 * h + 5000, "u1", 1, "onboarding", offering: "monthly"),
            step(0x03, "paywall_plan_selected", d1 + 10 * h + 6000, "u1", 1, "onboarding", "pro.year"),
            step(0x04, "paywall_purchase_started", d1 + 10 * h + 7000, "u1", 1, "onboarding", "pro.year"),
            closed(0x05, d1 + 10 * h + 12500, "u1", 1, "onboarding", "purchased", "auto", 12.5, product: "pro.year"),
            // P2 onboarding u2: a bounce (dismissed without purchase start) by a gesture, 3 s.
            shown(0x06, d1 + 11 * h, "u2", 2, "onboarding", delivery: "pending", offering: "annual"),
            closed(0x07, d1 + 11 * h + 3000, "u2", 2, "onboarding", "dismissed", "gesture", 3.0),
            // P3 onboarding u2: a purchase cancellation; the second close (continue_free) is ignored.
            shown(0x08, d1 + 12 * h, "u2", 3, "onboarding", delivery: "dead", offering: "monthly"),
            step(0x09, "paywall_purchase_started", d1 + 12 * h + 2000, "u2", 3, "onboarding", "pro.month"),
            closed(0x0A, d1 + 12 * h + 7250, "u2", 3, "onboarding", "dismissed", "close_button", 7.25),
            closed(0x0B, d1 + 12 * h + 9000, "u2", 3, "onboarding", "dismissed", "continue_free", 9.0),
            // P4 onboarding u3: closed before the dwell time: a dwell bounce, no impression.
            closed(0x0C, d1 + 13 * h, "u3", 4, "onboarding", "dismissed", "close_button", 0.4),
            // P5 onboarding u3: unclosed.
            shown(0x0D, d1 + 14 * h, "u3", 5, "onboarding"),
            // P8 onboarding u7: spans midnight; belongs to day 1, its purchase on day 2 counts there.
            shown(0x0E, d2 - 1000, "u7", 8, "onboarding"),
            closed(0x0F, d2 + 30000, "u7", 8, "onboarding", "purchased", "auto", 31.0, product: "pro.month"),
            // P7 u8: first-event tie at the same ms broken by id (0x10 < 0x11): placement tie-winner;
            // close tie broken by id (0x12 restored beats 0x13 continue_free). Inserted out of order.
            step(0x11, "paywall_plan_selected", d1 + 15 * h, "u8", 7, "tie-loser", "pro.year"),
            shown(0x10, d1 + 15 * h, "u8", 7, "tie-winner", delivery: "pending"),
            closed(0x13, d1 + 15 * h + 2000, "u8", 7, "tie-winner", "dismissed", "continue_free", 2.0),
            closed(0x12, d1 + 15 * h + 2000, "u8", 7, "tie-winner", "restored", "auto", 2.0),
            // P6 +plus u9: a purchase without an impression (empty conversion denominators).
            closed(0x14, d1 + 16 * h, "u9", 6, "+plus", "purchased", "auto", 5.0, product: "pro.year"),
            // P9 =SUM(A1) u10: 02:00Z on day 2, which is 21:00 on day 1 in America/New_York.
            shown(0x15, d2 + 2 * h, "u10", 9, "=SUM(A1)", delivery: "pending"),
            // Abandoned: the app went away with it open; the library closed it on the next start.
            closed(0x16, d2 + 2 * h + 1500, "u10", 9, "=SUM(A1)", "dismissed", "abandoned", 1.5),
            // Placements that need quoting or the formula guard, and markup that stays data.
            shown(0x17, d2 + 3 * h, "u11", 10, "Ünïcødé 🚀", delivery: "pending", offering: "=promo,\"q\""),
            closed(0x18, d2 + 3 * h + 4000, "u11", 10, "Ünïcødé 🚀", "purchased", "auto", 4.0, product: "pro.year"),
            shown(0x19, d2 + 4 * h, "u11", 11, "a,b \"c\"", delivery: "pending"),
            shown(0x1A, d2 + 5 * h, "u12", 12, "<script>alert(1)</script>", delivery: "pending"),
            closed(0x1B, d2 + 5 * h + 6000, "u12", 12, "<script>alert(1)</script>", "dismissed", "continue_free", 6.0),
            shown(0x1C, d2 + 6 * h, "u12", 13, "-minus", delivery: "pending"),
            closed(0x1D, d2 + 7 * h, "u12", 14, "@at", "dismissed", "close_button", 0.5),
            // Cohort window: u5 buys exactly 72 h after the first impression (converted); u6 72 h + 1 ms (not).
            shown(0x1E, d1 + 8 * h, "u5", 15, "cohort"),
            closed(0x1F, d1 + 8 * h + 1000, "u5", 15, "cohort", "dismissed", "close_button", 1.0),
            closed(0x20, d1 + 80 * h, "u5", 16, "other", "purchased", "auto", 2.0, product: "pro.month"),
            shown(0x21, d1 + 9 * h, "u6", 17, "cohort"),
            closed(0x22, d1 + 9 * h + 1000, "u6", 17, "cohort", "dismissed", "close_button", 1.0),
            closed(0x23, d1 + 81 * h + 1, "u6", 18, "other", "purchased", "auto", 2.0, product: "pro.month"),
            // u5 again on day 2: not a first impression, so no day-2 cohort row for "cohort".
            shown(0x24, d2 + 1 * h, "u5", 19, "cohort", delivery: "pending"),
            // The newest event, exactly 72 h after the end of day 1: day 1's cohort window is complete.
            shown(0x25, day5, "u13", 20, "late"),
        ]
    }()

    /// Creates a migrated store at `path` holding the fixture, a duplicate id, quarantine and drops.
    static func makeStore(
        at path: String, open: (String) throws -> Connection = { try ReportSchema.open(path: $0) }
    ) throws -> Connection {
        let connection = try open(path)
        try insert(events, into: connection)
        // A duplicate of event 0x05 with other content: stored once, so it counts once.
        var duplicate = events[4]
        duplicate.result = "dismissed"
        duplicate.via = "close_button"
        try insert([duplicate], into: connection)
        // Where some presentations came from (segments.csv): pw 3 from an Android app 2.0, pw 4 and 5
        // from an iOS app 3.2.0 (catalog version 2 events); the others are version 1 events without.
        try connection.transaction { db in
            for (pw, platform, version) in [(3, "android", "2.0"), (4, "ios", "3.2.0"), (5, "ios", "3.2.0")] {
                try db.run(
                    "UPDATE events SET catalog_version = 2, platform = ?, app_version = ? WHERE pw_id = ?",
                    [.text(platform), .text(version), .text(uuid(pw, prefix: "AAAAAAAA"))])
            }
        }
        try connection.transaction { db in
            try db.run(
                "INSERT INTO quarantine (quarantined_at, reasons, payload, origin, line) VALUES (?, 'bad name', '{\"name\":\"=x\"}', 'import.ndjson', 3)",
                [.integer(day1 + hour)])
            try db.run(
                "INSERT INTO quarantine (quarantined_at, reasons, payload) VALUES (?, 'missing pw_id', '{}')",
                [.integer(day1 + 49 * hour)])
            try db.run("INSERT INTO drops (dropped_at, count) VALUES (?, 5)", [.integer(day1 + 2 * hour)])
        }
        return connection
    }

    /// Inserts events the way the store does (first copy of an id wins; impressions newly stored
    /// enter the outbox, or the deliveries, or — dead — the dead letters with an open record).
    static func insert(_ events: [Event], into connection: Connection, pwPrefix: String = "AAAAAAAA") throws {
        try connection.transaction { db in
            let legacy = try db.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'deliveries'") == 0
            for event in events {
                try db.run(
                    """
                    INSERT OR IGNORE INTO events (id, name, occurred_at, recorded_at, user_id, session_id,
                      catalog_version, pw_id, source, offering_id, placement_id, product, result, via, open_s)
                    VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, NULL, ?, ?, ?, ?)
                    """,
                    [
                        .text(uuid(event.id)), .text(event.name), .integer(event.at), .integer(event.at + 50),
                        .text(event.user), .integer(Int64(event.catalogVersion)),
                        .text(uuid(event.pw, prefix: pwPrefix)), .text(event.source),
                        .text(event.offering), .text(event.product), .text(event.result), .text(event.via),
                        .real(event.openS),
                    ])
                let inserted = db.changes == 1
                if inserted, event.platform != nil || event.appVersion != nil {
                    try db.run(
                        "UPDATE events SET catalog_version = 2, platform = ?, app_version = ? WHERE id = ?",
                        [.text(event.platform), .text(event.appVersion), .text(uuid(event.id))])
                }
                guard inserted, event.name == "paywall_shown" else { continue }
                let rowid = db.lastInsertRowID
                if event.delivery == "dead" {
                    try db.run(
                        "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?, 400, ?, ?)",
                        [.text(uuid(event.id)), .text("invalid \"app_user_id\", refused"), .integer(day2)])
                }
                switch legacy ? "legacy" : event.delivery {
                case "legacy":  // schema version 3 or older: one outbox row per impression with its state
                    try db.run(
                        "INSERT INTO outbox (event_id, occurred_at, state) VALUES (?, ?, ?)",
                        [.text(uuid(event.id)), .integer(event.at), .text(event.delivery)])
                case "pending":
                    try db.run(
                        "INSERT INTO outbox (event_rowid, occurred_at) VALUES (?, ?)",
                        [.integer(rowid), .integer(event.at)])
                case "dead": break
                default:
                    try db.run(
                        "INSERT INTO deliveries (event_rowid, occurred_at, delivered_at) VALUES (?, ?, ?)",
                        [.integer(rowid), .integer(event.at), .integer(event.at + 60_000)])
                }
            }
        }
    }
}
