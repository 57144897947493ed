import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore

/// `paywall-bench collector` (last part) or `paywall-bench collector --only sustained`: the
/// collector under sustained load with a full report running. A store of `--store-events` events
/// (1,000,000) is imported (its rate is the ingest baseline of the same run), `serve` takes 8 wrk
/// connections posting 100 fresh events per request in three phases: load alone (`--phase-seconds`,
/// 20 s), while `report` covers every stored day (until it exits), and the 15 s after it. Each phase
/// gives p99 and the largest WAL seen (sampled every 50 ms); after the report, the seconds until the
/// WAL is back within `--max-wal` (64 MiB) and its size 15 s after. The nginx-204 p99 at the same
/// connections is the latency baseline. Every request must be answered (no wrk error), and every
/// request answered 200 must have its 100 events stored.
enum CollectorLoadBench {
    struct Phase {
        var name: String
        var wrk: CollectorBench.WrkResult
        var largestWAL: Int
    }

    /// Samples a file's size every 50 ms on a thread of its own.
    final class WALSampler: Sendable {
        private let state = Lock((largest: 0, samples: [(Double, Int)]()))
        private let stopped = Lock(false)
        private let done = DispatchSemaphore(value: 0)
        let start = Date()

        init(path: String) {
            let thread = Thread { [self] in
                while !stopped.withLock({ $0 }) {
                    let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                    let now = Date().timeIntervalSince(start)
                    state.withLock {
                        $0.largest = max($0.largest, size)
                        $0.samples.append((now, size))
                    }
                    usleep(50_000)
                }
                done.signal()
            }
            thread.start()
        }

        /// The largest size since the last call, and resets it.
        func takeLargest() -> Int {
            state.withLock { state in
                defer { state.largest = 0 }
                return state.largest
            }
        }

        /// Seconds since start.
        var now: Double { Date().timeIntervalSince(start) }

        /// The first time at or after `from` when the size was at most `bound`.
        func firstAtMost(_ bound: Int, from: Double) -> Double? {
            state.withLock { $0.samples.first { $0.0 >= from && $0.1 <= bound }?.0 }
        }

        /// The size sampled closest to `time`.
        func size(at time: Double) -> Int? {
            state.withLock { $0.samples.min { abs($0.0 - time) < abs($1.0 - time) }?.1 }
        }

        func stop() {
            stopped.withLock { $0 = true }
            done.wait()
        }
    }

