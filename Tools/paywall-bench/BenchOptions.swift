import Foundation

/// The options each benchmark takes, checked before anything runs: an unknown option, a missing or
/// malformed value, or a stray word stops the run with a message naming it (a typo such as
/// `--event 1000000` would otherwise run the 10M default for minutes and measure the wrong thing).
enum BenchOptions {
    /// What an option's value must be.
    enum Value {
        /// No value: the option alone.
        case flag
        /// A whole number of at least `minimum`.
        case count(minimum: Int)
        /// One of these words.
        case oneOf([String])
        /// Whole numbers from 1 to `maximum` separated by commas (`5,6`).
        case countList(maximum: Int)
        /// A path.
        case path
    }

    /// Every benchmark's options (the forms run by hand; `report child`, `import child` and
    /// `import data` are the benchmarks' own child processes and are not checked here).
    static let table: [String: [String: Value]] = [
        "forwarder": ["--count": .count(minimum: 1), "--outbox": .oneOf(["memory", "sqlite", "both"])],
        "recorder": ["--events": .count(minimum: 1)],
        "import": [
            "--events": .count(minimum: 1), "--ids": .oneOf(["ordered", "random"]), "--variants": .flag,
            "--pick": .countList(maximum: ImportBench.ideas.count), "--key-experiment": .flag,
        ],
        "validator": ["--events": .count(minimum: 1)],
        "report": ["--events": .count(minimum: 30), "--keep": .flag],
        "report nightly": ["--events": .count(minimum: 30), "--prepared": .path],
        "report subscriptions": ["--events": .count(minimum: 30)],
        "collector": [
            "--seconds": .count(minimum: 1), "--connections": .count(minimum: 1), "--store-events": .count(minimum: 1),
            "--phase-seconds": .count(minimum: 1), "--only": .oneOf(["plain", "sustained"]),
        ],
        "upload": ["--events": .count(minimum: 1)],
        "webhook": ["--seconds": .count(minimum: 1), "--connections": .count(minimum: 1)],
    ]

    /// The problem with `arguments` (the words after the benchmark's name) for `benchmark`, or `nil`
    /// when every word is an option it takes with a well-formed value.
    static func problem(benchmark: String, _ arguments: [String]) -> String? {
        var name = benchmark
        var words = arguments[...]
        if benchmark == "report", let form = words.first, ["nightly", "subscriptions"].contains(form) {
            name = "report \(form)"
            words = words.dropFirst()
        }
        if ["report", "import"].contains(benchmark), let form = words.first, ["child", "data"].contains(form) {
            return nil
        }
        guard let options = table[name] else {
            return
                "\(benchmark) is not a benchmark; the benchmarks are \(everyBenchmark.joined(separator: ", ")) and all"
        }
        var seen: Set<String> = []
        while let word = words.popFirst() {
            guard let kind = options[word] else {
                let known = options.keys.sorted().joined(separator: ", ")
                return word.hasPrefix("-")
                    ? "\(name) has no option \(word); its options are \(known)"
                    : "\(name) takes no word \(word); its options are \(known)"
            }
            guard seen.insert(word).inserted else { return "\(word) is given twice; give it once" }
            if case .flag = kind { continue }
            guard let value = words.popFirst(), !value.hasPrefix("--") else {
                return "\(word) needs a value (\(describe(kind)))"
            }
            if let wrong = check(value, kind) { return "\(word) \(value): \(wrong)" }
        }
        return nil
    }

    private static func check(_ value: String, _ kind: Value) -> String? {
        switch kind {
        case .flag, .path:
            return nil
        case .count(let minimum):
            guard let number = Int(value), number >= minimum else { return "expected \(describe(kind))" }
            return nil
        case .oneOf(let words):
            return words.contains(value) ? nil : "expected \(describe(kind))"
        case .countList(let maximum):
            let parts = value.split(separator: ",", omittingEmptySubsequences: false)
            return parts.allSatisfy({ Int($0).map { (1...maximum).contains($0) } ?? false })
                ? nil : "expected \(describe(kind))"
        }
    }

    private static func describe(_ kind: Value) -> String {
        switch kind {
        case .flag: "no value"
        case .count(let minimum): "a whole number of at least \(minimum), digits only"
        case .oneOf(let words): "one of \(words.joined(separator: ", "))"
        case .countList(let maximum): "numbers of variants from 1 to \(maximum) separated by commas, such as 1,2"
        case .path: "a path"
        }
    }
}
