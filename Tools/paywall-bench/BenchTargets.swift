import Foundation
import PaywallLock

/// One target from `targets.json`: the benchmark, the measure's label as its table prints it, and
/// the bound the printed value must meet (`atLeast`, `atMost` or `below`).
struct BenchTarget: Decodable, Sendable {
    let benchmark: String
    let measure: String
    let atLeast: Double?
    let atMost: Double?
    let below: Double?
    /// The options that measure this target when the defaults do not (e.g. `--events 10000000
    /// --ids random`): `all` runs only defaults, so it lists such a target only when measured.
    let measuredWith: String?

    /// Whether `value` meets the bound.
    func isMet(by value: Double) -> Bool {
        if let atLeast, !(value >= atLeast) { return false }
        if let atMost, !(value <= atMost) { return false }
        if let below, !(value < below) { return false }
        return true
    }

    /// The bound as the tables print it, e.g. `≥ 0.8`.
    var text: String {
        [
            atLeast.map { "≥ \(Self.number($0))" }, atMost.map { "≤ \(Self.number($0))" },
            below.map { "< \(Self.number($0))" },
        ]
        .compactMap { $0 }.joined(separator: ", ")
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// The targets every benchmark must reach, kept as data in `targets.json` (next to this file): a
/// table row whose label matches a target's `measure` prints that target beside its value, and
/// `--check` compares them. Adding a target is one line in the file:
///
/// ```json
/// {"benchmark": "import", "measure": "import / sqlite3", "atLeast": 1.0},
/// ```
enum BenchTargets {
    /// One measured value against its target.
    struct Outcome: Sendable {
        let target: BenchTarget
        let value: Double?
        var met: Bool { value.map(target.isMet) ?? false }
    }

    /// What the run has seen: the benchmark running, the targets, the values measured against them.
    struct State: Sendable {
        var benchmark = ""
        var path = BenchTargets.defaultPath
        var targets: [BenchTarget]?
        var values: [String: Double] = [:]
    }

    static let state = Lock(State())

    /// `Tools/paywall-bench/targets.json` of the checkout the benchmark was built from.
    static let defaultPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("targets.json").path

    /// Reads the targets from `path` (the default file unless `--targets PATH` was given).
    static func load(path: String? = nil) throws {
        let path = path ?? defaultPath
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw BenchError(
                "cannot read the benchmark targets at \(path) (\(error.localizedDescription)); "
                    + "pass --targets PATH")
        }
        let targets: [BenchTarget]
        do {
            targets = try JSONDecoder().decode([BenchTarget].self, from: data)
        } catch {
            throw BenchError("\(path) is not a JSON array of {benchmark, measure, atLeast|atMost|below}: \(error)")
        }
        state.withLock {
            $0.targets = targets
            $0.path = path
        }
    }

    /// Names the benchmark whose tables follow.
    static func begin(_ benchmark: String) { state.withLock { $0.benchmark = benchmark } }

    /// The target of `measure` in the running benchmark, recording `value` (a printed cell such as
    /// `0.88` or `4.3 %`) against it; `nil` when the file has none.
    @discardableResult
    static func measured(_ measure: String, _ value: String) -> BenchTarget? {
        state.withLock { state in
            guard let target = state.targets?.first(where: { $0.benchmark == state.benchmark && $0.measure == measure })
            else { return nil }
            if let number = Double(value.split(separator: " ").first ?? "") {
                state.values["\(state.benchmark)\u{0}\(measure)"] = number
            }
            return target
        }
    }

    /// Every target of `benchmarks` with the value measured for it (`nil`: not measured).
    static func outcomes(for benchmarks: [String]) -> [Outcome] {
        state.withLock { state in
            (state.targets ?? []).filter { benchmarks.contains($0.benchmark) }.map {
                Outcome(target: $0, value: state.values["\($0.benchmark)\u{0}\($0.measure)"])
            }
        }
    }

    /// Prints every target of `benchmarks` beside its value; returns whether all were met. With
    /// `requireAll`, a target nothing measured (a renamed row, a benchmark that stopped printing it)
    /// is missed; otherwise (one benchmark run with options, e.g. `report nightly`) it is only listed.
    static func check(_ benchmarks: [String], requireAll: Bool) -> Bool {
        let outcomes = outcomes(for: benchmarks).filter {
            (requireAll && $0.target.measuredWith == nil) || $0.value != nil
        }
        let path = state.withLock { $0.path }
        guard !outcomes.isEmpty else {
            print("no targets for \(benchmarks.joined(separator: ", ")) in \(path)")
            return true
        }
        BenchSupport.printTable(
            "paywall-bench --check — targets from \(path)",
            [["benchmark", "measure", "value", "target", ""]]
                + outcomes.map { outcome in
                    [
                        outcome.target.benchmark, outcome.target.measure,
                        outcome.value.map { String(format: abs($0) >= 1000 ? "%.0f" : "%.3g", $0) } ?? "not measured",
                        outcome.target.text, outcome.met ? "✔" : "✘ missed",
                    ]
                })
        let missed = outcomes.filter { !$0.met }.count
        print(missed == 0 ? "every target met" : "\(missed) of \(outcomes.count) targets missed")
        return missed == 0
    }
}
