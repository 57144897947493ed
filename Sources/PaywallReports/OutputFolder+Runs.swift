import Foundation
import PaywallCore
import PaywallOutput

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OutputFolder {
    /// `000007-20261201T021500Z`: the sequence number (for order), then the start time in UTC.
    static func runID(sequence: Int, startedAt: Int64) -> String {
        var seconds = time_t(startedAt / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        return runID(sequence: sequence, stamp: stamp)
    }

    static func runID(sequence: Int, stamp: String) -> String { String(format: "%06d", sequence) + "-" + stamp }

    /// The sequence number of a run folder's name, `nil` for anything else.
    static func sequence(of name: String) -> Int? {
        guard !name.hasPrefix("."), let dash = name.firstIndex(of: "-") else { return nil }
        return Int(name[..<dash])
    }

    /// The highest run sequence number under `runs` (0 when none).
    static func highestSequence(in runs: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? []
        return names.compactMap(sequence(of:)).max() ?? 0
    }

    /// Makes `path` a symbolic link to `destination`, replacing what is there with one `rename(2)`.
    static func replaceLink(at path: String, with destination: String) throws {
        if (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == destination { return }
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).link-\(getpid())"
        ).path
        unlink(temporary)
        guard symlink(destination, temporary) == 0 else {
            throw ReportError.cannotCreateOutput(path: path, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw ReportError.cannotCreateOutput(path: path, reason: reason)
        }
    }

    /// Flushes a file or folder to disk (best effort: a failure here is not the run's failure).
    static func sync(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    /// Removes the runs older than the one that was current before this run (that one and this run
    /// stay); a run renamed into place by a run killed before its switch goes with the next run.
    func removeOldRuns(in runs: String, previous: String?) {
        guard let previous, let keepFrom = Self.sequence(of: previous) else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? [] {
            guard let sequence = Self.sequence(of: name), sequence < keepFrom, name != runID else { continue }
            try? FileManager.default.removeItem(atPath: runs + "/" + name)
        }
    }

    /// The name of the run folder `current` points at, `nil` before the first run.
    static func currentRunName(_ destination: URL) -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(
            atPath: destination.appendingPathComponent(currentLink).path))
            .map { URL(fileURLWithPath: $0).lastPathComponent }
    }

    /// Removes what killed runs left under `runs` (called with the folder's lock held): every staging
    /// folder, every run folder newer than the current run (renamed into place, never shown), and the
    /// runs older than the one before the current run (a run killed before its clean-up keeps them).
    static func removeLeftovers(in runs: String, current: String?) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? []
        let shown = current.flatMap(sequence(of:)) ?? 0
        let before = names.compactMap(sequence(of:)).filter { $0 < shown }.max() ?? 0
        for name in names {
            let sequence = sequence(of: name)
            let leftover = name.hasPrefix(".partial-") || (sequence.map { $0 > shown || $0 < before } ?? false)
            if leftover { try? FileManager.default.removeItem(atPath: runs + "/" + name) }
        }
    }

    /// Removes the temporary links (`.NAME.link-<pid>`) that a run killed during a switch left in `folder`.
    static func removeStaleLinks(in folder: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(".") {
            guard let range = name.range(of: ".link-", options: .backwards), let pid = Int32(name[range.upperBound...]),
                pid > 0, !ProcessLiveness.isRunning(pid)
            else { continue }
            var info = stat()
            if lstat(folder + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK {
                unlink(folder + "/" + name)
            }
        }
    }

    /// Removes the staging folders of the previous layout (`<parent>/.<name>.partial-<pid>-<n>`, one
    /// per killed run) whose process no longer runs.
    static func removeLegacyStaging(beside destination: URL) {
        let parent = destination.deletingLastPathComponent().path
        let prefix = ".\(destination.lastPathComponent).partial-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count).split(separator: "-").first ?? ""), pid > 0,
                !ProcessLiveness.isRunning(pid)
            else { continue }
            var info = stat()
            guard lstat(parent + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { continue }
            try? FileManager.default.removeItem(atPath: parent + "/" + name)
        }
    }
}
