import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL

    /// Creates the directory; `prefix` names it after the suite that uses it.
    public init(prefix: String = "paywall-tests") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { remove() }

    /// Removes the directory now (call it in a `defer` to keep a local directory alive to the end of its scope).
    public func remove() { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` (UTF-8) to the file `name` inside the directory; returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
        return path(name)
    }

    /// Every regular file under the directory, recursively and sorted (symbolic links are not followed).
    public func allFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var files: [String] = []
        for case let relative as String in walker {
            let full = path(relative)
            let type = (try? FileManager.default.attributesOfItem(atPath: full)[.type]) as? FileAttributeType
            if type == .typeRegular { files.append(full) }
        }
        return files.sorted()
    }
}

/// The POSIX permission bits of the file at `path` (e.g. `0o600`).
public func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}
