import Foundation
import PaywallCore
import PaywallSimulation
import PaywallTestSupport
import Testing

/// Random call sequences against the tracker on virtual time, checked against a model of its
/// rules and of the app's lifecycle: every emitted event passes the validator, one impression and one close per
/// presentation at most, the impression exactly when a continuous on-screen period reached the
/// dwell time (background never counts), misuse reported exactly when the model says so.
struct TrackerPropertyTests {
    /// `TRACKER_PROPERTY_SEQUENCES` overrides the count (CI runs the default, 10,000).
    static let sequences = Int(ProcessInfo.processInfo.environment["TRACKER_PROPERTY_SEQUENCES"] ?? "") ?? 10_000

    @Test func randomCallSequencesNeverEmitAnInvalidEvent() async throws {
        let validator = EventValidator()
        var failures: [String] = []
        for seed in 0..<UInt64(Self.sequences) {
            let problems = await Self.run(seed: seed, validator: validator)
            if !problems.isEmpty { failures.append("seed \(seed): \(problems.joined(separator: "; "))") }
            if failures.count >= 5 { break }
        }
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }

    /// The model of one presentation.
    struct Model {
        let mode: PresentationTracker.ImpressionMode
        var closed = false
        var appVisible = false
        var visibleSinceMs: Int64?
        var firstVisibleMs: Int64?
        var impressionAt: Int64?
        var reported = false
        var actions = 0
        var closedOpenS: Double?
    }

    static let products = ["pro_annual", "pro_monthly", "", String(repeating: "p", count: 129)]

