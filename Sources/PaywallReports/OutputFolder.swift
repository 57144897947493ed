import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a set of output files all-or-nothing: files are written into a private staging folder
/// created next to the destination (`<parent>/.<name>.partial-<pid>-<n>`), then renamed one by one
/// into the destination folder once every file is complete. A failure before ``commit(order:)``
/// leaves the destination exactly as it was. Only the files written here are ever replaced; nothing
/// else in the destination (or outside it) is touched.
final class OutputFolder {
    /// The destination folder.
    let destination: URL
    /// The staging folder.
    let staging: URL
    private var files: [String] = []
    /// The names of the files staged so far.
    var stagedFiles: [String] { files }

    /// Creates the staging folder (and the destination's parent must exist or be creatable).
    ///
    /// - Throws: ``ReportError/cannotCreateOutput(path:reason:)``.
    init(destination path: String) throws {
        destination = URL(fileURLWithPath: path).standardizedFileURL
        let parent = destination.deletingLastPathComponent()
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: destination.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ReportError.cannotCreateOutput(path: destination.path, reason: "it exists and is not a folder")
        }
        do {
            try manager.createDirectory(at: parent, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotCreateOutput(path: parent.path, reason: OutputFolder.reason(error))
        }
        var attempt = 0
        while true {
            let candidate = parent.appendingPathComponent(".\(destination.lastPathComponent).partial-\(getpid())-\(attempt)")
            if mkdir(candidate.path, 0o700) == 0 { staging = candidate; break }
            if errno != EEXIST || attempt > 1000 {
                throw ReportError.cannotCreateOutput(path: candidate.path, reason: String(cString: strerror(errno)))
            }
            attempt += 1
        }
    }

    deinit { discard() }

    /// Opens a new file `name` in the staging folder and returns its descriptor (the caller closes it).
    func create(_ name: String) throws -> Int32 {
        let path = staging.appendingPathComponent(name).path
        let descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ReportError.cannotCreateOutput(path: path, reason: String(cString: strerror(errno)))
        }
        files.append(name)
        return descriptor
    }

    /// Writes `data` as file `name` in the staging folder.
    func write(_ name: String, _ data: Data) throws {
        let descriptor = try create(name)
        defer { close(descriptor) }
        let path = staging.appendingPathComponent(name).path
        try data.withUnsafeBytes { try FileIO.writeAll(descriptor, $0, path: path) }
    }

    /// Syncs every staged file, creates the destination if needed and renames the files into it,
    /// `last` (e.g. `run.json`) after all others; then removes the staging folder.
    func commit(last: String? = nil) throws {
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: destination, withIntermediateDirectories: true)
        } catch {
            throw ReportError.cannotCreateOutput(path: destination.path, reason: OutputFolder.reason(error))
        }
        let ordered = files.filter { $0 != last } + files.filter { $0 == last }
        for name in ordered {
            var isDirectory: ObjCBool = false
            let target = destination.appendingPathComponent(name).path
            if manager.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
                throw ReportError.cannotCreateOutput(path: target, reason: "a folder is in the way of the file")
            }
        }
        for name in ordered {
            let from = staging.appendingPathComponent(name).path
            let descriptor = open(from, O_RDONLY | O_CLOEXEC)
            if descriptor >= 0 { _ = fsync(descriptor); close(descriptor) }
        }
        for name in ordered {
            let from = staging.appendingPathComponent(name).path
            let to = destination.appendingPathComponent(name).path
            guard rename(from, to) == 0 else {
                throw ReportError.io(path: to, reason: String(cString: strerror(errno)))
            }
        }
        files.removeAll()
        discard()
    }

    /// Removes the staging folder and whatever it still holds.
    func discard() {
        for name in files { unlink(staging.appendingPathComponent(name).path) }
        files.removeAll()
        rmdir(staging.path)
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}

extension OutputFolder {
    /// Whether every staged file (but `except`) already exists in the destination with the same bytes.
    func matchesDestination(except: Set<String>) throws -> Bool {
        for name in stagedFiles where !except.contains(name) {
            let staged = FileManager.default.contents(atPath: staging.appendingPathComponent(name).path)
            let existing = FileManager.default.contents(atPath: destination.appendingPathComponent(name).path)
            if staged == nil || staged != existing { return false }
        }
        return true
    }
}