    static func run(binary: String, directory: URL, arguments: [String]) throws {
        let storeEvents = Int(CollectorBench.value(arguments, "--store-events") ?? "1000000") ?? 1_000_000
        let phaseSeconds = Int(CollectorBench.value(arguments, "--phase-seconds") ?? "20") ?? 20
        let connections = 8
        let walBound = 64 << 20
        let db = directory.appendingPathComponent("sustained.sqlite").path
        // The store, by import: its rate is the ingest baseline.
        let file = directory.appendingPathComponent("sustained.ndjson")
        let handle = try FileHandle(
            forWritingTo: {
                FileManager.default.createFile(atPath: file.path, contents: nil)
                return file
            }())
        var stream = PresentationStream()
        var written = 0
        while written < storeEvents {
            let events = stream.next(min(100_000, storeEvents - written))
            written += events.count
            var data = Data()
            for line in events.map(NDJSONLine.encode) {
                data.append(contentsOf: line.utf8)
                data.append(0x0A)
            }
            try handle.write(contentsOf: data)
        }
        try handle.close()
        let importSeconds = try BenchSupport.seconds {
            _ = try CollectorBench.output(binary, ["import", file.path, "--db", db, "--quiet"])
        }
        try? FileManager.default.removeItem(at: file)
        let importRate = Double(storeEvents) / importSeconds
        let (first, last) = try days(db)
        let base = try EventStore(path: db, now: .system).stats().totalEvents

        let key = try CollectorBench.output(binary, ["keys", "add", "bench", "--db", db])
            .trimmingCharacters(in: .newlines)
        let stderrPath = directory.appendingPathComponent("sustained.stderr").path
        let (serve, port) = try CollectorBench.startServe(binary: binary, db: db, stderrPath: stderrPath)
        let script = directory.appendingPathComponent("sustained.lua").path
        try CollectorBenchScripts.plain(key: key).write(toFile: script, atomically: true, encoding: .utf8)
        let url = "http://127.0.0.1:\(port)/v1/events"
        let sampler = WALSampler(path: db + "-wal")
        var phases: [Phase] = []

        // 1. Load alone.
        _ = sampler.takeLargest()
        let alone = try CollectorBench.runWrk(
            url: url, script: script, seconds: phaseSeconds, connections: connections, threads: 2)
        phases.append(Phase(name: "load alone", wrk: alone, largestWAL: sampler.takeLargest()))

        // 2. A full report, with the same load until it exits.
        let report = Process()
        report.executableURL = URL(fileURLWithPath: binary)
        report.arguments = [
            "report", "--from", first, "--to", last, "--out", directory.appendingPathComponent("report").path,
            "--db", db,
        ]
        report.standardOutput = FileHandle.nullDevice
        report.standardError = FileHandle.nullDevice
        let during = try CollectorBench.runWrkUntil(
            url: url, script: script, connections: connections, threads: 2
        ) {
            try report.run()
            report.waitUntilExit()
        }
        let reportEnded = sampler.now
        let reportSeconds = during.seconds
        phases.append(Phase(name: "report running", wrk: during, largestWAL: sampler.takeLargest()))

        // 3. The 15 s after the report.
        let after = try CollectorBench.runWrk(
            url: url, script: script, seconds: 15, connections: connections, threads: 2)
        phases.append(Phase(name: "after the report", wrk: after, largestWAL: sampler.takeLargest()))
        usleep(200_000)
        let backAt = sampler.firstAtMost(walBound, from: reportEnded).map { $0 - reportEnded }
        let walAfter15 = sampler.size(at: reportEnded + 15) ?? -1
        sampler.stop()
        kill(serve.processIdentifier, SIGTERM)
        serve.waitUntilExit()
        let stored = try EventStore(path: db, now: .system).stats().totalEvents - base
        let acknowledged = phases.reduce(0) { $0 + ($1.wrk.requests - $1.wrk.non2xx) } * 100
        let unanswered = phases.reduce(0) { $0 + $1.wrk.errors }
        let nginx = try CollectorBench.nginxBaseline(
            directory: directory, seconds: phaseSeconds, connections: connections, threads: 2)

        func ms(_ value: Double) -> String { String(format: "%.1f", value * 1000) }
        func mib(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
        BenchSupport.printTable(
            "paywall-bench collector — sustained load: wrk -t2 -c\(connections), 100 fresh events per request, "
                + "a store of \(base) events, a full report (\(first) to \(last)) in the second phase",
            [
                [
                    "phase", "seconds", "events/s", "× import", "p50 ms", "p99 ms", "p99 ÷ nginx", "largest WAL MiB",
                    "non-2xx", "errors",
                ]
            ]
                + phases.map { phase in
                    let rate = Double(phase.wrk.requests - phase.wrk.non2xx) * 100 / phase.wrk.seconds
                    return [
                        phase.name, String(format: "%.1f", phase.wrk.seconds), String(format: "%.0f", rate),
                        String(format: "%.2f", rate / importRate), ms(phase.wrk.p50), ms(phase.wrk.p99),
                        String(format: "%.1f", phase.wrk.p99 / max(nginx.p99, 1e-6)), mib(phase.largestWAL),
                        String(phase.wrk.non2xx), String(phase.wrk.errors),
                    ]
                } + [
                    [
                        "baseline: import of the \(storeEvents)-event store", String(format: "%.1f", importSeconds),
                        String(format: "%.0f", importRate), "1.00", "", "", "", "", "", "",
                    ],
                    [
                        "baseline: nginx answering 204", String(format: "%.1f", nginx.seconds),
                        "", "", ms(nginx.p50), ms(nginx.p99), "1.0", "", String(nginx.non2xx), String(nginx.errors),
                    ],
                ])
        BenchSupport.printTable(
            "paywall-bench collector — sustained load against the targets",
            [
                ["measure", "value", "target"],
                ["sustained p99 ms, load alone", ms(phases[0].wrk.p99), ""],
                ["sustained p99 ms, report running", ms(phases[1].wrk.p99), ""],
                ["sustained largest WAL MiB, load alone", mib(phases[0].largestWAL), ""],
                ["sustained WAL MiB 15 s after the report", mib(walAfter15), ""],
                ["sustained requests unanswered", String(unanswered), ""],
                ["sustained acknowledged events not stored", String(max(0, acknowledged - stored)), ""],
            ])
        print(
            "report took \(String(format: "%.1f", reportSeconds)) s; the WAL was back within \(mib(walBound)) MiB "
                + (backAt.map { String(format: "%.1f s", $0) } ?? "never (within the 15 s phase)")
                + " after it ended; \(stored) events stored by the phases, \(acknowledged) acknowledged "
                + "(a request cut by wrk's stop may be stored unacknowledged).")
    }

    /// The first and last stored day (UTC), `YYYY-MM-DD`.
    static func days(_ db: String) throws -> (String, String) {
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        let low = try connection.scalar("SELECT min(occurred_at) FROM events")?.int64 ?? 0
        let high = try connection.scalar("SELECT max(occurred_at) FROM events")?.int64 ?? 0
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        func day(_ ms: Int64) -> String { formatter.string(from: Date(timeIntervalSince1970: Double(ms) / 1000)) }
        return (day(low), day(high))
    }
}
