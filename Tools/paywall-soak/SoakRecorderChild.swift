import Foundation
import PaywallCore
import PaywallSimulation
import PaywallStore

/// The recording child: records whole presentations through the real `Recorder` at a bounded rate and,
/// after each successful flush, prints every id it recorded (one per line, one write): those ids are
/// acknowledged, so the store must keep them whatever happens next.
enum SoakRecorderChild {
    static let placements = ["onboarding", "settings", "feature_gate", "=formula", "<b>bold</b>"]
    static let products = ["pro_monthly", "pro_annual", "lifetime"]

    static func run(path: String, seed: UInt64) async {
        let recorder: Recorder
        do {
            recorder = try Recorder(path: path, now: .system, policy: FlushPolicy(batchSize: 64, capacity: 100_000)) {
                diagnostic in
                FileHandle.standardError.write(Data("\(diagnostic)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("soak recorder: \(error)\n".utf8))
            exit(74)
        }
        var random = SeededGenerator(seed: seed)
        while true {
            var ids: [UUID] = []
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                for event in presentation(&random) {
                    recorder.record(event)
                    ids.append(event.id)
                }
            }
            do { try await recorder.flush() } catch {
                FileHandle.standardError.write(Data("soak recorder: flush failed: \(error)\n".utf8))
                continue
            }
            FileHandle.standardOutput.write(Data((ids.map(\.uuidString).joined(separator: "\n") + "\n").utf8))
            try? await Task.sleep(for: .milliseconds(Int.random(in: 50...250, using: &random)))
        }
    }

    /// One presentation: shown, then maybe plan selected and purchase started, then closed.
    static func presentation(_ random: inout SeededGenerator) -> [EventRecord] {
        let now = Now.system.milliseconds()
        let pwID = UUIDv7.make(milliseconds: now)
        let user = "soak-user-\(Int.random(in: 1...500, using: &random))"
        let placement = placements.randomElement(using: &random)!
        var base = EventProperties(pwID: pwID, source: placement)
        base.placementID = placement
        func event(_ name: EventName, _ offset: Int64, _ change: (inout EventProperties) -> Void = { _ in })
            -> EventRecord
        {
            var properties = base
            if name != .paywallShown { properties.placementID = nil }
            change(&properties)
            return EventRecord(
                id: UUIDv7.make(milliseconds: now + offset), name: name, occurredAt: now + offset,
                userID: user, properties: properties)
        }
        var events = [event(.paywallShown, 0)]
        let product = products.randomElement(using: &random)!
        let buys = Int.random(in: 0..<10, using: &random) < 3
        if buys {
            events.append(event(.paywallPlanSelected, 1) { $0.product = product })
            events.append(event(.paywallPurchaseStarted, 2) { $0.product = product })
        }
        if Int.random(in: 0..<10, using: &random) < 9 {
            events.append(
                event(.paywallClosed, 3) {
                    $0.result = buys ? .purchased : .dismissed
                    $0.via = buys ? .auto : .closeButton
                    $0.openS = Double(Int.random(in: 1...120, using: &random))
                    if buys { $0.product = product }
                })
        }
        return events
    }
}
