import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions

/// `paywall-bench report subscriptions [--events N]`: the report's cost of the subscription side.
/// The same generated paywall events (default 10M over 30 days) twice, one store with a tenth as
/// many subscription events (starts bought a minute after an impression, renewals, a few refunds
/// and sandbox events), the other without: full report time with against without (goal ≤ 1.25×);
/// then the nightly job on the store with them after one more day of paywall events and late
/// renewals (renewals stamped that day for subscriptions started weeks before) against its first
/// run, the full recompute (goal ≤ 5 %). Three nights in a row, each after one more day, and each
/// night paired with a full recompute of the same data right after it (a copy of the store as it
/// was before any report, given the same days): the figure is the median of the three nights'
/// ratios, so a slow stretch of the machine weighs on both sides of a ratio alike, and each pair's
/// CSV files must be equal. For scale, the same nights on the store without subscription events
/// (the same paywall days): what the nightly costs before the subscription side adds anything.
/// Each measured run is a child process (`report child`).
enum SubscriptionReportBench {
    static func run(_ arguments: [String]) throws {
        let count = BenchSupport.eventCount(arguments, default: 10_000_000)
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let without = directory.appendingPathComponent("without.sqlite").path
        let with = directory.appendingPathComponent("with.sqlite").path
        let nightlyDB = directory.appendingPathComponent("nightly.sqlite").path
        let plainNightlyDB = directory.appendingPathComponent("plain-nightly.sqlite").path
        var generator = ReportDataGenerator(seed: 42, start: ReportBench.start, eventsPerDay: count / 30)
        try generator.append(days: 30, to: without)
        _ = try SubscriptionSchema.open(path: without)  // the same schema, no subscription events
        try FileManager.default.copyItem(atPath: without, toPath: plainNightlyDB)
        try FileManager.default.copyItem(atPath: without, toPath: with)
        let inserted = try insertSubscriptions(into: with, count: count / 10, lateDay: nil)
        ReportBench.log("\(generator.events) paywall events; \(inserted) subscription events in the second store")
        try FileManager.default.copyItem(atPath: with, toPath: nightlyDB)
        // The store as no report has touched it, given the same days as the nightly one: each night's
        // full recompute runs on a copy of it.
        let unreported = directory.appendingPathComponent("unreported.sqlite").path
        try FileManager.default.copyItem(atPath: with, toPath: unreported)

        let to = ReportDate(year: 2026, month: 11, day: 30).description
        let plain = try ReportBench.child([
            "report", without, directory.appendingPathComponent("a").path, "2026-11-01", to,
        ])
        let money = try ReportBench.child([
            "report", with, directory.appendingPathComponent("b").path, "2026-11-01", to,
        ])
        let out = directory.appendingPathComponent("nightly").path
        let recompute = try ReportBench.child(["nightly", nightlyDB, out, "0"])
        let plainOut = directory.appendingPathComponent("plain-nightly").path
        let plainRecompute = try ReportBench.child(["nightly", plainNightlyDB, plainOut, "0"])
        // Three nights in a row, each after one more day of paywall events (and, on the store with
        // subscription events, late renewals stamped that day), each on the store as the night before
        // left it, as in production, each followed by a full recompute of the same data: one nightly's
        // time swings by a fifth with the machine, so the figure is the median of the nights' ratios.
        let paywallEvents = generator.events
        var plainGenerator = generator  // the same next days for every store
        var unreportedGenerator = generator
        var runs: [ReportBench.Measurement] = []
        var recomputes: [ReportBench.Measurement] = []
        var plainRuns: [ReportBench.Measurement] = []
        var late = 0
        var equalFiles = 0
        for night in 0..<3 {
            try plainGenerator.append(days: 1, to: plainNightlyDB)
            plainRuns.append(try ReportBench.child(["nightly", plainNightlyDB, plainOut, "0"]))
            let lateDay = ReportBench.start + Int64(30 + night) * ReportBench.day
            try generator.append(days: 1, to: nightlyDB)
            late = try insertSubscriptions(into: nightlyDB, count: count / 300, lateDay: lateDay)
            runs.append(try ReportBench.child(["nightly", nightlyDB, out, "0"]))
            try unreportedGenerator.append(days: 1, to: unreported)
            _ = try insertSubscriptions(into: unreported, count: count / 300, lateDay: lateDay)
            let copy = directory.appendingPathComponent("recompute.sqlite").path
            let copyOut = directory.appendingPathComponent("recompute").path
            try? FileManager.default.removeItem(atPath: copy)
            try? FileManager.default.removeItem(atPath: copyOut)
            try FileManager.default.copyItem(atPath: unreported, toPath: copy)
            recomputes.append(try ReportBench.child(["nightly", copy, copyOut, "0"]))
            equalFiles = try sameCSVFiles(out, copyOut, night: night + 1)
            try FileManager.default.removeItem(atPath: copy)
        }
        let each = { (runs: [ReportBench.Measurement]) in
            runs.map { ReportBench.fmt($0.seconds) }.joined(separator: ", ")
        }
        let nightly = runs.sorted { $0.seconds < $1.seconds }[1]
        let ratios = zip(runs, recomputes).map { $0.seconds / $1.seconds }
        let ratio = ratios.sorted()[1]
        let plainNightly = plainRuns.sorted { $0.seconds < $1.seconds }[1]
        for (night, run) in runs.enumerated() {
            ReportBench.log("night \(night + 1) with late renewals, stages: \(run.stageLine)")
        }
        for (night, run) in plainRuns.enumerated() {
            ReportBench.log("night \(night + 1) without subscription events, stages: \(run.stageLine)")
        }
        BenchSupport.printTable(
            "paywall-bench report subscriptions — \(paywallEvents) paywall events, \(inserted) subscription events",
            [
                ["measure", "value", "target"],
                ["report without subscription events (s)", ReportBench.fmt(plain.seconds), ""],
                ["report with them (s)", ReportBench.fmt(money.seconds), ""],
                ["report with / without subscription events", ReportBench.fmt(money.seconds / plain.seconds), ""],
                ["peak RSS report with / without (MB)", "\(money.rssMB) / \(plain.rssMB)", ""],
                ["first nightly = full recompute (s)", ReportBench.fmt(recompute.seconds), ""],
                [
                    "nightly after +1 day and \(late) late renewals (s), median of 3 nights (\(each(runs)))",
                    ReportBench.fmt(nightly.seconds), "",
                ],
                ["full recompute of each night's data (s)", each(recomputes), ""],
                [
                    "nightly with late renewals / full recompute",
                    String(format: "%.1f %%", 100 * ratio) + ", median of "
                        + ratios.map { String(format: "%.1f", 100 * $0) }.joined(separator: ", "), "",
                ],
                [
                    "median night / first nightly (the 30 days' recompute before the nights, for comparison)",
                    String(format: "%.1f %%", 100 * nightly.seconds / recompute.seconds), "",
                ],
                ["CSV files byte-equal to the recompute's", "\(equalFiles) files, every night", ""],
                ["peak RSS first nightly / nightly (MB)", "\(recompute.rssMB) / \(nightly.rssMB)", ""],
                [
                    "without subscription events: nightly (median of \(each(plainRuns))) / full recompute (s)",
                    "\(ReportBench.fmt(plainNightly.seconds)) / \(ReportBench.fmt(plainRecompute.seconds)) = "
                        + String(format: "%.1f %%", 100 * plainNightly.seconds / plainRecompute.seconds), "",
                ],
            ])
    }

