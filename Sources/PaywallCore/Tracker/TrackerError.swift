import Foundation

/// A misuse of the presentation tracker. The call that caused it emits nothing and leaves the
/// presentation as it was; it is a programming error in the app, handed to the tracker's
/// `onMisuse` hook (or thrown by the ``Presentation/checked`` calls). Redundant `appeared()`
/// and `disappeared()` calls are not misuse.
public enum TrackerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The presentation was already closed; nothing may follow the close.
    case alreadyClosed(pwID: UUID, attempted: String)
    /// An action that needs the paywall on screen (select, purchase) before `appeared()`, while
    /// it is hidden, or while the tracker is suspended.
    case notVisible(pwID: UUID, attempted: String)
    /// `reportImpression()` in automatic dwell mode, where the tracker times impressions itself.
    case impressionIsAutomatic(pwID: UUID)
    /// A second `reportImpression()`: there is at most one impression per presentation.
    case impressionAlreadyReported(pwID: UUID)
    /// A value breaks the catalog (empty or too long source or product).
    case invalidValue(ValidationIssue)
    /// A ``PaywallPresentationController`` call before its view appeared (nothing is open yet), or
    /// after opening failed (the reason was reported then).
    case notOpen(attempted: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .alreadyClosed(let id, let attempted):
            "paywall presentation \(id.uuidString) is already closed; \(attempted) after the close was ignored. Open a new presentation for a new showing."
        case .notVisible(let id, let attempted):
            "paywall presentation \(id.uuidString) is not on screen; \(attempted) needs appeared() first."
        case .impressionIsAutomatic(let id):
            "paywall presentation \(id.uuidString) times its impression itself; open it with open(…, impressionMode: .appReported) to report impressions."
        case .impressionAlreadyReported(let id):
            "paywall presentation \(id.uuidString) already has its impression; report it once per presentation."
        case .invalidValue(let issue):
            "invalid value: \(issue.description)"
        case .notOpen(let attempted):
            "no paywall presentation is open; \(attempted) was ignored. The presentation opens when its view appears."
        }
    }
}
