import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

/// `paywall-bench recorder`: the caller's `record` latency while batches commit, sustained ingest
/// through the recorder, and the ceiling of a bare prepared-INSERT loop on the same schema.
enum RecorderBench {
    static func run(_ arguments: [String]) async throws {
        let count = BenchSupport.eventCount(arguments, default: 500_000)
        let events = BenchSupport.events(count)
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }

        // 1. Latency on the caller while the committer writes batches (capacity holds every event: no drops).
        let recorder = try Recorder(
            path: directory.appendingPathComponent("recorder.sqlite").path, now: .system,
            policy: FlushPolicy(batchSize: 10_000, capacity: count + 1))
        var latencies = [UInt64](repeating: 0, count: count)
        let start = ContinuousClock.now
        latencies.withUnsafeMutableBufferPointer { out in
            for index in 0..<count {
                let before = DispatchTime.now().uptimeNanoseconds
                recorder.record(events[index])
                out[index] = DispatchTime.now().uptimeNanoseconds - before
            }
        }
        let recordSeconds = (ContinuousClock.now - start).seconds
        try await recorder.flush()
        let ingestSeconds = (ContinuousClock.now - start).seconds
        let dropped = recorder.droppedCount
        let stored = Int(try recorder.store.connection.scalar("SELECT count(*) FROM events")?.int64 ?? 0)
        try await recorder.close()
        latencies.sort()
        func percentile(_ p: Double) -> String {
            String(format: "%.3f", Double(latencies[min(count - 1, Int(Double(count) * p))]) / 1000)
        }

        // 2. The ceiling: the same schema, one prepared INSERT in a bare loop, 10,000 rows per transaction.
        let ceilingSeconds = try ceiling(
            events, path: directory.appendingPathComponent("ceiling.sqlite").path, outbox: false)
        let outboxSeconds = try ceiling(
            events, path: directory.appendingPathComponent("ceiling-outbox.sqlite").path, outbox: true)
        let ingestRate = Double(count) / ingestSeconds
        let ceilingRate = Double(count) / ceilingSeconds
        let outboxRate = Double(count) / outboxSeconds
        BenchSupport.printTable(
            "paywall-bench recorder — \(count) events (stored \(stored), dropped \(dropped))",
            [
                ["measure", "value", "target"],
                ["record latency p50 (µs)", percentile(0.50), ""],
                ["record latency p99 (µs)", percentile(0.99), ""],
                ["record latency max (µs)", String(format: "%.1f", Double(latencies[count - 1]) / 1000), ""],
                ["caller record rate (events/s)", BenchSupport.rate(count, recordSeconds), ""],
                ["recorder ingest (events/s)", String(format: "%.0f", ingestRate), ""],
                ["ceiling: bare INSERT loop (rows/s)", String(format: "%.0f", ceilingRate), ""],
                ["ingest / ceiling", String(format: "%.2f", ingestRate / ceilingRate), ""],
                ["ceiling + outbox rows for impressions (rows/s)", String(format: "%.0f", outboxRate), ""],
                ["ingest / ceiling with the same outbox rows", String(format: "%.2f", ingestRate / outboxRate), ""],
            ])
    }

    /// Fills the events table by a bare loop over one prepared INSERT with pre-rendered values
    /// (with `outbox`, also the outbox row the recorder writes for each impression).
    static func ceiling(_ events: [EventRecord], path: String, outbox: Bool) throws -> Double {
        let connection = try Schema.open(path: path)
        let rows = events.map { event in
            (event.id.uuidString, event.name.rawValue, event.sessionID?.uuidString, event.properties.pwID.uuidString)
        }
        let sql = """
            INSERT INTO events (id, name, occurred_at, recorded_at, user_id, session_id, catalog_version, pw_id, source,
              offering_id, placement_id, product, result, via, open_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
            """
        return try BenchSupport.seconds {
            try connection.withDatabase { db in
                let insert = try db.cachedStatement(sql)
                let enqueue = try db.cachedStatement("INSERT INTO outbox (event_rowid, occurred_at) VALUES (?1, ?2)")
                var index = 0
                while index < events.count {
                    try db.transaction {
                        for row in index..<min(events.count, index + 10_000) {
                            let event = events[row]
                            let text = rows[row]
                            insert.bind(text.0, at: 1)
                            insert.bind(text.1, at: 2)
                            insert.bind(event.occurredAt, at: 3)
                            insert.bind(event.occurredAt, at: 4)
                            insert.bind(event.userID, at: 5)
                            insert.bind(text.2, at: 6)
                            insert.bind(Int64(event.catalogVersion), at: 7)
                            insert.bind(text.3, at: 8)
                            insert.bind(event.properties.source, at: 9)
                            insert.bind(event.properties.offeringID, at: 10)
                            insert.bind(event.properties.placementID, at: 11)
                            insert.bind(event.properties.product, at: 12)
                            insert.bind(event.properties.result?.rawValue, at: 13)
                            insert.bind(event.properties.via?.rawValue, at: 14)
                            insert.bind(event.properties.openS, at: 15)
                            try insert.run()
                            if outbox && event.name == .paywallShown {
                                enqueue.bind(db.lastInsertRowID, at: 1)
                                enqueue.bind(event.occurredAt, at: 2)
                                try enqueue.run()
                            }
                        }
                    }
                    index += 10_000
                }
            }
        }
    }
}
