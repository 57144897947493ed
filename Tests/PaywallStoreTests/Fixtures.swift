import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallStore

enum Fixtures {
    static let baseTime: Int64 = 1_764_400_000_000

    /// A valid event of each kind, cycling by `index`.
    static func event(_ index: Int, name: EventName? = nil, user: String = "user-1") -> EventRecord {
        let names: [EventName] = [.paywallShown, .paywallPlanSelected, .paywallPurchaseStarted, .paywallClosed]
        let chosen = name ?? names[index % names.count]
        let at = baseTime + Int64(index)
        var properties = EventProperties(pwID: UUIDv7.make(milliseconds: at), source: "onboarding")
        switch chosen {
        case .paywallShown: properties.offeringID = "default"
        case .paywallPlanSelected, .paywallPurchaseStarted: properties.product = "annual"
        case .paywallClosed:
            properties.result = .dismissed
            properties.via = .closeButton
            properties.openS = 3.5
        }
        return EventRecord(
            id: UUIDv7.make(milliseconds: at), name: chosen, occurredAt: at, userID: user,
            sessionID: UUIDv7.make(milliseconds: at), properties: properties)
    }

    static func count(_ connection: Connection, _ sql: String) throws -> Int {
        Int(try connection.scalar(sql)?.int64 ?? -1)
    }
}

/// Collects diagnostics from the recorder's hook.
final class DiagnosticsLog: Sendable {
    private let entries = Lock<[RecorderDiagnostic]>([])
    var all: [RecorderDiagnostic] { entries.withLock { $0 } }
    var hook: @Sendable (RecorderDiagnostic) -> Void { { [self] entry in entries.withLock { $0.append(entry) } } }
}
