import Foundation
import PaywallLock
import PaywallWire

/// The collector's counters, rendered for `GET /metrics` in the Prometheus text exposition format
/// (version 0.0.4). Labels hold only routes from a fixed list, status codes and key NAMES — never a
/// key, a user id, a path a client made up, or any payload.
public final class CollectorMetrics: Sendable {
    /// Routes as labelled: the known ones, anything else as `other`.
    public static let routes = [CollectorWire.path, Collector.webhookPath, "/healthz", "/metrics"]

    /// What `paywall_collector_webhooks_total` counts, by `outcome`.
    public enum WebhookCount: String, Sendable, CaseIterable {
        /// Requests that reached the webhook route (any answer).
        case received
        /// Events stored for the first time.
        case stored
        /// Repeated deliveries (stored once).
        case duplicate
        /// Bodies that can never be events, kept with their reasons.
        case quarantined
        /// Events of forgotten customers, refused.
        case suppressed
        /// Requests refused 401 (no or wrong secret, or a write key).
        case unauthorized

        /// The count for what became of a stored body.
        public init(_ outcome: WebhookOutcome) {
            switch outcome {
            case .stored: self = .stored
            case .duplicate: self = .duplicate
            case .quarantined: self = .quarantined
            case .suppressed: self = .suppressed
            }
        }
    }
    /// Upper bounds (seconds) of the commit latency histogram's buckets.
    public static let commitBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

    private struct KeyCounts {
        var accepted = 0
        var duplicates = 0
        /// Events of forgotten customers, refused (shown only once non-zero).
        var suppressed = 0
        var quarantined = 0
    }

    private struct State {
        var requests: [String: [Int: Int]] = [:]
        var events: [String: KeyCounts] = [:]
        var bytesReceived = 0
        var commitBucketCounts = [Int](repeating: 0, count: CollectorMetrics.commitBuckets.count)
        var commitCount = 0
        var commitSum = 0.0
        var commitFailures = 0
        var rateLimited: [String: Int] = [:]
        var quarantineBudgetRefused: [String: Int] = [:]
        var webhooks: [WebhookCount: Int] = [:]
    }

    private let state = Lock(State())

    /// Creates empty metrics.
    public init() {}

    /// The label for a request path.
    public static func route(_ path: String) -> String { routes.contains(path) ? path : "other" }

    /// Counts one answered request.
    func request(route: String, status: Int) {
        state.withLock { $0.requests[route, default: [:]][status, default: 0] += 1 }
    }

    /// Counts body bytes as received (before any gunzip).
    func received(bytes: Int) {
        state.withLock { $0.bytesReceived += bytes }
    }

    /// Counts a committed request's outcome under its key's name.
    func events(key: String, accepted: Int, duplicates: Int, quarantined: Int, suppressed: Int = 0) {
        state.withLock { state in
            state.events[key, default: KeyCounts()].suppressed += suppressed
            state.events[key, default: KeyCounts()].accepted += accepted
            state.events[key, default: KeyCounts()].duplicates += duplicates
            state.events[key, default: KeyCounts()].quarantined += quarantined
        }
    }

    /// Counts one webhook request's step or outcome.
    func webhook(_ count: WebhookCount) {
        state.withLock { $0.webhooks[count, default: 0] += 1 }
    }

    /// Counts one request refused (429) because its key passed `--key-rate`.
    func rateLimited(key: String) {
        state.withLock { $0.rateLimited[key, default: 0] += 1 }
    }

    func quarantineBudgetRefused(key: String) {
        state.withLock { $0.quarantineBudgetRefused[key, default: 0] += 1 }
    }

    /// Records one group commit's duration and whether it succeeded.
    func commit(seconds: Double, succeeded: Bool) {
        state.withLock { state in
            state.commitCount += 1
            state.commitSum += seconds
            if !succeeded { state.commitFailures += 1 }
            if let bucket = Self.commitBuckets.firstIndex(where: { seconds <= $0 }) {
                state.commitBucketCounts[bucket] += 1
            }
        }
    }

