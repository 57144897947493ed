import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

/// `paywall-bench import`: NDJSON import through the validator and the store, next to the
/// `sqlite3` tool's `.import --csv` of the same events into the same table.
enum ImportBench {
    static func run(_ arguments: [String]) throws {
        let count = BenchSupport.eventCount(arguments, default: 500_000)
        let events = BenchSupport.events(count)
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let ndjson = directory.appendingPathComponent("events.ndjson")
        let csv = directory.appendingPathComponent("events.csv")
        try write(events.map(NDJSONLine.encode), to: ndjson)
        try write(events.map(csvLine), to: csv)

        let store = try EventStore(path: directory.appendingPathComponent("import.sqlite").path, now: .system)
        var result = ImportResult()
        let importSeconds = try BenchSupport.seconds { result = try Importer(store: store).importNDJSON(path: ndjson.path) }
        precondition(result.imported == count, "import stored \(result.imported) of \(count)")

        let sqlite3Seconds = try sqlite3Import(csv: csv, database: directory.appendingPathComponent("sqlite3.sqlite"))
        let ours = Double(count) / importSeconds
        let theirs = Double(count) / sqlite3Seconds
        let size = (try? FileManager.default.attributesOfItem(atPath: ndjson.path)[.size] as? Int) ?? 0
        BenchSupport.printTable("paywall-bench import — \(count) events (\(size / 1_000_000) MB of NDJSON)", [
            ["measure", "events/s", "target"],
            ["NDJSON import (validate + store + outbox)", String(format: "%.0f", ours), ""],
            ["sqlite3 .import --csv (same events, same columns)", String(format: "%.0f", theirs), ""],
            ["import / sqlite3", String(format: "%.2f", ours / theirs), ""],
        ])
    }

    static func write(_ lines: [String], to url: URL) throws {
        var data = Data()
        data.reserveCapacity(lines.count * 320)
        for line in lines {
            data.append(contentsOf: line.utf8)
            data.append(0x0A)
        }
        try data.write(to: url)
    }

    static func csvLine(_ event: EventRecord) -> String {
        let p = event.properties
        func field(_ text: String?) -> String {
            guard let text else { return "" }
            return text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        return [event.id.uuidString, event.name.rawValue, String(event.occurredAt), String(event.occurredAt), field(event.userID),
                event.sessionID?.uuidString ?? "", String(event.catalogVersion), p.pwID.uuidString, field(p.source),
                field(p.offeringID), field(p.placementID), field(p.product), p.result?.rawValue ?? "", p.via?.rawValue ?? "",
                p.openS.map { "\($0)" } ?? ""].joined(separator: ",")
    }

    /// Times `sqlite3 DB ".import --csv FILE events"` into the events table of migration 1 (without
    /// STRICT: the CLI imports empty CSV fields as '' which a STRICT REAL column refuses), WAL,
    /// synchronous NORMAL, like the store.
    static func sqlite3Import(csv: URL, database: URL) throws -> Double {
        let setup = try Connection(path: database.path)
        try setup.execute("""
            CREATE TABLE events (
              id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, occurred_at INTEGER NOT NULL, recorded_at INTEGER NOT NULL,
              user_id TEXT NOT NULL, session_id TEXT, catalog_version INTEGER NOT NULL, pw_id TEXT NOT NULL,
              source TEXT NOT NULL, offering_id TEXT, placement_id TEXT, product TEXT, result TEXT, via TEXT, open_s REAL)
            """)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", database.path, "PRAGMA journal_mode = WAL;", "PRAGMA synchronous = NORMAL;",
                             ".import --csv \(csv.path) events"]
        process.standardOutput = FileHandle.nullDevice
        let seconds = try BenchSupport.seconds {
            try process.run()
            process.waitUntilExit()
        }
        guard process.terminationStatus == 0 else {
            throw NSError(domain: "sqlite3", code: Int(process.terminationStatus),
                          userInfo: [NSLocalizedDescriptionKey: "sqlite3 .import failed; install the sqlite3 command-line tool"])
        }
        let imported = try setup.scalar("SELECT count(*) FROM events")?.int64 ?? 0
        precondition(imported > 0, "sqlite3 imported nothing")
        return seconds
    }
}
