import Foundation

/// A misuse of the presentation tracker. The call that throws it emits nothing and leaves the
/// presentation as it was; it is a programming error in the app, reported to the caller.
public enum TrackerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The presentation was already closed; nothing may follow the close.
    case alreadyClosed(pwID: UUID, attempted: String)
    /// `appeared()` while the paywall is already visible.
    case alreadyVisible(pwID: UUID)
    /// An action that needs the paywall on screen (select, purchase, disappear) before `appeared()`
    /// or while it is hidden.
    case notVisible(pwID: UUID, attempted: String)
    /// `reportImpression()` in automatic dwell mode, where the tracker times impressions itself.
    case impressionIsAutomatic(pwID: UUID)
    /// A second `reportImpression()`: there is at most one impression per presentation.
    case impressionAlreadyReported(pwID: UUID)
    /// A value breaks the catalog (empty or too long source or product).
    case invalidValue(ValidationIssue)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .alreadyClosed(let id, let attempted):
            "paywall presentation \(id.uuidString) is already closed; \(attempted) after the close was ignored. Open a new presentation for a new showing."
        case .alreadyVisible(let id):
            "paywall presentation \(id.uuidString) is already visible; call disappeared() before appeared() again."
        case .notVisible(let id, let attempted):
            "paywall presentation \(id.uuidString) is not on screen; \(attempted) needs appeared() first."
        case .impressionIsAutomatic(let id):
            "paywall presentation \(id.uuidString) times its impression itself; open it with impressionMode: .appReported to report impressions."
        case .impressionAlreadyReported(let id):
            "paywall presentation \(id.uuidString) already has its impression; report it once per presentation."
        case .invalidValue(let issue):
            "invalid value: \(issue.description)"
        }
    }
}
