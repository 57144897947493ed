import Foundation
import PaywallCollector
import PaywallGzip
import PaywallTestSupport
import Testing

/// `GET /metrics` read back by a real Prometheus text parser (prometheus-client's
/// `text_string_to_metric_families`), with counts equal to what was sent.
@Suite(.serialized)
struct CollectorMetricsTests {
    static let parser = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        out = []
        for family in text_string_to_metric_families(sys.stdin.read()):
            for sample in family.samples:
                out.append({"family": family.name, "type": family.type, "name": sample.name,
                            "labels": sample.labels, "value": sample.value})
        print(json.dumps(out))
        """

    struct Sample: Decodable {
        var family: String
        var type: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    func parse(_ text: String, folder: TemporaryDirectory) throws -> [Sample] {
        let script = folder.path("parse_metrics.py")
        try Self.parser.write(toFile: script, atomically: true, encoding: .utf8)
        let result = try Python.runner().runBlocking([script], stdin: Data(text.utf8))
        try #require(
            result.status == 0,
            "prometheus-client could not parse the metrics (\(Python.installAdvice)): \(result.stderr)")
        return try JSONDecoder().decode([Sample].self, from: Data(result.stdout.utf8))
    }

    func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { $0.name == name && $0.labels == labels }?.value
    }

    @Test func countsEqualWhatWasSent() throws {
        let harness = try CollectorHarness()
        let second = try harness.cli.runBlocking(["keys", "add", "android-app", "--db", harness.db]).stdout
            .trimmingCharacters(in: .newlines)
        var bytes = 0
        var accepted = 0
        for round in 0..<7 {
            let batch = EventLines.batch(pairs: 5)
            let body = EventLines.body(
                batch.lines + (round == 0 ? ["{\"bad\":1}"] : []) + (round == 1 ? [batch.lines[0]] : []))
            bytes += body.count
            #expect(try harness.post(body).status == 200)
            accepted += 10
        }
        let android = EventLines.body(EventLines.batch(pairs: 2).lines)
        let gzipped = PaywallCollectorGzip.size(of: android)
        bytes += gzipped
        #expect(try harness.post(android, key: second, gzip: true).status == 200)
        // Refused on its headers: its body is never read, so never counted as received.
        #expect(try harness.post(android, key: "pwk_wrong").status == 401)
        #expect(try harness.get("/nowhere").status == 404)
        #expect(try harness.get("/healthz").status == 200)
        let text = try harness.get("/metrics").text
        let samples = try parse(text, folder: harness.folder)
        #expect(value(samples, "paywall_collector_requests_total", ["route": "/v1/events", "status": "200"]) == 8)
        #expect(value(samples, "paywall_collector_requests_total", ["route": "/v1/events", "status": "401"]) == 1)
        #expect(value(samples, "paywall_collector_requests_total", ["route": "other", "status": "404"]) == 1)
        #expect(value(samples, "paywall_collector_requests_total", ["route": "/healthz", "status": "200"]) == 1)
        #expect(
            value(samples, "paywall_collector_events_total", ["key": "ios-app", "outcome": "accepted"])
                == Double(accepted))
        #expect(value(samples, "paywall_collector_events_total", ["key": "ios-app", "outcome": "duplicate"]) == 1)
        #expect(value(samples, "paywall_collector_events_total", ["key": "ios-app", "outcome": "quarantined"]) == 1)
        #expect(value(samples, "paywall_collector_events_total", ["key": "android-app", "outcome": "accepted"]) == 4)
        #expect(value(samples, "paywall_collector_received_bytes_total") == Double(bytes))
        let commits = try #require(value(samples, "paywall_collector_commit_duration_seconds_count"))
        #expect(commits >= 1 && commits <= 10)
        #expect(value(samples, "paywall_collector_commit_duration_seconds_bucket", ["le": "+Inf"]) == commits)
        #expect(samples.first { $0.name == "paywall_collector_commit_duration_seconds_count" }?.type == "histogram")
        #expect(value(samples, "paywall_collector_queue_depth") == 0)
        #expect((value(samples, "paywall_collector_open_connections") ?? 0) >= 1)
        #expect(!text.contains(harness.key) && !text.contains(second) && !text.contains("user-"))
    }
}

/// The gzip size of a body as the harness sends it.
enum PaywallCollectorGzip {
    static func size(of body: [UInt8]) -> Int { Gzip.deflate(body).count }
}
