import Foundation
import Testing

/// Compares text with a file under Golden/; on mismatch the failure shows a line diff and
/// the first differing character. `UPDATE_GOLDEN=1 swift test` rewrites the files.
enum GoldenFile {
    static func directory() -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    static func check(_ actual: String, against name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory().appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        if expected != actual {
            Issue.record("golden file \(name) differs:\n\(diff(expected: expected, actual: actual))", sourceLocation: sourceLocation)
        }
    }

    /// A minimal line diff plus the first differing position with context.
    static func diff(expected: String, actual: String) -> String {
        let old = expected.components(separatedBy: "\n"), new = actual.components(separatedBy: "\n")
        var lines: [String] = []
        for index in 0..<max(old.count, new.count) {
            let left = index < old.count ? old[index] : nil, right = index < new.count ? new[index] : nil
            if left == right { continue }
            if let left { lines.append("- \(left)") }
            if let right { lines.append("+ \(right)") }
        }
        let a = Array(expected), b = Array(actual)
        var position = 0
        while position < min(a.count, b.count), a[position] == b[position] { position += 1 }
        let window = { (chars: [Character]) in String(chars[max(0, position - 30)..<min(chars.count, position + 30)]) }
        lines.append("first difference at character \(position): expected …\(window(a))… got …\(window(b))…")
        return lines.joined(separator: "\n")
    }
}
