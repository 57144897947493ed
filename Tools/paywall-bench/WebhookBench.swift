import Foundation
import PaywallCollector
import PaywallSQLite
import PaywallStore

/// `paywall-bench webhook [--seconds 10] [--connections 8]`: RevenueCat webhook ingest. wrk with 8
/// connections posts one fresh webhook body per request to `POST /v1/revenuecat/webhooks` of a
/// fresh `serve`, then, in the same run and on another fresh store, one fresh event per request to
/// `POST /v1/events`; prints both rates and their ratio. Both go through the collector's group
/// commit, so the ratio shows what extracting and storing a subscription event costs against a
/// paywall event, request for request.
enum WebhookBench {
    static func run(_ arguments: [String]) throws {
        let seconds = Int(CollectorBench.value(arguments, "--seconds") ?? "10") ?? 10
        let connections = Int(CollectorBench.value(arguments, "--connections") ?? "8") ?? 8
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
        let webhooks = try serveRun(
            binary: binary, directory: directory, name: "webhooks", path: Collector.webhookPath, seconds: seconds,
            connections: connections, threads: threads,
            script: { _, secret in script(authorization: secret, path: Collector.webhookPath, body: webhookBody) },
            stored: "SELECT count(*) FROM subscription_events")
        let events = try serveRun(
            binary: binary, directory: directory, name: "events", path: "/v1/events", seconds: seconds,
            connections: connections, threads: threads,
            script: { key, _ in script(authorization: "Bearer \(key)", path: "/v1/events", body: eventBody) },
            stored: "SELECT count(*) FROM events")
        func ms(_ value: Double) -> String { String(format: "%.1f", value * 1000) }
        func rate(_ run: Run) -> Double { Double(run.stored) / run.wrk.seconds }
        BenchSupport.printTable(
            "paywall-bench webhook — wrk -t\(threads) -c\(connections) -d\(seconds)s, one event per request",
            [
                ["run", "stored/s", "requests/s", "p50 ms", "p99 ms", "peak RSS MB", "non-2xx"],
                row("webhooks (POST \(Collector.webhookPath))", webhooks),
                row("events (POST /v1/events, one per request)", events),
            ])
        BenchSupport.printTable(
            "paywall-bench webhook — ratio",
            [
                ["measure", "value", "target"],
                ["webhook requests/s / events requests/s", String(format: "%.2f", rate(webhooks) / rate(events)), ""],
            ])
        print("stored/s = rows newly stored / wrk's duration (every request carries a fresh id).")

        func row(_ label: String, _ run: Run) -> [String] {
            [
                label, String(format: "%.0f", rate(run)),
                String(format: "%.0f", Double(run.wrk.requests) / run.wrk.seconds), ms(run.wrk.p50), ms(run.wrk.p99),
                String(run.peakRSS / 1_048_576), String(run.wrk.non2xx + run.wrk.errors),
            ]
        }
    }

    struct Run {
        var wrk: CollectorBench.WrkResult
        var stored: Int
        var peakRSS: Int
    }

    /// A fresh store with a write key and a webhook secret, a collector serving it loaded by wrk
    /// with `script`, and the rows `stored` counts afterwards.
    static func serveRun(
        binary: String, directory: URL, name: String, path: String, seconds: Int, connections: Int, threads: Int,
        script: (_ key: String, _ secret: String) -> String, stored: String
    ) throws -> Run {
        let db = directory.appendingPathComponent("\(name).sqlite").path
        let key = try CollectorBench.output(binary, ["keys", "add", "bench", "--db", db])
            .trimmingCharacters(in: .newlines)
        let secret = try CollectorBench.output(binary, ["keys", "add", "revenuecat", "--webhook", "--db", db])
            .trimmingCharacters(in: .newlines)
        let stderrPath = directory.appendingPathComponent("\(name).stderr").path
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
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
        let scriptPath = directory.appendingPathComponent("\(name).lua").path
        try script(key, secret).write(toFile: scriptPath, atomically: true, encoding: .utf8)
        let wrk = try CollectorBench.runWrk(
            url: "http://127.0.0.1:\(port)\(path)", script: scriptPath, seconds: seconds, connections: connections,
            threads: threads)
        let peak = CollectorBench.peakRSS(pid: serve.processIdentifier)
        kill(serve.processIdentifier, SIGTERM)
        serve.waitUntilExit()
        let connection = try Connection(path: db, options: OpenOptions(readOnly: true, create: false))
        return Run(wrk: wrk, stored: Int(try connection.scalar(stored)?.int64 ?? 0), peakRSS: peak)
    }

    /// A wrk script posting `body(id)` (Lua building one body around a fresh id) to `path`.
    static func script(authorization: String, path: String, body: String) -> String {
        """
        wrk.method = "POST"
        wrk.path = "\(path)"
        wrk.headers["Content-Type"] = "\(path == "/v1/events" ? "application/x-ndjson" : "application/json")"
        wrk.headers["Authorization"] = "\(authorization)"
        wrk.headers["X-Paywall-Forwarding"] = "device"
        local count = 0
        function setup(thread)
          thread:set("tid", count)
          count = count + 1
        end
        local counter = 0
        local base = 0
        function init(args)
          base = os.time() * 1000
        end
        local function uuid(ms, n)
          return string.format("%08x-%04x-7%03x-8000-%012x", math.floor(ms / 65536), ms % 65536, tid, n)
        end
        function request()
          counter = counter + 1
          local ms = base + counter
          local id = uuid(ms, counter)
          local user = "bench-user-" .. tid .. "-" .. (counter % 5000)
          return wrk.format(nil, nil, nil, \(body))
        end
        function done(summary, latency, requests)
          local e = summary.errors
          io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d non2xx=%d\\n",
            summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
            e.connect + e.read + e.write + e.timeout, e.status))
        end
        """
    }

    /// A RENEWAL webhook as RevenueCat sends one (its documented fields), around `id`, `user`, `ms`.
    static let webhookBody = """
        '{"api_version":"1.0","event":{"id":"' .. id .. '","type":"RENEWAL","app_id":"app_bench",'
            .. '"event_timestamp_ms":' .. ms .. ',"app_user_id":"' .. user .. '","original_app_user_id":"' .. user .. '",'
            .. '"aliases":["$RCAnonymousID:' .. id .. '"],"product_id":"pro.monthly","period_type":"NORMAL",'
            .. '"purchased_at_ms":' .. ms .. ',"expiration_at_ms":' .. (ms + 2592000000) .. ',"environment":"PRODUCTION",'
            .. '"entitlement_ids":["pro"],"presented_offering_id":"default","transaction_id":"t' .. id .. '",'
            .. '"original_transaction_id":"o' .. user .. '","is_family_share":false,"country_code":"US",'
            .. '"currency":"USD","price":9.99,"price_in_purchased_currency":9.99,"store":"APP_STORE",'
            .. '"is_trial_conversion":false,"tax_percentage":0.0,"commission_percentage":0.15,"takehome_percentage":0.85,'
            .. '"offer_code":null,"renewal_number":2,"experiments":[]}}'
        """

    /// One paywall event line around `id`, `user`, `ms`.
    static let eventBody = """
        '{"id":"' .. id .. '","name":"paywall_shown","occurred_at":' .. ms .. ',"user_id":"' .. user
            .. '","catalog_version":1,"pw_id":"' .. id .. '","source":"onboarding"}\\n'
        """
}
