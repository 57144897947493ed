import Foundation
import PaywallCore

/// Shared helpers for the store benchmarks: event generation, timing, a scratch directory, table output.
enum BenchSupport {
    /// `--events N` from `arguments`, or `fallback`.
    static func eventCount(_ arguments: [String], default fallback: Int) -> Int {
        guard let index = arguments.firstIndex(of: "--events"), index + 1 < arguments.count,
            let value = Int(arguments[index + 1])
        else { return fallback }
        return value
    }

    /// Realistic presentations in time order (UUIDv7 ids): shown, sometimes a plan and a purchase, then closed
    /// (the first `count` events of a fresh ``PresentationStream``).
    static func events(_ count: Int) -> [EventRecord] {
        var stream = PresentationStream()
        return stream.next(count)
    }

    /// A fresh scratch directory (removed by the caller).
    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("paywall-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Removes a store and its `-wal` and `-shm` files (those that exist).
    static func removeStore(_ store: URL) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store.path + suffix) }
    }

    /// Seconds `body` takes.
    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return (ContinuousClock.now - start).seconds
    }

    /// Prints an aligned two-or-more-column table. A row whose label (first cell) has a target in
    /// `targets.json` records its value (second cell) against it, and shows the target in the
    /// table's `target` column when it has one.
    static func printTable(_ title: String, _ rows: [[String]]) {
        var rows = rows
        let targetColumn = rows[0].firstIndex(of: "target")
        for index in rows.indices.dropFirst() where rows[index].count > 1 {
            guard let target = BenchTargets.measured(rows[index][0], rows[index][1]) else { continue }
            if let targetColumn, targetColumn < rows[index].count { rows[index][targetColumn] = target.text }
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        print(title)
        for (index, row) in rows.enumerated() {
            print(
                row.enumerated().map { column, cell in
                    column == 0
                        ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                        : String(repeating: " ", count: widths[column] - cell.count) + cell
                }.joined(separator: "  "))
            if index == 0 { print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")) }
        }
    }

    static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f", Double(count) / seconds) }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
