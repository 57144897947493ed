import Foundation
import PaywallCore

/// Presentations (an impression and its close) with fresh ids, as an app's tracker records them.
public enum DeviceEvents {
    /// `count` presentations of `user`, 10 s apart from `start`: 2 × `count` events.
    public static func presentations(
        _ count: Int, user: String = "user-\(UUID().uuidString.prefix(8))",
        start: Int64 = 1_764_400_000_000
    ) -> [EventRecord] {
        var events: [EventRecord] = []
        events.reserveCapacity(count * 2)
        for index in 0..<count {
            let time = start + Int64(index) * 10_000
            let pw = UUID()
            events.append(
                EventRecord(
                    id: UUID(), name: .paywallShown, occurredAt: time, userID: user, sessionID: pw,
                    properties: EventProperties(pwID: pw, source: "onboarding", offeringID: "default")))
            events.append(
                EventRecord(
                    id: UUID(), name: .paywallClosed, occurredAt: time + 4_000, userID: user, sessionID: pw,
                    properties: EventProperties(
                        pwID: pw, source: "onboarding", result: .dismissed,
                        via: .closeButton, openS: 4)))
        }
        return events
    }
}