    /// Compares every report file (``ReportFile/all``) of a nightly output folder with a full
    /// recompute's, byte for byte. - Returns: how many there are. - Throws: when one differs or is
    /// missing on either side.
    static func sameCSVFiles(_ nightly: String, _ recompute: String, night: Int) throws -> Int {
        for name in ReportFile.all.map(\.fileName) {
            let left = FileManager.default.contents(atPath: "\(nightly)/\(name)")
            guard let left, left == FileManager.default.contents(atPath: "\(recompute)/\(name)") else {
                throw BenchError(
                    "night \(night): \(name) of the nightly "
                        + (left == nil ? "is missing" : "differs from the full recompute's or is missing there"))
            }
        }
        return ReportFile.all.count
    }

    /// Inserts about `count` subscription events for the customers of the store's impressions, as
    /// the webhook ingest stores them (plain SQL: extraction is not measured here). With `lateDay`,
    /// only renewals stamped on that day, for subscriptions already stored.
    static func insertSubscriptions(into path: String, count: Int, lateDay: Int64?) throws -> Int {
        let connection = try SubscriptionSchema.open(path: path)
        var inserted = 0
        try connection.transaction { db in
            if let lateDay {
                let starts = try db.all(
                    """
                    SELECT original_transaction_id, app_user_id FROM subscription_events
                    WHERE type = 'INITIAL_PURCHASE' ORDER BY rowid LIMIT ?
                    """, [.integer(Int64(count))]
                ) { ($0.string(at: 0) ?? "", $0.string(at: 1) ?? "") }
                for (index, (transaction, user)) in starts.enumerated() {
                    try insert(
                        db, id: "late-\(lateDay)-\(index)", type: "RENEWAL", user: user, transaction: transaction,
                        at: lateDay + Int64(index % 86_000) * 1000, period: "NORMAL", price: 9_990_000)
                    inserted += 1
                }
                return
            }
            let shown = try db.all(
                "SELECT user_id, occurred_at FROM events WHERE name = 'paywall_shown' ORDER BY rowid LIMIT ?",
                [.integer(Int64(count / 3))]
            ) { ($0.string(at: 0) ?? "", $0.int64(at: 1)) }
            for (index, (user, at)) in shown.enumerated() where inserted < count {
                let transaction = "bench-\(index)"
                let trial = index % 3 == 0
                try insert(
                    db, id: "\(transaction)-start", type: "INITIAL_PURCHASE", user: user, transaction: transaction,
                    at: at + 60_000, period: trial ? "TRIAL" : "NORMAL", price: trial ? 0 : 4_990_000)
                try insert(
                    db, id: "\(transaction)-renewal", type: "RENEWAL", user: user, transaction: transaction,
                    at: at + 3 * 86_400_000, period: "NORMAL", price: 4_990_000)
                if index % 20 == 0 {
                    try insert(
                        db, id: "\(transaction)-refund", type: "CANCELLATION", user: user, transaction: transaction,
                        at: at + 4 * 86_400_000, period: "NORMAL", price: -4_990_000)
                } else if index % 20 == 1 {
                    try insert(
                        db, id: "\(transaction)-sandbox", type: "INITIAL_PURCHASE", user: user,
                        transaction: transaction + "-sb", at: at, period: "NORMAL", price: 4_990_000, sandbox: true)
                } else {
                    try insert(
                        db, id: "\(transaction)-renewal2", type: "RENEWAL", user: user, transaction: transaction,
                        at: at + 33 * 86_400_000, period: "NORMAL", price: 4_990_000)
                }
                inserted += 3
            }
        }
        return inserted
    }

    static func insert(
        _ db: Database, id: String, type: String, user: String, transaction: String, at: Int64, period: String,
        price: Int64, sandbox: Bool = false
    ) throws {
        try db.run(
            """
            INSERT INTO subscription_events (id, type, environment, event_timestamp_ms, app_user_id,
              original_app_user_id, period_type, purchased_at_ms, expiration_at_ms, original_transaction_id,
              is_trial_conversion, price_micros, proceeds_micros, currency, received_at_ms, raw_body)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'USD', ?, x'7b7d')
            """,
            [
                .text(id), .text(type), .text(sandbox ? "SANDBOX" : "PRODUCTION"), .integer(at), .text(user),
                .text(user), .text(period), .integer(at), .integer(at + 3 * 86_400_000), .text(transaction),
                .integer(type == "RENEWAL" && period == "NORMAL" ? 1 : 0), .integer(price), .integer(price * 7 / 10),
                .integer(at),
            ])
        try db.run(
            "INSERT INTO subscription_customer_keys (customer_key, event_rowid) VALUES (?, ?)",
            [.text(user), .integer(db.lastInsertRowID)])
    }
}
