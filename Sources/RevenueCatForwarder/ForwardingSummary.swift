import Foundation
import PaywallDelivery

/// The result of ``Forwarder/forwardOnce()``.
public enum ForwardingPass: Sendable, Equatable {
    /// Another pass holds the lease on this outbox; nothing was sent.
    case busy
    /// The pass ran.
    case completed(ForwardingSummary)
}

/// What one forwarding pass did. Holds counts and status text only, never the API key.
public struct ForwardingSummary: Sendable, Equatable, CustomStringConvertible {
    /// Why a pass ended.
    public enum Stop: String, Sendable, Equatable {
        /// No pending impression was due.
        case nothingDue = "nothing due"
        /// The pass sent its maximum number of batches; more may be due.
        case batchLimit = "batch limit reached"
        /// A batch must be retried later (network error, timeout, 5xx, 404, 429).
        case revenueCatUnavailable = "RevenueCat unavailable"
        /// Another owner took the lease after this one expired.
        case leaseLost = "lease lost"
        /// The task running the pass was cancelled.
        case cancelled
    }

    /// Impressions RevenueCat accepted.
    public var delivered = 0
    /// Impressions kept pending with a later next-attempt time.
    public var willRetry = 0
    /// Impressions RevenueCat refused, now in the dead letters.
    public var deadLettered = 0
    /// The impressions dead-lettered in this pass, by the HTTP status that refused them.
    public var deadLetteredByStatus: [Int: Int] = [:]
    /// HTTP requests made.
    public var requests = 0
    /// Whether the pass ended because RevenueCat could not be reached or asked to wait.
    public var revenueCatUnavailable = false
    /// Why the pass ended.
    public var stop: Stop = .nothingDue
    /// The last HTTP status received, if the last request got a response.
    public var lastStatus: Int?
    /// A description of the last failure, if any.
    public var lastFailure: String?
    /// The earliest next-attempt time (Unix ms) of what is still pending, `nil` when nothing is.
    public var nextAttemptAt: Int64?

    /// Creates an empty summary.
    public init() {}

    /// The summary of a ``DeliveryEngine`` pass to RevenueCat (accepted = delivered, refused =
    /// dead-lettered). A pass that found RevenueCat paused, or ended with it unavailable, stops as
    /// ``Stop/revenueCatUnavailable``. ``nextAttemptAt`` is left for the caller to read from the outbox.
    public init(_ report: DeliveryReport) {
        delivered = report.accepted
        willRetry = report.willRetry
        deadLettered = report.refused
        deadLetteredByStatus = report.refusedByStatus
        requests = report.requests
        revenueCatUnavailable = report.unavailable
        lastStatus = report.lastStatus
        lastFailure = report.lastFailure
        switch report.stop {
        case .nothingDue: stop = .nothingDue
        case .batchLimit: stop = .batchLimit
        case .unavailable, .paused: stop = .revenueCatUnavailable
        case .leaseLost: stop = .leaseLost
        case .cancelled: stop = .cancelled
        }
    }

    /// `delivered 50, will retry 0, dead-lettered 0 (1 request; nothing due)`.
    public var description: String {
        var text =
            "delivered \(delivered), will retry \(willRetry), dead-lettered \(deadLettered) "
            + "(\(requests) request\(requests == 1 ? "" : "s"); \(stop.rawValue))"
        if let lastFailure, stop == .revenueCatUnavailable { text += ": \(lastFailure)" }
        return text
    }
}
