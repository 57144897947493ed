import Foundation

/// What to do with a batch after one attempt.
public enum RetryDecision: Sendable, Equatable {
    /// RevenueCat accepted the batch: mark delivered.
    case delivered
    /// Keep the batch pending and try again no earlier than `after` from now.
    case retry(after: Duration)
    /// RevenueCat refused the batch: move it to the dead letters with `reason` (the response
    /// excerpt, at most ``RetryPolicy/maxExcerptBytes`` bytes). Never retried automatically.
    case deadLetter(reason: String)
}

/// The delivery retry rules as pure functions, so they can be table-tested: the table below, which
/// RevenueCat's events API and our collector both follow.
///
/// | response | decision |
/// |---|---|
/// | 2xx | delivered |
/// | 429 | retry after `Retry-After` (capped at ``maxRetryAfter``), else backoff |
/// | 5xx, 404, 1xx, 3xx | retry after `Retry-After` if sent (capped), else backoff |
/// | any other 4xx | dead letter with the response excerpt |
/// | transport error (network, timeout, unreadable response) | retry with backoff |
///
/// Backoff is exponential with full jitter: a uniform draw in `0...min(cap, base·2^(attempt-1))`,
/// drawn from the injected ``random`` source so tests are deterministic.
public struct RetryPolicy: Sendable {
    /// The backoff before the second attempt, before jitter.
    public var base: Duration
    /// The longest backoff, before jitter.
    public var cap: Duration
    /// The longest wait a `Retry-After` header can impose (RevenueCat's SDK: one hour).
    public var maxRetryAfter: Duration
    /// Returns a fraction in `0..<1` used for jitter.
    public var random: @Sendable () -> Double

    /// The most bytes of a response body kept as a dead-letter reason.
    public static let maxExcerptBytes = 1024

    /// Creates a policy.
    /// - Parameters:
    ///   - base: backoff after the first failed attempt, before jitter (default 2 s).
    ///   - cap: longest backoff before jitter (default 10 min).
    ///   - maxRetryAfter: cap on `Retry-After` (default 1 h).
    ///   - random: jitter source returning values in `0..<1` (default: the system generator).
    public init(
        base: Duration = .seconds(2),
        cap: Duration = .seconds(600),
        maxRetryAfter: Duration = .seconds(3600),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.base = base
        self.cap = cap
        self.maxRetryAfter = maxRetryAfter
        self.random = random
    }

    /// Decides after an HTTP response.
    /// - Parameters:
    ///   - status: the HTTP status code.
    ///   - retryAfter: the parsed `Retry-After` delay, if the response carried one (see ``retryAfter(header:now:)``).
    ///   - attempt: the number of the attempt that just ended (1 for the first).
    ///   - body: the response body, for the dead-letter excerpt.
    public func decide(status: Int, retryAfter: Duration?, attempt: Int, body: Data = Data()) -> RetryDecision {
        switch status {
        case 200..<300:
            return .delivered
        case 400..<500 where status != 404 && status != 429:
            return .deadLetter(reason: Self.excerpt(status: status, body: body))
        default:
            if let retryAfter { return .retry(after: min(max(retryAfter, .zero), maxRetryAfter)) }
            return .retry(after: backoff(attempt: attempt))
        }
    }

    /// Decides after a failure without a usable response: always a retry with backoff.
    public func decide(transportError: TransportError, attempt: Int) -> RetryDecision {
        .retry(after: backoff(attempt: attempt))
    }

    /// The jittered backoff after attempt `attempt` (1-based).
    public func backoff(attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 40)
        let ceilingSeconds = min(seconds(cap), seconds(base) * pow(2, Double(exponent)))
        let fraction = min(max(random(), 0), 1)
        let millis = (ceilingSeconds * fraction * 1000).rounded(.down)
        return .milliseconds(Int64(millis))
    }

    /// Parses a `Retry-After` value: delay-seconds (`120`) or an HTTP-date
    /// (`Sun, 06 Nov 1994 08:49:37 GMT`, also RFC 850 and asctime forms), relative to `now`
    /// (Unix ms). Returns `nil` for a missing or unparseable value; a date in the past is zero.
    public static func retryAfter(header: String?, now: Int64) -> Duration? {
        guard let raw = header?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if raw.allSatisfy(\.isASCII) && raw.allSatisfy(\.isNumber) {
            guard let seconds = Int64(raw) else { return .seconds(Int64.max / 1_000_000_000_000) }
            return .seconds(seconds)
        }
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: raw) {
                let millis = Int64((date.timeIntervalSince1970 * 1000).rounded()) - now
                return .milliseconds(max(0, millis))
            }
        }
        return nil
    }

    /// `body` as lossy UTF-8, cut to at most ``maxExcerptBytes`` bytes on a character boundary.
    static func excerpt(status: Int, body: Data) -> String {
        let text = String(decoding: body.prefix(maxExcerptBytes + 4), as: UTF8.self)
        if text.isEmpty { return "HTTP \(status) with an empty body" }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > maxExcerptBytes { break }
            result.append(character)
            used += size
        }
        return result
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
