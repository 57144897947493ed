import Foundation

/// Compares output with golden files and renders a readable diff when they differ.
public enum Golden {
    /// The package root, found from a test file's `#filePath` (the folder holding Package.swift).
    public static func packageRoot(from filePath: String = #filePath) -> URL {
        var url = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return url
    }

    /// The `Golden/` folder beside the test file at `filePath`.
    public static func folder(beside filePath: String = #filePath) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent("Golden")
    }

    /// `nil` when `actual` equals the golden file at `url`, else a message naming it with the diff.
    /// With `UPDATE_GOLDEN=1` in the environment the file is rewritten instead (and `nil` returned).
    ///
    /// ```swift
    /// let mismatch = try Golden.mismatch(body, golden: Golden.folder(beside: #filePath).appendingPathComponent("body.json"))
    /// #expect(mismatch == nil, "\(mismatch ?? "")")
    /// ```
    public static func mismatch(_ actual: String, golden url: URL) throws -> String? {
        if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
            try actual.write(to: url, atomically: true, encoding: .utf8)
            return nil
        }
        let expected = try String(contentsOf: url, encoding: .utf8)
        return diff(expected: expected, actual: actual).map { "golden file \(url.lastPathComponent) differs:\n\($0)" }
    }

    /// `nil` when `actual` equals `expected`, else a unified-style diff of the first differing
    /// lines with line numbers (`-` expected, `+` actual).
    public static func diff(expected: String, actual: String, context: Int = 3, limit: Int = 40) -> String? {
        guard expected != actual else { return nil }
        let old = expected.components(separatedBy: "\n")
        let new = actual.components(separatedBy: "\n")
        var first = 0
        while first < min(old.count, new.count), old[first] == new[first] { first += 1 }
        var oldEnd = old.count
        var newEnd = new.count
        while oldEnd > first, newEnd > first, old[oldEnd - 1] == new[newEnd - 1] {
            oldEnd -= 1
            newEnd -= 1
        }
        var lines = ["@@ line \(first + 1) @@"]
        for index in max(0, first - context)..<first { lines.append("  \(old[index])") }
        for index in first..<oldEnd { lines.append("- \(old[index])") }
        for index in first..<newEnd { lines.append("+ \(new[index])") }
        for index in oldEnd..<min(old.count, oldEnd + context) { lines.append("  \(old[index])") }
        if lines.count > limit { lines = Array(lines.prefix(limit)) + ["… (\(lines.count - limit) more lines)"] }
        return lines.joined(separator: "\n")
    }
}
