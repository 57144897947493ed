import Foundation
import PaywallCore
import PaywallStore

/// `paywall-bench validator`: NDJSON lines validated per second on one core (the import's CPU cost).
enum ValidatorBench {
    static func run(_ arguments: [String]) {
        let count = BenchSupport.eventCount(arguments, default: 200_000)
        let lines = BenchSupport.events(count).map { Array(NDJSONLine.encode($0).utf8) }
        let validator = EventValidator()
        var valid = 0
        var parsed = 0
        let parseSeconds = BenchSupport.seconds {
            for line in lines {
                if (try? line.withUnsafeBytes({ try FlatJSON.parse($0) })) != nil { parsed += 1 }
            }
        }
        let seconds = BenchSupport.seconds {
            for line in lines {
                if case .valid = line.withUnsafeBytes({ validator.validate(line: $0) }) { valid += 1 }
            }
        }
        precondition(valid == count && parsed == count, "every generated line must be valid")
        BenchSupport.printTable("Validator, \(count) NDJSON lines, one core", [
            ["step", "lines/s", "µs/line"],
            ["parse (FlatJSON)", BenchSupport.rate(count, parseSeconds), String(format: "%.2f", parseSeconds / Double(count) * 1e6)],
            ["parse + validate", BenchSupport.rate(count, seconds), String(format: "%.2f", seconds / Double(count) * 1e6)],
        ])
    }
}
