import Foundation
import PaywallCollector
import PaywallCore
import PaywallGzip
import PaywallLock
import PaywallStore
import PaywallTestSupport

/// `paywall-bench collector [--seconds 30] [--connections 64]`: wrk posting NDJSON batches of 100
/// fresh events to `paywall-analytics serve` (plain, then gzip), beside two baselines measured in the
/// same run: `import` of as many events from an NDJSON file into a fresh store, and nginx answering
/// the same POSTs with 204. Targets: events/s ≥ 0.5× import's, p99 ≤ 50 ms, peak RSS ≤ 150 MB.
enum CollectorBench {
    struct WrkResult {
        var requests = 0
        var seconds = 0.0
        var p50 = 0.0
        var p99 = 0.0
        var errors = 0
        var non2xx = 0
    }

    static func run(_ arguments: [String]) throws {
        let seconds = Int(value(arguments, "--seconds") ?? "30") ?? 30
        let connections = Int(value(arguments, "--connections") ?? "64") ?? 64
        let threads = 2
        let directory = try BenchSupport.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("paywall-analytics").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            fatalError(
                "build paywall-analytics next to paywall-bench first: swift build -c release --product paywall-analytics"
            )
        }

        let plain = try collectorRun(
            binary: binary, directory: directory, name: "plain", seconds: seconds,
            connections: connections, threads: threads
        ) { key in
            CollectorBenchScripts.plain(key: key)
        }
        if value(arguments, "--only") == "sustained" {
            try CollectorLoadBench.run(binary: binary, directory: directory, arguments: arguments)
            return
        }
        if value(arguments, "--only") == "plain" {
            // A quick look at the plain run alone (no baselines): events/s, requests/s, p50, p99.
            print(
                String(
                    format: "plain: %.0f events/s, %.0f requests/s, p50 %.1f ms, p99 %.1f ms, non-2xx %d",
                    Double(plain.stored) / plain.wrk.seconds, Double(plain.wrk.requests) / plain.wrk.seconds,
                    plain.wrk.p50 * 1000, plain.wrk.p99 * 1000, plain.wrk.non2xx + plain.wrk.errors))
            return
        }
        let bodiesPath = directory.appendingPathComponent("gzip-bodies").path
        let bodyCount = max(2_000, min(40_000, plain.wrk.requests * 5 / 2))
        try writeGzipBodies(count: bodyCount, to: bodiesPath)
        let gzip = try collectorRun(
            binary: binary, directory: directory, name: "gzip", seconds: seconds,
            connections: connections, threads: threads
        ) { key in
            CollectorBenchScripts.gzip(key: key, bodies: bodiesPath, threads: threads)
        }
        let importRate = try importBaseline(binary: binary, directory: directory, events: max(100_000, plain.stored))
        let nginx = try nginxBaseline(
            directory: directory, seconds: seconds, connections: connections, threads: threads)

