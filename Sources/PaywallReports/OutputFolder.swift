import Foundation
import PaywallCore
import PaywallLock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Publishes a set of report files all or nothing, so a reader of the destination never sees files of
/// two runs together, even when a run is killed at any moment:
///
/// ```
/// <out>/runs/000007-20261201T021500Z/   one folder per complete run (the CSVs, report.html, run.json)
/// <out>/runs/.partial-<pid>-<n>/         the staging folder of a run in progress
/// <out>/current -> runs/000007-…         the run on show, switched by one rename(2)
/// <out>/encounter_funnel.csv -> current/encounter_funnel.csv   (one link per report file, made once)
/// ```
///
/// A run writes its files into its staging folder; ``commit(last:)`` syncs them, renames the folder to
/// its run id, makes sure every report name at the top level is the link through `current` (these
/// links never change afterwards), then points `current` at the new run with a `rename(2)` of a new
/// link over it. Until that rename the previous run is what every path shows; after it, the new one.
/// The run that was current before is kept (a reader that resolved `current` just before the switch
/// still finds all of its files); older runs are removed. One run at a time writes into a folder: it
/// holds `flock(runs/.lock)` from start to end (released by the system when a run is killed), so
/// the staging folders and never-shown runs found under `runs/` at the start were left by killed runs,
/// and are removed. Nothing else in the destination is touched.
final class OutputFolder {
    /// The destination folder (`--out`).
    let destination: URL
    /// The staging folder.
    let staging: URL
    /// This run's id, the name its folder gets under `runs/`.
    private(set) var runID: String
    private var files: [String] = []
    private var createdFolders: [String] = []
    private var finished = false
    /// The lock on `runs/.lock`, nil once released.
    private var lock: FileLock?
    /// The descriptor holding `flock(runs/.lock)`, or -1 once released (read by tests).
    var lockDescriptor: Int32 { lock?.descriptor ?? -1 }
    /// The names of the files staged so far.
    var stagedFiles: [String] { files }

    static let runsFolder = "runs"
    static let currentLink = "current"
    static let lockFile = ".lock"

