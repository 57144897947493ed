import Foundation
import PaywallCore
import PaywallGzip
import PaywallSQLite
import PaywallStore
import PaywallUploader
import RevenueCatForwarder

/// `paywall-bench upload [--events 200000]`: the uploader drains a device store of `--events` stored
/// events into `paywall-analytics serve` on 127.0.0.1 (a fresh central store each run), plain NDJSON
/// then gzip, with the library's `Uploader` and `URLSessionTransport` as an app runs them. Printed:
/// events/s, requests/s and bytes sent; beside them, in the same run, `import` of the same events from
/// an NDJSON file into a fresh store (the central store's own write cost, the ceiling of any upload).
/// Target: ≥ 50,000 events/s (gzip, the default).
enum UploadBench {
    struct Run {
        var seconds: Double
        var report: DeliveryReport
        var stored: Int
    }

    static func run(_ arguments: [String]) async throws {
        let count = BenchSupport.eventCount(arguments, default: 200_000)
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("paywall-analytics").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            fatalError(
                "build paywall-analytics next to paywall-bench first: swift build -c release --product paywall-analytics"
            )
        }
        let events = BenchSupport.events(count)
        let prepared = directory.appendingPathComponent("device.sqlite")
        let store = try EventStore(path: prepared.path, now: .system)
        for start in stride(from: 0, to: events.count, by: 10_000) {
            try store.insert(Array(events[start..<min(start + 10_000, events.count)]))
        }
        try store.connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")

        let clientPlain = try await clientOnly(
            directory: directory, prepared: prepared, name: "client-plain", gzip: false)
        let clientGzip = try await clientOnly(directory: directory, prepared: prepared, name: "client-gzip", gzip: true)
        let plain = try await upload(
            binary: binary, directory: directory, prepared: prepared, name: "plain", gzip: false)
        let gzip = try await upload(binary: binary, directory: directory, prepared: prepared, name: "gzip", gzip: true)
        let importRate = try CollectorBench.importBaseline(binary: binary, directory: directory, events: count)

        func rate(_ run: Run) -> String { String(format: "%.0f", Double(run.stored) / run.seconds) }
        func row(_ label: String, _ run: Run) -> [String] {
            [
                label, rate(run), String(format: "%.0f", Double(run.report.requests) / run.seconds),
                String(run.report.bytesSent),
                String(format: "%.1f", Double(run.report.bytesSent) / Double(max(1, run.stored))),
                String(run.stored), String(format: "%.2f", Double(run.stored) / run.seconds / importRate),
            ]
        }
        BenchSupport.printTable(
            "paywall-bench upload — \(count) stored events to a local collector, batches of ≤ 1,000",
            [
                ["run", "events/s", "requests/s", "bytes sent", "bytes/event", "stored centrally", "× import"],
                row("upload, plain NDJSON", plain),
                row("upload, gzip NDJSON", gzip),
                row("the uploader alone, plain (a transport that answers at once)", clientPlain),
                row("the uploader alone, gzip (a transport that answers at once)", clientGzip),
                [
                    "baseline: import of the same \(count) events (NDJSON file, fresh store)",
                    String(format: "%.0f", importRate),
                    "", "", "", "", "1.00",
                ],
            ])
        BenchSupport.printTable(
            "paywall-bench upload — against the targets",
            [
                ["measure", "value", "target"],
                ["upload events/s (gzip)", rate(gzip), ""],
                ["upload events/s (plain)", rate(plain), ""],
            ])
        print(
            "events/s = events stored centrally / seconds from the first request to the last answer; both runs ended "
                + "with every event stored once (checked).")
    }

    /// The uploader's own cost: it drains a copy of the prepared store through a transport that
    /// answers every request at once with counts adding up (no network, no collector).
    static func clientOnly(directory: URL, prepared: URL, name: String, gzip: Bool) async throws -> Run {
        let device = directory.appendingPathComponent("device-\(name).sqlite")
        try FileManager.default.copyItem(at: prepared, to: device)
        let store = try EventStore(path: device.path, now: .system)
        let configuration = UploaderConfiguration(
            endpoint: URL(string: "http://127.0.0.1:9")!,
            writeKey: try CollectorKey("pwk_0123456789abcdef0123456789abcdef"),
            forwarding: .device, maxBatches: 1_000_000, gzip: gzip)
        let uploader = Uploader(
            queue: SQLiteUploadQueue(store: store), transport: CountingTransport(),
            configuration: configuration, now: .system)
        let start = ContinuousClock.now
        guard case .completed(let report) = try await uploader.uploadOnce() else {
            fatalError("the device store was busy")
        }
        let seconds = (ContinuousClock.now - start).seconds
        return Run(seconds: seconds, report: report, stored: report.accepted)
    }

    /// A fresh central store and collector; the uploader drains a copy of the prepared device store into it.
    static func upload(binary: String, directory: URL, prepared: URL, name: String, gzip: Bool) async throws -> Run {
        let device = directory.appendingPathComponent("device-\(name).sqlite")
        try FileManager.default.copyItem(at: prepared, to: device)
        let central = directory.appendingPathComponent("central-\(name).sqlite").path
        let key = try CollectorBench.output(binary, ["keys", "add", "bench", "--db", central]).trimmingCharacters(
            in: .newlines)
        let stderrPath = directory.appendingPathComponent("serve-\(name).stderr").path
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: binary)
        serve.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", central]
        serve.standardError = FileHandle(forWritingAtPath: stderrPath)
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        defer {
            kill(serve.processIdentifier, SIGTERM)
            serve.waitUntilExit()
        }
        var port: Int?
        for _ in 0..<600 where port == nil {
            usleep(50_000)
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
        }
        guard let port else { fatalError("serve did not start") }
        let store = try EventStore(path: device.path, now: .system)
        let configuration = UploaderConfiguration(
            endpoint: URL(string: "http://127.0.0.1:\(port)")!, writeKey: try CollectorKey(key),
            forwarding: .device, maxBatches: 1_000_000, gzip: gzip)
        let uploader = Uploader(
            queue: SQLiteUploadQueue(store: store), transport: URLSessionTransport(timeout: .seconds(30)),
            configuration: configuration, now: .system)
        let start = ContinuousClock.now
        guard case .completed(let report) = try await uploader.uploadOnce() else {
            fatalError("the device store was busy")
        }
        let seconds = (ContinuousClock.now - start).seconds
        guard report.stop == .nothingDue else { fatalError("upload stopped early: \(report.uploadDescription)") }
        let stored = try EventStore(path: central, now: .system).stats().totalEvents
        let expected = try store.stats().totalEvents
        guard stored == expected, report.accepted == expected else {
            fatalError("the central store holds \(stored) events, the device \(expected), accepted \(report.accepted)")
        }
        return Run(seconds: seconds, report: report, stored: stored)
    }
}

/// Answers every upload at once with `accepted` = the request's lines (gunzipped when it says so).
struct CountingTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var body = Array(request.body)
        if request.header("Content-Encoding") == "gzip" { body = (try? Gzip.inflate(body, limit: 64 << 20)) ?? [] }
        let lines = body.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        return HTTPResponse(status: 200, body: Data("{\"accepted\":\(lines),\"duplicates\":0,\"quarantined\":0}".utf8))
    }
}
