import Foundation
import PaywallLock

/// A token bucket per write key name (`serve --key-rate R`): each key may make `rate` requests per
/// second on average, with bursts of `2 × rate`; a request past that is answered 429 with the
/// seconds after which a token is back (`Retry-After`). Kept in memory only, per process.
final class KeyRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var last: UInt64
    }

    /// Requests per second per key.
    let rate: Double
    /// The bucket's size: `2 × rate` (at least one request).
    let burst: Double
    private let buckets = Lock([String: Bucket]())

    init(rate: Double) {
        self.rate = rate
        burst = max(1, 2 * rate)
    }

    /// Takes a token for `key` at `now` (uptime nanoseconds); nil when one was there, else the
    /// whole seconds until one is (at least 1).
    func take(_ key: String, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, last: now)
            let elapsed = Double(now &- bucket.last) / 1e9
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.last = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
        }
    }
}