        func ms(_ value: Double) -> String { String(format: "%.1f", value * 1000) }
        let plainRate = Double(plain.stored) / plain.wrk.seconds
        let gzipRate = Double(gzip.stored) / gzip.wrk.seconds
        BenchSupport.printTable(
            "paywall-bench collector — wrk -t\(threads) -c\(connections) -d\(seconds)s, batches of 100 events",
            [
                ["run", "events/s", "requests/s", "p50 ms", "p99 ms", "peak RSS MB", "non-2xx", "× import"],
                [
                    "collector, plain NDJSON", String(format: "%.0f", plainRate),
                    String(format: "%.0f", Double(plain.wrk.requests) / plain.wrk.seconds),
                    ms(plain.wrk.p50), ms(plain.wrk.p99), String(plain.peakRSS / 1_048_576),
                    String(plain.wrk.non2xx + plain.wrk.errors),
                    String(format: "%.2f", plainRate / importRate),
                ],
                [
                    "collector, gzip NDJSON", String(format: "%.0f", gzipRate),
                    String(format: "%.0f", Double(gzip.wrk.requests) / gzip.wrk.seconds),
                    ms(gzip.wrk.p50), ms(gzip.wrk.p99), String(gzip.peakRSS / 1_048_576),
                    String(gzip.wrk.non2xx + gzip.wrk.errors),
                    String(format: "%.2f", gzipRate / importRate),
                ],
                [
                    "baseline: import of \(max(100_000, plain.stored)) events (NDJSON file, fresh store)",
                    String(format: "%.0f", importRate),
                    "", "", "", "", "", "1.00",
                ],
                [
                    "baseline: nginx answering 204, storing nothing",
                    String(format: "%.0f", Double(nginx.requests) * 100 / nginx.seconds),
                    String(format: "%.0f", Double(nginx.requests) / nginx.seconds), ms(nginx.p50), ms(nginx.p99), "",
                    String(nginx.non2xx + nginx.errors), "",
                ],
            ])
        BenchSupport.printTable(
            "paywall-bench collector — against the targets",
            [
                ["measure", "value", "target"],
                ["collector events/s / import (plain)", String(format: "%.2f", plainRate / importRate), ""],
                ["collector events/s / import (gzip)", String(format: "%.2f", gzipRate / importRate), ""],
                ["collector p99 ms (plain)", ms(plain.wrk.p99), ""],
                ["collector p99 ms (gzip)", ms(gzip.wrk.p99), ""],
                ["collector peak RSS MB", String(max(plain.peakRSS, gzip.peakRSS) / 1_048_576), ""],
            ])
        try CollectorLoadBench.run(binary: binary, directory: directory, arguments: arguments)
        print(
            "gzip run: \(bodyCount) prepared bodies (each sent once while they last; a resent body is all duplicates, "
                + "so events/s counts only events newly stored). events/s = events stored / wrk's duration.")
    }

    static func value(_ arguments: [String], _ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    struct CollectorRun {
        var wrk: WrkResult
        var stored: Int
        var peakRSS: Int
    }

    /// A fresh store and collector, loaded by wrk with `script`; counts what was stored.
    static func collectorRun(
        binary: String, directory: URL, name: String, seconds: Int, connections: Int, threads: Int,
        script: (String) -> String
    ) throws -> CollectorRun {
        let db = directory.appendingPathComponent("\(name).sqlite").path
        let key = try output(binary, ["keys", "add", "bench", "--db", db]).trimmingCharacters(in: .newlines)
        let stderrPath = directory.appendingPathComponent("\(name).stderr").path
        let (serve, port) = try startServe(binary: binary, db: db, stderrPath: stderrPath)
        let scriptPath = directory.appendingPathComponent("\(name).lua").path
        try script(key).write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let wrk = try runWrk(
            url: "http://127.0.0.1:\(port)/v1/events", script: scriptPath, seconds: seconds,
            connections: connections, threads: threads)
        let peak = peakRSS(pid: serve.processIdentifier)
        kill(serve.processIdentifier, SIGTERM)
        serve.waitUntilExit()
        let store = try EventStore(path: db, now: .system)
        let stored = try store.stats().totalEvents
        return CollectorRun(wrk: wrk, stored: stored, peakRSS: peak)
    }

    /// Starts `serve` on a free port of 127.0.0.1 with its stderr in `stderrPath`; returns it and the port.
    static func startServe(binary: String, db: String, stderrPath: String) throws -> (Process, Int) {
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let serve = Process()
        serve.executableURL = URL(fileURLWithPath: binary)
        serve.arguments = ["serve", "--listen", "127.0.0.1:0", "--db", db]
        serve.standardError = FileHandle(forWritingAtPath: stderrPath)
        serve.standardOutput = FileHandle.nullDevice
        try serve.run()
        var port: Int?
        for _ in 0..<600 where port == nil {
            usleep(50_000)
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: "listening on http://127.0.0.1:") {
                port = Int(text[range.upperBound...].prefix { $0.isNumber })
            }
        }
        guard let port else {
            serve.terminate()
            fatalError("serve did not start")
        }
        return (serve, port)
    }

    /// wrk for as long as `body` runs (wrk stops on SIGINT and prints its summary then).
    static func runWrkUntil(
        url: String, script: String, connections: Int, threads: Int, while body: () throws -> Void
    ) throws -> WrkResult {
        // A child inherits this process's blocked signals (SIGINT among them): python3 unblocks them
        // and execs wrk, so that wrk's SIGINT handler runs.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c",
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])",
            "/usr/bin/wrk", "-t\(threads)", "-c\(connections)", "-d3600s", "--timeout", "10s", "-s", script, url,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let collected = Lock(Data())
        let reader = Thread {
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            collected.withLock { $0 = data }
        }
        reader.start()
        try body()
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        while collected.withLock({ $0.isEmpty }) { usleep(10_000) }
        return try parseWrk(String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }

    static func runWrk(url: String, script: String, seconds: Int, connections: Int, threads: Int) throws -> WrkResult {
        let text = try output(
            "/usr/bin/wrk",
            ["-t\(threads)", "-c\(connections)", "-d\(seconds)s", "--timeout", "10s", "-s", script, url])
        return try parseWrk(text)
    }

    /// wrk's `RESULT` line (printed by the scripts' `done`).
    static func parseWrk(_ text: String) throws -> WrkResult {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("RESULT ") }) else {
            fatalError("wrk printed no result:\n\(text)")
        }
        var fields: [String: Double] = [:]
        for pair in line.dropFirst(7).split(separator: " ") {
            let parts = pair.split(separator: "=")
            fields[String(parts[0])] = Double(parts[1]) ?? 0
        }
        return WrkResult(
            requests: Int(fields["requests"] ?? 0), seconds: (fields["duration_us"] ?? 1) / 1e6,
            p50: (fields["p50_us"] ?? 0) / 1e6, p99: (fields["p99_us"] ?? 0) / 1e6,
            errors: Int(fields["errors"] ?? 0), non2xx: Int(fields["non2xx"] ?? 0))
    }

    /// `VmHWM` of a running process, in bytes.
    static func peakRSS(pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    static func writeGzipBodies(count: Int, to path: String) throws {
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var counter = 0
        let base = Int64(Date().timeIntervalSince1970 * 1000)
        var chunk = Data()
        for _ in 0..<count {
            var body = ""
            for _ in 0..<50 {
                counter += 1
                let ms = base + Int64(counter / 10)
                let pw = uuid(ms, kind: 2, counter)
                let user = "bench-user-\(counter % 5000)"
                body +=
                    "{\"id\":\"\(uuid(ms, kind: 0, counter))\",\"name\":\"paywall_shown\",\"occurred_at\":\(ms),\"user_id\":\"\(user)\","
                    + "\"catalog_version\":1,\"pw_id\":\"\(pw)\",\"source\":\"onboarding\"}\n"
                body +=
                    "{\"id\":\"\(uuid(ms, kind: 1, counter))\",\"name\":\"paywall_closed\",\"occurred_at\":\(ms + 4000),"
                    + "\"user_id\":\"\(user)\",\"catalog_version\":1,\"pw_id\":\"\(pw)\",\"source\":\"onboarding\","
                    + "\"result\":\"dismissed\",\"via\":\"close_button\",\"open_s\":4}\n"
            }
            let compressed = Gzip.deflate(Array(body.utf8), level: 1)
            chunk.append(contentsOf: Array("\(compressed.count)\n".utf8))
            chunk.append(contentsOf: compressed)
            if chunk.count > 8 << 20 {
                try handle.write(contentsOf: chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: chunk)
    }

    static func uuid(_ ms: Int64, kind: Int, _ counter: Int) -> String {
        func hex(_ value: Int64, _ width: Int) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return
            "\(hex(ms / 65_536, 8))-\(hex(ms % 65_536, 4))-7\(hex(999, 3))-8\(hex(Int64(kind), 3))-\(hex(Int64(counter), 12))"
    }

    /// `paywall-analytics import` of `events` fresh events from an NDJSON file into a fresh store.
    static func importBaseline(binary: String, directory: URL, events: Int) throws -> Double {
        let file = directory.appendingPathComponent("import.ndjson")
        var data = Data()
        for line in BenchSupport.events(events).map(NDJSONLine.encode) {
            data.append(contentsOf: line.utf8)
            data.append(0x0A)
        }
        try data.write(to: file)
        let db = directory.appendingPathComponent("import.sqlite").path
        let seconds = try BenchSupport.seconds { _ = try output(binary, ["import", file.path, "--db", db, "--quiet"]) }
        return Double(events) / seconds
    }

    static func nginxBaseline(directory: URL, seconds: Int, connections: Int, threads: Int) throws -> WrkResult {
        let prefix = directory.appendingPathComponent("nginx").path
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        let probe = try ListenSocket.bind(host: "127.0.0.1", port: 0)
        let port = probe.port
        close(probe.descriptor)
        try NginxConfig.noContent(port: port, prefix: prefix).write(
            toFile: prefix + "/nginx.conf", atomically: true, encoding: .utf8)
        let nginx = Process()
        nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        nginx.arguments = [
            "-p", prefix, "-c", prefix + "/nginx.conf", "-e", prefix + "/nginx-error.log", "-g", "daemon off;",
        ]
        try nginx.run()
        defer {
            kill(nginx.processIdentifier, SIGQUIT)
            nginx.waitUntilExit()
        }
        usleep(500_000)
        let script = directory.appendingPathComponent("nginx.lua").path
        try CollectorBenchScripts.plain(key: "none").write(toFile: script, atomically: true, encoding: .utf8)
        return try runWrk(
            url: "http://127.0.0.1:\(port)/v1/events", script: script, seconds: seconds,
            connections: connections, threads: threads)
    }

    /// Runs a tool and returns its standard output; fails the benchmark when it fails.
    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            fatalError("\(tool) \(arguments.prefix(2)) exited \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
