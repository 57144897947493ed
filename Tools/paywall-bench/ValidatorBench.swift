import Foundation
import PaywallCore
import PaywallStore

/// `paywall-bench validator`: NDJSON lines validated per second on one core (the import's CPU cost):
/// the generic parser alone, valid lines (the validator's fast path), and invalid lines (the fast
/// path gives up, the full path lists every reason).
enum ValidatorBench {
    static func run(_ arguments: [String]) {
        let count = BenchSupport.eventCount(arguments, default: 200_000)
        let lines = BenchSupport.events(count).map { Array(NDJSONLine.encode($0).utf8) }
        // The same lines with one broken rule each: a catalog_version above the catalog's maximum.
        let invalidLines = lines.map {
            Array(
                String(decoding: $0, as: UTF8.self)
                    .replacingOccurrences(
                        of: "\"catalog_version\":\(CatalogInfo.version)",
                        with: "\"catalog_version\":\(CatalogInfo.version + 1)"
                    ).utf8)
        }
        let validator = EventValidator()
        var valid = 0
        var parsed = 0
        var invalid = 0
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
        let invalidSeconds = BenchSupport.seconds {
            for line in invalidLines {
                if case .invalid(let issues) = line.withUnsafeBytes({ validator.validate(line: $0) }), issues.count == 1
                {
                    invalid += 1
                }
            }
        }
        precondition(valid == count && parsed == count, "every generated line must be valid")
        precondition(invalid == count, "every altered line must have exactly one issue")
        func perLine(_ seconds: Double) -> String { String(format: "%.2f", seconds / Double(count) * 1e6) }
        BenchSupport.printTable(
            "Validator, \(count) NDJSON lines, one core",
            [
                ["step", "lines/s", "µs/line"],
                ["parse (FlatJSON, generic)", BenchSupport.rate(count, parseSeconds), perLine(parseSeconds)],
                ["parse + validate, valid lines", BenchSupport.rate(count, seconds), perLine(seconds)],
                [
                    "parse + validate, invalid lines (reasons)", BenchSupport.rate(count, invalidSeconds),
                    perLine(invalidSeconds),
                ],
            ])
    }
}