    /// Creates the staging folder under `<destination>/runs/`, creating the folders as needed, and
    /// removes what killed runs left.
    ///
    /// - Parameter startedAt: the run's start (Unix ms), shown in the run id.
    /// - Throws: ``ReportError/cannotCreateOutput(path:reason:)``.
    init(destination path: String, startedAt: Int64 = 0) throws {
        destination = URL(fileURLWithPath: path).standardizedFileURL
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: destination.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ReportError.cannotCreateOutput(path: destination.path, reason: "it exists and is not a folder")
        }
        let runs = destination.appendingPathComponent(Self.runsFolder)
        var created: [String] = []
        let needed = [destination.deletingLastPathComponent(), destination, runs]
        for folder in needed where !manager.fileExists(atPath: folder.path) {
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw ReportError.cannotCreateOutput(path: folder.path, reason: OutputFolder.reason(error))
            }
            created.append(folder.path)
        }
        if manager.fileExists(atPath: runs.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw ReportError.cannotCreateOutput(path: runs.path, reason: "it exists and is not a folder")
        }
        // One run at a time per folder: the lock goes with the process, so a killed run never blocks.
        let lock: FileLock
        do throws(FileLock.Failure) {
            lock = try FileLock(path: runs.appendingPathComponent(Self.lockFile).path, permissions: 0o644)
        } catch {
            switch error {
            case .cannotOpen(let reason):
                throw ReportError.cannotCreateOutput(
                    path: runs.appendingPathComponent(Self.lockFile).path, reason: reason)
            case .held:
                throw ReportError.outputBusy(path: destination.path)
            }
        }
        self.lock = lock
        // Holding the lock, whatever staging or never-shown run is under runs/ was left by a killed run.
        Self.removeLeftovers(in: runs.path, current: Self.currentRunName(destination))
        Self.removeStaleLinks(in: destination.path)
        Self.removeLegacyStaging(beside: destination)
        var attempt = 0
        while true {
            let candidate = runs.appendingPathComponent(".partial-\(getpid())-\(attempt)")
            if mkdir(candidate.path, 0o755) == 0 {
                staging = candidate
                break
            }
            if errno != EEXIST || attempt > 1000 {
                let reason = String(cString: strerror(errno))
                lock.release()
                throw ReportError.cannotCreateOutput(path: candidate.path, reason: reason)
            }
            attempt += 1
        }
        createdFolders = created
        runID = Self.runID(sequence: Self.highestSequence(in: runs.path) + 1, startedAt: startedAt)
    }

    deinit {
        discard()
        releaseLock()
    }

    /// Releases the folder's lock now (``FileLock/release()`` unlocks before it closes, so a child
    /// process forked meanwhile does not keep the folder locked after this run returned).
    private func releaseLock() {
        lock?.release()
        lock = nil
    }

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

    /// Publishes the staged files as the current run (see the type's description). `last` is
    /// accepted for callers that name the file written last (`run.json`); the whole set appears at once.
    ///
    /// - Throws: ``ReportError``; before the switch of `current` the destination shows the previous
    ///   run as before (a folder in the way of a top-level link fails the run before anything is published).
    func commit(last: String? = nil) throws {
        let runs = destination.appendingPathComponent(Self.runsFolder)
        let current = destination.appendingPathComponent(Self.currentLink).path
        for name in files + [Self.currentLink] {
            var info = stat()
            let target = destination.appendingPathComponent(name).path
            if lstat(target, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                throw ReportError.cannotCreateOutput(
                    path: target, reason: "a folder is in the way of the report's link")
            }
        }
        for name in files { Self.sync(staging.appendingPathComponent(name).path) }
        Self.sync(staging.path)
        // The run's folder: the next free sequence number (another range report may have taken one).
        var sequence = Self.highestSequence(in: runs.path) + 1
        while true {
            let startedAt = runID.split(separator: "-").last.map(String.init) ?? ""
            runID = Self.runID(sequence: sequence, stamp: startedAt)
            if rename(staging.path, runs.appendingPathComponent(runID).path) == 0 { break }
            guard errno == EEXIST || errno == ENOTEMPTY, sequence < 1_000_000_000 else {
                throw ReportError.io(
                    path: runs.appendingPathComponent(runID).path, reason: String(cString: strerror(errno)))
            }
            sequence += 1
        }
        finished = true
        files.removeAll()
        Self.sync(runs.path)
        let published = try FileManager.default.contentsOfDirectory(atPath: runs.appendingPathComponent(runID).path)
        // Links through `current` for every report name, made before the switch: on a first run they
        // point at nothing until `current` exists; an old layout's files give way to them one by one.
        for name in published.sorted() {
            try Self.replaceLink(at: destination.appendingPathComponent(name).path, with: "\(Self.currentLink)/\(name)")
        }
        let previous = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
        try Self.replaceLink(at: current, with: "\(Self.runsFolder)/\(runID)")
        Self.sync(destination.path)
        removeOldRuns(in: runs.path, previous: previous.map { URL(fileURLWithPath: $0).lastPathComponent })
        releaseLock()
    }

    /// Removes the staging folder and whatever it still holds (and the folders this run created).
    func discard() {
        guard !finished else { return }
        finished = true
        for name in files { unlink(staging.appendingPathComponent(name).path) }
        files.removeAll()
        rmdir(staging.path)
        if !createdFolders.isEmpty {
            unlink(destination.appendingPathComponent(Self.runsFolder).appendingPathComponent(Self.lockFile).path)
        }
        for folder in createdFolders.reversed() { rmdir(folder) }
    }

    /// The folder of the run on show (through `current`), or `nil` before the first run.
    var currentRun: URL? {
        guard
            let target = try? FileManager.default.destinationOfSymbolicLink(
                atPath: destination.appendingPathComponent(Self.currentLink).path)
        else { return nil }
        return destination.appendingPathComponent(target)
    }

    static func reason(_ error: any Error) -> String {
        (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
    }
}

extension OutputFolder {
    /// Whether every staged file (but `except`) already exists in the current run with the same bytes.
    func matchesDestination(except: Set<String>) throws -> Bool {
        guard let current = currentRun else { return false }
        for name in stagedFiles where !except.contains(name) {
            let staged = FileManager.default.contents(atPath: staging.appendingPathComponent(name).path)
            let existing = FileManager.default.contents(atPath: current.appendingPathComponent(name).path)
            if staged == nil || staged != existing { return false }
        }
        return true
    }
}
