import Foundation
import PaywallLock

/// The bytes of refused lines each write key may have kept in the quarantine
/// (`serve --key-quarantine-bytes B`): a bucket of `B` bytes per key, refilled at `B` a day. A
/// request whose refused lines would take more than the bucket holds is refused as a whole with 429
/// and the seconds until enough is back (`Retry-After`), so the client keeps every event and sends
/// it again later: nothing is lost, and one key (the write key is public) cannot fill the disk
/// through the quarantine however many requests it makes. Kept in memory only, per process.
final class KeyQuarantineBudget: Sendable {
    private struct Bucket {
        var bytes: Double
        var last: UInt64
    }

    /// The bucket's size in bytes, which is also what it regains per day.
    let capacity: Int
    private let perSecond: Double
    private let buckets = Lock([String: Bucket]())

    init(bytesPerDay: Int) {
        capacity = max(1, bytesPerDay)
        perSecond = Double(capacity) / 86_400
    }

    /// Takes `cost` bytes from `key`'s bucket at `now` (uptime nanoseconds): nil when they were
    /// there (a cost above the whole bucket passes when the bucket is full, and empties it), else
    /// the whole seconds until they are (at least 1). A cost of 0 always passes.
    func take(_ key: String, cost: Int, now: UInt64 = DispatchTime.now().uptimeNanoseconds) -> Int? {
        guard cost > 0 else { return nil }
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(bytes: Double(capacity), last: now)
            let elapsed = Double(now &- bucket.last) / 1e9
            bucket.bytes = min(Double(capacity), bucket.bytes + elapsed * perSecond)
            bucket.last = now
            defer { buckets[key] = bucket }
            let needed = Double(min(cost, capacity))
            if bucket.bytes >= needed {
                bucket.bytes -= Double(cost)
                return nil
            }
            return max(1, Int(((needed - bucket.bytes) / perSecond).rounded(.up)))
        }
    }
}
