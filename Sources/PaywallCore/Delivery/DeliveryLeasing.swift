/// A lease that lets one delivery pass at a time run per database, across processes: the RevenueCat
/// outbox (``EventOutbox``) and the upload queue (``EventUploadQueue``) each have one of their own.
///
/// Times are Unix milliseconds. Every method may throw the implementation's storage error.
public protocol DeliveryLeasing: Sendable {
    /// Takes the lease for `owner` until `now + durationMs`; returns `false` when another owner
    /// holds an unexpired lease. The same owner renews it.
    func acquireLease(owner: String, now: Int64, durationMs: Int64) throws -> Bool
    /// Gives the lease back if `owner` holds it.
    func releaseLease(owner: String) throws
}
