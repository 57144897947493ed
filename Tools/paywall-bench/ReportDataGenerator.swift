import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallSimulation
import PaywallStore

/// Deterministic paywall traffic for the report benchmark, written straight into a store in time
/// order: per presentation an impression (85 %), plan selections, purchase starts and a close
/// (93 %), across 8 placements (some needing CSV quoting) and 300k customers, each assigned to one
/// of two offerings (a third of them to `variant_b`) and to a platform and app version (a fifth of
/// them catalog version 1 events without a context); impressions enter the outbox (pending), the
/// deliveries or the dead letters.
struct ReportDataGenerator {
    let start: Int64
    let eventsPerDay: Int
    private var random: SeededGenerator
    private(set) var events = 0
    private(set) var presentations = 0
    private(set) var eventsBeforeLastAppend = 0
    private var nextDay = 0
    static let placements = [
        "onboarding", "settings", "paywall_gate", "home_banner", "Ünïcødé 🚀", "limit, reached",
        "=promo", "upgrade",
    ]

    /// Each customer's platform (by customer key; `nil`: catalog version 1 events, no context).
    static let platforms: [String?] = ["ios", "android", nil, "ipados", "web"]
    /// Each customer's app version (by customer key, among those with a platform).
    static let appVersions = ["3.1.0", "3.2.0", "3.2.1", "4.0.0", "4.0.1", "4.1.0", "4.2.0"]

    init(seed: UInt64, start: Int64, eventsPerDay: Int) {
        random = SeededGenerator(seed: seed)
        self.start = start
        self.eventsPerDay = eventsPerDay
    }

    /// Appends `days` more days of events to the store at `path`.
    mutating func append(days: Int, to path: String) throws {
        eventsBeforeLastAppend = events
        let connection = try ReportSchema.open(path: path)
        for _ in 0..<days {
            try appendDay(connection)
            nextDay += 1
        }
    }

    private mutating func appendDay(_ connection: Connection) throws {
        let dayStart = start + Int64(nextDay) * 86_400_000
        let perPresentation = 2.27  // measured mean events per presentation of this mix
        let count = Int(Double(eventsPerDay) / perPresentation)
        let step = 86_400_000 / Int64(max(count, 1))
        var written = 0
        var index = 0
        while index < count {
            try connection.transaction { db in
                let insert = try db.cachedStatement(
                    """
                    INSERT INTO events (id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id,
                      source, offering_id, placement_id, product, result, via, open_s, platform, app_version)
                    VALUES (?1, ?2, ?3, ?4, ?5, NULL, ?13, ?6, ?7, ?8, NULL, ?9, ?10, ?11, ?12, ?14, ?15)
                    """)
                let outbox = Delivery(
                    pending: try db.cachedStatement(
                        "INSERT INTO outbox (event_rowid, occurred_at) VALUES (last_insert_rowid(), ?)"),
                    delivered: try db.cachedStatement(
                        "INSERT INTO deliveries (event_rowid, occurred_at, delivered_at) VALUES (last_insert_rowid(), ?1, ?1 + 60000)"
                    ),
                    dead: try db.cachedStatement(
                        "INSERT INTO dead_letters (event_id, status, reason, dead_at) VALUES (?, 400, 'refused by the benchmark', ?)"
                    ))
                let end = min(count, index + 20_000)
                while index < end {
                    written += try presentation(at: dayStart + Int64(index) * step, insert, outbox)
                    index += 1
                }
            }
        }
        events += written
        presentations += count
    }

    private mutating func presentation(at time: Int64, _ insert: Statement, _ outbox: Delivery) throws -> Int {
        var t = time
        let pw = UUIDv7.make(milliseconds: t, using: &random).uuidString
        let customer = random.next() % 300_000
        let user = "user-\(customer)"
        let offering = customer % 3 == 0 ? "variant_b" : "default"  // from the customer: no extra draw
        let source = Self.placements[Int(random.next() % UInt64(Self.placements.count))]
        // From the customer, like the offering: no extra draw, so the traffic is otherwise the same.
        let platform = Self.platforms[Int(customer % UInt64(Self.platforms.count))]
        let appVersion = platform.map { _ in Self.appVersions[Int(customer / 5 % UInt64(Self.appVersions.count))] }
        var written = 0
        func add(_ name: String, _ product: String?, _ result: String?, _ via: String?, _ openS: Double?) throws
            -> String
        {
            let id = UUIDv7.make(milliseconds: t, using: &random).uuidString
            insert.reset()
            insert.bind(id, at: 1)
            insert.bind(name, at: 2)
            insert.bind(t, at: 3)
            insert.bind(t + 40, at: 4)
            insert.bind(user, at: 5)
            insert.bind(pw, at: 6)
            insert.bind(source, at: 7)
            insert.bind(offering, at: 8)
            insert.bind(product, at: 9)
            insert.bind(result, at: 10)
            insert.bind(via, at: 11)
            insert.bind(openS, at: 12)
            insert.bind(Int64(platform == nil ? 1 : 2), at: 13)
            insert.bind(platform, at: 14)
            insert.bind(appVersion, at: 15)
            try insert.run()
            written += 1
            return id
        }
        let shown = random.chance(0.85)
        if shown {
            t += 1000
            let id = try add("paywall_shown", nil, nil, nil, nil)
            let roll = random.next() % 100
            // Right after the impression's insert, so last_insert_rowid() is its rowid.
            if roll < 90 {
                outbox.delivered.bind(t, at: 1)
                try outbox.delivered.run()
            } else if roll < 98 {
                outbox.pending.bind(t, at: 1)
                try outbox.pending.run()
            } else {
                outbox.dead.bind(id, at: 1)
                outbox.dead.bind(t, at: 2)
                try outbox.dead.run()
            }
        }
        let product = random.chance(0.5) ? "pro.month" : "pro.year"
        let selected = shown && random.chance(0.4)
        if selected {
            t += 2000
            _ = try add("paywall_plan_selected", product, nil, nil, nil)
        }
        let started = selected && random.chance(0.4)
        if started {
            t += 2000
            _ = try add("paywall_purchase_started", product, nil, nil, nil)
        }
        if !shown || random.chance(0.93) {
            let openS = shown ? Double(1000 + Int(random.next() % 60_000)) / 1000 : Double(random.next() % 1000) / 1000
            t = time + Int64(openS * 1000)
            if started && random.chance(0.6) {
                _ = try add("paywall_closed", product, "purchased", "auto", openS)
            } else if shown && random.chance(0.02) {
                _ = try add("paywall_closed", nil, "restored", "auto", openS)
            } else {
                _ = try add(
                    "paywall_closed", selected ? product : nil, "dismissed",
                    random.chance(0.7) ? "close_button" : "continue_free", openS)
            }
        }
        return written
    }
}

/// The statements that place a generated impression: pending, delivered or dead-lettered.
private struct Delivery {
    let pending: Statement
    let delivered: Statement
    let dead: Statement
}
