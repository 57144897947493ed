import Foundation
import PaywallCore
import PaywallLock
import PaywallSQLite
import PaywallSimulation
import PaywallStore
import PaywallTestSupport
import Testing

/// Random sequences of app calls, flushes, kills and relaunches — several "processes" on one real
/// store, each a tracker with its own journal — against a model: every event written is valid, every
/// presentation ends with exactly one close, the app's own close when it closed it, else an
/// abandoned one with the visible time of its last save and the plan last selected.
struct AbandonedPresentationPropertyTests {
    static let base: Int64 = 1_764_400_000_000
    static let dwell: Int64 = 1000

    /// One process: a tracker whose events wait in a buffer until `flush` (a kill loses them).
    final class Process: @unchecked Sendable {
        // @unchecked Sendable: mutable state is only touched by the test's one task.
        let journal: PresentationJournalTable
        let tracker: PresentationTracker
        let sink: BufferSink
        var alive = true
        var suspended = false

        init(store: EventStore, clock: ManualClock, now: Now) {
            journal = PresentationJournalTable(store: store)
            sink = BufferSink()
            tracker = PresentationTracker(
                sink: sink, clock: clock, now: now,
                impressionMode: .automatic(dwell: .milliseconds(AbandonedPresentationPropertyTests.dwell)),
                onMisuse: { Issue.record("misuse: \($0)") }, journal: journal, checkpointInterval: nil)
        }
    }

    /// Buffers events; checks each against the catalog as it arrives; drops everything once dead.
    final class BufferSink: EventSink, Sendable {
        let buffer = Lock<[EventRecord]>([])
        let dead = Lock(false)
        let invalid = Lock<[String]>([])

        func record(_ event: EventRecord) {
            let issues = EventValidator().validate(event)
            if !issues.isEmpty { invalid.withLock { $0.append("\(event.name): \(issues)") } }
            if dead.withLock({ $0 }) { return }
            buffer.withLock { $0.append(event) }
        }

        func take() -> [EventRecord] {
            buffer.withLock { events in
                let taken = events
                events = []
                return taken
            }
        }
    }

    /// What the model knows of one presentation (times in ms of the shared manual clock).
    struct Model {
        let paywall: Presentation
        let process: Int
        let appReported: Bool
        var appVisible = false
        var since: Int64?
        var before: Int64 = 0
        var product: String?
        var closedVia: CloseVia?
        var reported = false
        /// Visible ms at the last save the model can time exactly, and the plan then.
        var savedVisible: Int64 = 0
        var savedProduct: String?
        /// Whether the impression was due (or reported) at a save: then it must be stored.
        var impressionDue = false
        /// Visible ms when its process died (the most an abandoned close may say).
        var killedVisible: Int64?

        func visible(at now: Int64) -> Int64 { before + (since.map { now - $0 } ?? 0) }
    }

    struct Run {
        let store: EventStore
        let clock = ManualClock()
        var time: Int64 = 0
        var processes: [Process] = []
        var models: [Model] = []
        var random: SeededGenerator

        static func ms(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        }

        mutating func launch() throws {
            let process = Process(store: store, clock: clock, now: nowFromStart)
            // The start of the library: close what processes that are gone left open.
            _ = try process.journal.recoverAbandoned()
            processes.append(process)
        }

        /// Wall time: the base plus the shared clock's time since the run began.
        var nowFromStart: Now {
            let start = startInstant
            let clock = clock
            return Now { AbandonedPresentationPropertyTests.base + Self.ms(start.duration(to: clock.now)) }
        }
        let startInstant: ManualClock.Instant

        init(store: EventStore, seed: UInt64) {
            self.store = store
            random = SeededGenerator(seed: seed)
            startInstant = clock.now
        }

        /// Before a save, the tracker emits the impression whose dwell the current visible period reached.
        mutating func noteDue(_ index: Int) {
            let model = models[index]
            if let since = model.since, time - since >= AbandonedPresentationPropertyTests.dwell, !model.appReported {
                models[index].impressionDue = true
            }
        }