    /// The exposition text; `queueDepth` and `openConnections` are read by the caller at the time.
    func render(queueDepth: Int, openConnections: Int, probes: (succeeded: Int, failed: Int)) -> String {
        let state = state.withLock { $0 }
        var out = "# HELP paywall_collector_requests_total HTTP requests answered, by route and status code.\n"
        out += "# TYPE paywall_collector_requests_total counter\n"
        for route in state.requests.keys.sorted() {
            for (status, count) in state.requests[route, default: [:]].sorted(by: { $0.key < $1.key }) {
                out += "paywall_collector_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)\n"
            }
        }
        out += "# HELP paywall_collector_events_total Events of committed requests, by write key name and outcome.\n"
        out += "# TYPE paywall_collector_events_total counter\n"
        for key in state.events.keys.sorted() {
            let counts = state.events[key, default: KeyCounts()]
            for (outcome, count) in [
                ("accepted", counts.accepted), ("duplicate", counts.duplicates),
                ("quarantined", counts.quarantined),
            ] + (counts.suppressed > 0 ? [("suppressed", counts.suppressed)] : []) {
                out += "paywall_collector_events_total{key=\"\(key)\",outcome=\"\(outcome)\"} \(count)\n"
            }
        }
        out += "# HELP paywall_collector_webhooks_total RevenueCat webhook requests, by outcome.\n"
        out += "# TYPE paywall_collector_webhooks_total counter\n"
        for count in WebhookCount.allCases {
            out +=
                "paywall_collector_webhooks_total{outcome=\"\(count.rawValue)\"} \(state.webhooks[count, default: 0])\n"
        }
        out +=
            "# HELP paywall_collector_rate_limited_total Requests refused with 429 (--key-rate), by write key name.\n"
        out += "# TYPE paywall_collector_rate_limited_total counter\n"
        for key in state.rateLimited.keys.sorted() {
            out += "paywall_collector_rate_limited_total{key=\"\(key)\"} \(state.rateLimited[key, default: 0])\n"
        }
        out +=
            "# HELP paywall_collector_quarantine_budget_refused_total Requests refused with 429 because their "
            + "refused lines passed the key's quarantine budget (--key-quarantine-bytes), by write key name.\n"
        out += "# TYPE paywall_collector_quarantine_budget_refused_total counter\n"
        for key in state.quarantineBudgetRefused.keys.sorted() {
            out +=
                "paywall_collector_quarantine_budget_refused_total{key=\"\(key)\"} "
                + "\(state.quarantineBudgetRefused[key, default: 0])\n"
        }
        out += "# HELP paywall_collector_received_bytes_total Request body bytes received, as sent (before gunzip).\n"
        out += "# TYPE paywall_collector_received_bytes_total counter\n"
        out += "paywall_collector_received_bytes_total \(state.bytesReceived)\n"
        out +=
            "# HELP paywall_collector_commit_duration_seconds Time of each group commit (one transaction and sync).\n"
        out += "# TYPE paywall_collector_commit_duration_seconds histogram\n"
        var cumulative = 0
        for (index, bound) in Self.commitBuckets.enumerated() {
            cumulative += state.commitBucketCounts[index]
            out += "paywall_collector_commit_duration_seconds_bucket{le=\"\(bound)\"} \(cumulative)\n"
        }
        out += "paywall_collector_commit_duration_seconds_bucket{le=\"+Inf\"} \(state.commitCount)\n"
        out += "paywall_collector_commit_duration_seconds_sum \(state.commitSum)\n"
        out += "paywall_collector_commit_duration_seconds_count \(state.commitCount)\n"
        out += "# HELP paywall_collector_commit_failures_total Group commits the store refused (answered 503).\n"
        out += "# TYPE paywall_collector_commit_failures_total counter\n"
        out += "paywall_collector_commit_failures_total \(state.commitFailures)\n"
        out += "# HELP paywall_collector_health_probes_total Writes the collector made to check its store, by result.\n"
        out += "# TYPE paywall_collector_health_probes_total counter\n"
        out += "paywall_collector_health_probes_total{result=\"ok\"} \(probes.succeeded)\n"
        out += "paywall_collector_health_probes_total{result=\"failed\"} \(probes.failed)\n"
        out += "# HELP paywall_collector_queue_depth Requests waiting for the commit writer.\n"
        out += "# TYPE paywall_collector_queue_depth gauge\n"
        out += "paywall_collector_queue_depth \(queueDepth)\n"
        out += "# HELP paywall_collector_open_connections Client connections open now.\n"
        out += "# TYPE paywall_collector_open_connections gauge\n"
        out += "paywall_collector_open_connections \(openConnections)\n"
        return out
    }
}