    static func run(seed: UInt64, validator: EventValidator) async -> [String] {
        var random = SeededGenerator(seed: seed &* 0x9E37_79B9 &+ 17)
        let clock = ManualClock()
        let start: Int64 = 1_764_400_000_000
        let now = Now {
            start + clock.now.offset.components.seconds * 1000
                + clock.now.offset.components.attoseconds / 1_000_000_000_000_000
        }
        let sink = InMemoryEventSink()
        let misuse = InMemoryMisuse()
        let tracker = PresentationTracker(sink: sink, clock: clock, now: now) { misuse.append($0) }
        let bound = Catalog.bundled.property(named: "open_s")?.max ?? .infinity
        var nowMs: Int64 { now.milliseconds() }

        var presentations: [Presentation] = []
        var models: [Model] = []
        var expectedMisuse: [TrackerError] = []
        var suspended = false

        func endPeriod(_ m: inout Model) {
            guard let since = m.visibleSinceMs else { return }
            if case .automatic(let dwell) = m.mode, m.impressionAt == nil,
                nowMs - since >= dwell.components.seconds * 1000 + dwell.components.attoseconds / 1_000_000_000_000_000
            {
                m.impressionAt =
                    since + dwell.components.seconds * 1000
                    + dwell.components.attoseconds / 1_000_000_000_000_000
            }
            m.visibleSinceMs = nil
        }
        func startPeriod(_ m: inout Model) {
            guard !m.closed, m.appVisible, !suspended, m.visibleSinceMs == nil else { return }
            m.visibleSinceMs = nowMs
            m.firstVisibleMs = m.firstVisibleMs ?? nowMs
        }

        let count = Int.random(in: 1...3, using: &random)
        for index in 0..<count {
            let mode: PresentationTracker.ImpressionMode? =
                switch Int.random(in: 0..<4, using: &random) {
                case 0: nil
                case 1: .appReported
                case 2: .automatic(dwell: .milliseconds(Int64.random(in: 1...5_000, using: &random)))
                default: .automatic(dwell: .seconds(1))
                }
            guard
                let paywall = try? tracker.open(
                    source: "placement_\(index)", offeringID: "default", userID: "user_\(seed)",
                    sessionID: UUID(), impressionMode: mode)
            else {
                return ["open refused valid values"]
            }
            presentations.append(paywall)
            models.append(Model(mode: mode ?? .default))
        }

        let steps = Int.random(in: 1...40, using: &random)
        for _ in 0..<steps {
            let i = Int.random(in: 0..<count, using: &random)
            let p = presentations[i]
            let id = p.pwID
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<18:
                p.appeared()
                if models[i].closed {
                    expectedMisuse.append(.alreadyClosed(pwID: id, attempted: "appeared()"))
                } else {
                    models[i].appVisible = true
                    startPeriod(&models[i])
                }
            case 18..<30:
                p.disappeared()
                if !models[i].closed {
                    models[i].appVisible = false
                    endPeriod(&models[i])
                }
            case 30..<36:
                tracker.suspend()
                suspended = true
                for j in models.indices { endPeriod(&models[j]) }
            case 36..<42:
                tracker.resume()
                suspended = false
                for j in models.indices { startPeriod(&models[j]) }
            case 42..<54:
                let product = products[Int.random(in: 0..<products.count, using: &random)]
                let purchase = random.chance(0.4)
                if purchase { p.startPurchase(product) } else { p.selectPlan(product) }
                let name = purchase ? "startPurchase()" : "selectPlan()"
                if product.isEmpty || product.count > 128 {
                    expectedMisuse.append(
                        .invalidValue(ValidationIssue(field: "product", rule: "", value: "", message: "")))
                } else if models[i].closed {
                    expectedMisuse.append(.alreadyClosed(pwID: id, attempted: name))
                } else if models[i].visibleSinceMs == nil {
                    expectedMisuse.append(.notVisible(pwID: id, attempted: name))
                } else {
                    endPeriodIfDwellReached(&models[i], nowMs: nowMs)
                    models[i].actions += 1
                }
            case 54..<60:
                p.reportImpression()
                if case .automatic = models[i].mode {
                    expectedMisuse.append(.impressionIsAutomatic(pwID: id))
                } else if models[i].closed {
                    expectedMisuse.append(.alreadyClosed(pwID: id, attempted: "reportImpression()"))
                } else if models[i].reported {
                    expectedMisuse.append(.impressionAlreadyReported(pwID: id))
                } else {
                    models[i].reported = true
                    models[i].impressionAt = nowMs
                }
            case 60..<72:
                let outcome: CloseOutcome =
                    switch Int.random(in: 0..<6, using: &random) {
                    case 0: .purchased(product: "pro_annual")
                    case 1: .purchased(product: "")
                    case 2: .restored
                    case 3: .dismissed(via: .continueFree)
                    case 4: .dismissed(via: .gesture)
                    default: .dismissed(via: .closeButton)
                    }
                p.close(outcome)
                if case .purchased(let product) = outcome, product.isEmpty {
                    expectedMisuse.append(
                        .invalidValue(ValidationIssue(field: "product", rule: "", value: "", message: "")))
                } else if models[i].closed {
                    expectedMisuse.append(.alreadyClosed(pwID: id, attempted: "close()"))
                } else {
                    endPeriod(&models[i])
                    models[i].closed = true
                    models[i].appVisible = false
                    models[i].closedOpenS = models[i].firstVisibleMs.map { min(Double(nowMs - $0) / 1000, bound) } ?? 0
                }
            default:
                let jump: Duration =
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: .milliseconds(Int64.random(in: 1...999, using: &random))
                    case 1: .seconds(Int64.random(in: 1...120, using: &random))
                    case 2: .seconds(Int64.random(in: 1...600, using: &random) * 60)
                    case 3: .seconds(Int64.random(in: 1...48, using: &random) * 3_600)
                    default: .seconds(Int64.random(in: 1...3, using: &random) * 86_400)
                    }
                clock.advance(by: jump)
            }
            if random.chance(0.1) { await Task.yield() }  // lets some dwell timers run mid-sequence
        }
        // Close whatever is open, so no timer can emit after the checks.
        for (i, p) in presentations.enumerated() where !models[i].closed {
            p.close(.dismissed(via: .closeButton))
            endPeriod(&models[i])
            models[i].closed = true
            models[i].closedOpenS = models[i].firstVisibleMs.map { min(Double(nowMs - $0) / 1000, bound) } ?? 0
        }
        return check(sink.events, presentations, models, misuse.all, expectedMisuse, validator)
    }

    /// The model's side of an action on screen: the transition emits a reached impression.
    static func endPeriodIfDwellReached(_ m: inout Model, nowMs: Int64) {
        guard let since = m.visibleSinceMs, case .automatic(let dwell) = m.mode, m.impressionAt == nil else { return }
        let dwellMs = dwell.components.seconds * 1000 + dwell.components.attoseconds / 1_000_000_000_000_000
        if nowMs - since >= dwellMs { m.impressionAt = since + dwellMs }
    }

    static func check(
        _ events: [EventRecord], _ presentations: [Presentation], _ models: [Model],
        _ misuse: [TrackerError], _ expectedMisuse: [TrackerError], _ validator: EventValidator
    ) -> [String] {
        var problems: [String] = []
        for event in events {
            let issues = validator.validate(event)
            if !issues.isEmpty { problems.append("\(event.name.rawValue) refused: \(issues)") }
        }
        for (p, m) in zip(presentations, models) {
            let own = events.filter { $0.properties.pwID == p.pwID }
            let shown = own.filter { $0.name == .paywallShown }
            let closed = own.filter { $0.name == .paywallClosed }
            if shown.count > 1 { problems.append("\(shown.count) impressions") }
            if closed.count != 1 { problems.append("\(closed.count) closes") }
            if own.last?.name != .paywallClosed { problems.append("an event after the close") }
            if shown.first?.occurredAt != m.impressionAt {
                problems.append(
                    "impression at \(String(describing: shown.first?.occurredAt)), model \(String(describing: m.impressionAt))"
                )
            }
            let actions = own.filter { $0.name == .paywallPlanSelected || $0.name == .paywallPurchaseStarted }.count
            if actions != m.actions { problems.append("\(actions) actions, model \(m.actions)") }
            if let openS = closed.first?.properties.openS, abs(openS - (m.closedOpenS ?? -1)) > 1e-6 {
                problems.append("open_s \(openS), model \(String(describing: m.closedOpenS))")
            }
        }
        let normalized = misuse.map { error -> TrackerError in
            if case .invalidValue = error {
                return .invalidValue(ValidationIssue(field: "product", rule: "", value: "", message: ""))
            }
            return error
        }
        if normalized != expectedMisuse { problems.append("misuse \(normalized), model \(expectedMisuse)") }
        return problems
    }
}