        /// A save the model can time: the visible time and plan now.
        mutating func saved(_ index: Int) {
            noteDue(index)
            models[index].savedVisible = models[index].visible(at: time)
            models[index].savedProduct = models[index].product
        }

        func realVisible(_ model: Model) -> Bool {
            model.appVisible && !processes[model.process].suspended && model.closedVia == nil
        }

        mutating func setVisible(_ index: Int) {
            let visible = realVisible(models[index])
            if visible, models[index].since == nil {
                models[index].since = time
            } else if !visible, let since = models[index].since {
                models[index].before += time - since
                models[index].since = nil
            }
        }

        mutating func step() throws {
            let live = models.indices.filter { processes[models[$0].process].alive && models[$0].closedVia == nil }
            let alive = processes.indices.filter { processes[$0].alive }
            if alive.isEmpty { return try launch() }
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<12:
                let index = alive.randomElement(using: &random)!
                let appReported = Bool.random(using: &random)
                let paywall = try processes[index].tracker.open(
                    source: "p\(Int.random(in: 0..<3, using: &random))", userID: "u\(models.count % 5)",
                    impressionMode: appReported ? .appReported : nil)
                models.append(Model(paywall: paywall, process: index, appReported: appReported))
                saved(models.count - 1)
            case 12..<30 where !live.isEmpty:
                let index = live.randomElement(using: &random)!
                if Bool.random(using: &random) {
                    models[index].paywall.appeared()
                    let was = models[index].since != nil
                    models[index].appVisible = true
                    setVisible(index)
                    if !was, models[index].since != nil { saved(index) }
                } else {
                    let was = models[index].since != nil
                    models[index].paywall.disappeared()
                    noteDue(index)
                    models[index].appVisible = false
                    setVisible(index)
                    if was { saved(index) }
                }
            case 30..<45:
                let step = Int64.random(in: 0...3_000, using: &random)
                clock.advance(by: .milliseconds(step))
                time += step
            case 45..<52 where !live.isEmpty:
                let index = live.randomElement(using: &random)!
                guard realVisible(models[index]) else { return }
                let product = ["pro_annual", "pro_month"].randomElement(using: &random)!
                models[index].paywall.selectPlan(product)
                models[index].product = product
                saved(index)
            case 52..<56 where !live.isEmpty:
                let index = live.randomElement(using: &random)!
                guard models[index].appReported, !models[index].reported else { return }
                models[index].paywall.reportImpression()
                models[index].reported = true
                models[index].impressionDue = true
                saved(index)
            case 56..<66 where !live.isEmpty:
                let index = live.randomElement(using: &random)!
                let outcome: CloseOutcome =
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: .purchased(product: "pro_annual")
                    case 1: .restored
                    case 2: .dismissed(via: .gesture)
                    case 3: .dismissed(via: .continueFree)
                    default: .dismissed(via: .closeButton)
                    }
                models[index].paywall.close(outcome)
                models[index].closedVia =
                    switch outcome {
                    case .purchased, .restored: .auto
                    case .dismissed(.gesture): .gesture
                    case .dismissed(.continueFree): .continueFree
                    case .dismissed(.closeButton): .closeButton
                    }
                setVisible(index)
            case 66..<72:
                let index = alive.randomElement(using: &random)!
                let suspend = !processes[index].suspended
                if suspend { processes[index].tracker.suspend() } else { processes[index].tracker.resume() }
                processes[index].suspended = suspend
                for model in models.indices where models[model].process == index && models[model].closedVia == nil {
                    let was = models[model].since != nil
                    noteDue(model)
                    setVisible(model)
                    if was != (models[model].since != nil) { saved(model) }
                }
            case 72..<77:
                let index = alive.randomElement(using: &random)!
                processes[index].tracker.checkpoint()
                for model in models.indices where models[model].process == index && models[model].closedVia == nil {
                    saved(model)
                }
            case 77..<88:
                try flush(alive.randomElement(using: &random)!)
            case 88..<95:
                kill(alive.randomElement(using: &random)!)
            default:
                try launch()  // another process on the same store, beside those alive
            }
        }

        mutating func flush(_ index: Int) throws {
            let closed = processes[index].journal.closedSoFar()
            try store.insert(processes[index].sink.take())
            try processes[index].journal.purge(closed)
        }

        mutating func kill(_ index: Int) {
            processes[index].alive = false
            processes[index].sink.dead.withLock { $0 = true }
            processes[index].journal.stop()
            _ = processes[index].sink.take()
            for model in models.indices where models[model].process == index {
                models[model].killedVisible = models[model].visible(at: time)
            }
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func everyPresentationIsClosedExactlyOnceWhateverIsKilled(seed: UInt64) throws {
        // Given random calls, flushes, kills and relaunches of several processes on one store
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try EventStore(path: folder.path("app.sqlite"), now: .constant(Self.base))
        var run = Run(store: store, seed: seed)
        try run.launch()
        for _ in 0..<300 { try run.step() }
        // When every process dies and the library starts once more
        for index in run.processes.indices where run.processes[index].alive { run.kill(index) }
        try run.launch()
        // Then every event the trackers emitted was valid, and so is every stored event
        for process in run.processes { #expect(process.sink.invalid.withLock { $0 } == []) }
        let validator = EventValidator()
        let rows = try store.connection.all(
            """
            SELECT id, name, occurred_at, user_id, catalog_version, pw_id, source, product, result, via, open_s
            FROM events ORDER BY seq
            """
        ) {
            row -> (pw: String, name: String, via: String?, openS: Double?, product: String?, issues: [ValidationIssue])
            in
            var members: [(key: String, value: FlatJSONValue)] = [
                ("id", .string(row.string(at: 0)!)), ("name", .string(row.string(at: 1)!)),
                ("occurred_at", .number(String(row.int64(at: 2)))), ("user_id", .string(row.string(at: 3)!)),
                ("catalog_version", .number(String(row.int64(at: 4)))), ("pw_id", .string(row.string(at: 5)!)),
                ("source", .string(row.string(at: 6)!)),
            ]
            if let product = row.string(at: 7) { members.append(("product", .string(product))) }
            if let result = row.string(at: 8) { members.append(("result", .string(result))) }
            if let via = row.string(at: 9) { members.append(("via", .string(via))) }
            if let openS = row.double(at: 10) { members.append(("open_s", .number(String(openS)))) }
            var issues: [ValidationIssue] = []
            if case .invalid(let found) = validator.validate(members: members) { issues = found }
            return (
                row.string(at: 5)!, row.string(at: 1)!, row.string(at: 9), row.double(at: 10), row.string(at: 7), issues
            )
        }
        #expect(rows.allSatisfy { $0.issues.isEmpty }, "\(rows.filter { !$0.issues.isEmpty })")
        // And every presentation has exactly one close: the app's, or an abandoned one with the
        // visible time of its last save (at most the time at the kill) and the plan then selected
        #expect(try store.connection.scalar("SELECT count(*) FROM open_presentations")?.int64 == 0)
        #expect(!run.models.isEmpty)
        for model in run.models {
            let events = rows.filter { $0.pw == model.paywall.pwID.uuidString }
            let closes = events.filter { $0.name == "paywall_closed" }
            let shown = events.filter { $0.name == "paywall_shown" }.count
            #expect(closes.count == 1, "\(model.paywall.pwID): \(closes.count) closes")
            #expect(shown <= 1)
            if model.impressionDue { #expect(shown == 1, "an impression due at a save is stored") }
            guard let close = closes.first else { continue }
            if let via = model.closedVia {
                #expect(close.via == via.rawValue, "the app's own close survives")
            } else {
                #expect(close.via == "abandoned")
                #expect(close.product == model.savedProduct)
                let openMs = Int64(((close.openS ?? -1) * 1000).rounded())
                let killed = model.killedVisible ?? -1
                #expect(openMs >= model.savedVisible && openMs <= killed, "open_s \(openMs) ms")
                if model.appReported { #expect(openMs == model.savedVisible) }
            }
        }
    }
}
