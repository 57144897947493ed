import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One output file at a path the user named (`--out FILE`), written without ever putting something
/// else in place of what is there:
///
/// - a regular file (or a new path) is written to a staging file beside it
///   (`.<name>.partial-<pid>-<n>`) and renamed over it on ``commit()``, so a failure leaves the old
///   file intact; an existing file keeps its permission bits and, where the system allows, its owner;
/// - a character device (`/dev/null`, a terminal) or a FIFO is written straight to, never replaced;
/// - a symbolic link is written through: the file it points to is replaced (staged beside the
///   target), or the device or FIFO it points to is written to; the link stays;
/// - one of this process's descriptors (`/dev/stdout`, `/proc/self/fd/N`, `/dev/fd/N`, or a link to
///   one) is written to as the descriptor it is (a file the shell opened for appending is appended to);
/// - a folder, a block device, a socket or a link to a missing file is refused
///   (``OutputFileError/Kind/cannotCreate``).
///
/// Staging files left by killed processes (their process id no longer runs) are removed by the next
/// write to the same file.
///
/// ```swift
/// let file = try OutputFile(path: "events.csv")
/// try writeAll(file.descriptor, bytes)
/// try file.commit()
/// ```
public final class OutputFile {
    /// The path as given.
    public let path: String
    /// The descriptor to write to (owned by this object).
    public let descriptor: Int32
    /// The staging file and the file it replaces on commit; `nil` when written in place.
    private let replacement: (staging: String, target: String)?
    private var isOpen = true
    /// Syncs a staged file's data while it is being written; `nil` when written in place.
    private var writeback: StagedWriteback?
    /// How much of a staged file the background writeback has synced so far (for tests).
    var backgroundSyncedBytes: Int { Int(writeback?.syncedBytes ?? 0) }

    /// Opens the output for writing (see the type's rules).
    ///
    /// - Throws: ``OutputFileError``.
    public init(path: String) throws {
        self.path = path
        if let number = Self.ownDescriptor(behind: path) {
            // `/dev/stdout`, `/proc/self/fd/N`, `/dev/fd/N` (or a link to one): the descriptor this process
            // already has, as the shell set it up (an appending log stays appended to, nothing replaced).
            let duplicate = fcntl(number, F_DUPFD_CLOEXEC, 0)
            guard duplicate >= 0 else {
                let reason = "descriptor \(number) is not open (\(Self.systemReason()))"
                throw OutputFileError(.cannotCreate, path: path, reason: reason)
            }
            (descriptor, replacement) = (duplicate, nil)
            return
        }
        var info = stat()
        guard lstat(path, &info) == 0 else {
            guard errno == ENOENT else {
                throw OutputFileError(.cannotCreate, path: path, reason: Self.systemReason())
            }
            (descriptor, replacement) = try Self.stage(target: path, existing: nil, path: path)
            writeback = StagedWriteback(descriptor: descriptor)
            return
        }
        var target = path
        if (info.st_mode & S_IFMT) == S_IFLNK {
            guard stat(path, &info) == 0 else {
                let reason =
                    "it is a symbolic link to a missing file (\(Self.systemReason())); the link was left as it is. "
                    + "Name the file itself"
                throw OutputFileError(.cannotCreate, path: path, reason: reason)
            }
            target = Self.resolved(path) ?? path
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            (descriptor, replacement) = try Self.stage(target: target, existing: info, path: path)
            writeback = StagedWriteback(descriptor: descriptor)
        case S_IFCHR, S_IFIFO:
            let opened = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)
            guard opened >= 0 else { throw OutputFileError(.cannotCreate, path: path, reason: Self.systemReason()) }
            (descriptor, replacement) = (opened, nil)
        case S_IFDIR:
            throw OutputFileError(.cannotCreate, path: path, reason: "it is a folder; name a file inside it")
        default:
            throw OutputFileError(
                .cannotCreate, path: path,
                reason: "it is a block device or a socket; only regular files, "
                    + "character devices and FIFOs are written to, and nothing else is replaced")
        }
    }

    deinit { discard() }

    /// Writes every byte of `bytes`, retrying on `EINTR`.
    ///
    /// - Throws: ``OutputFileError`` (`.io`: a full disk, a device refusing the write).
    public func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes {
                Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw OutputFileError(.io, path: path, reason: Self.systemReason())
            }
            offset += written
        }
    }

    /// Finishes the output: a staged file is synced and renamed over its target; a device or FIFO is
    /// closed.
    ///
    /// - Throws: ``OutputFileError`` (`.io`); the target is then left as it was.
    public func commit() throws {
        guard isOpen else { return }
        isOpen = false
        guard let replacement else {
            if close(descriptor) != 0, errno != EINTR {
                throw OutputFileError(.io, path: path, reason: Self.systemReason())
            }
            return
        }
        let backgroundFailure = writeback?.finish()
        writeback = nil
        if let backgroundFailure {
            close(descriptor)
            unlink(replacement.staging)
            throw OutputFileError(.io, path: path, reason: backgroundFailure)
        }
        if fsync(descriptor) != 0 || close(descriptor) != 0 {
            let reason = Self.systemReason()
            unlink(replacement.staging)
            throw OutputFileError(.io, path: path, reason: reason)
        }
        guard rename(replacement.staging, replacement.target) == 0 else {
            let reason = Self.systemReason()
            unlink(replacement.staging)
            throw OutputFileError(.cannotCreate, path: path, reason: reason)
        }
    }

    /// Abandons the output: a staging file is removed (the target is untouched); a device is closed.
    public func discard() {
        guard isOpen else { return }
        isOpen = false
        _ = writeback?.finish()
        writeback = nil
        close(descriptor)
        if let replacement { unlink(replacement.staging) }
    }

    /// Creates the staging file beside `target`, with the existing file's mode and owner.
    static func stage(target: String, existing: stat?, path: String) throws -> (
        Int32, (staging: String, target: String)?
    ) {
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        let name = url.lastPathComponent
        removeStaleStaging(in: folder, name: name)
        let mode = existing.map { mode_t($0.st_mode & 0o7777) } ?? 0o644
        var attempt = 0
        while true {
            let staging = folder + "/.\(name).partial-\(getpid())-\(attempt)"
            let opened = open(staging, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, mode)
            if opened >= 0 {
                if let existing {
                    // The owner first (which clears set-id bits), then the exact mode, whatever the umask.
                    if existing.st_uid != getuid() || existing.st_gid != getgid() {
                        _ = fchown(opened, existing.st_uid, existing.st_gid)
                    }
                    _ = fchmod(opened, mode)
                }
                return (opened, (staging, target))
            }
            if errno != EEXIST || attempt > 1000 {
                throw OutputFileError(
                    .cannotCreate, path: path, reason: "cannot create a file in \(folder) (\(systemReason()))")
            }
            attempt += 1
        }
    }

    /// Removes `.<name>.partial-<pid>-<n>` files (and the older `<name>.partial-<pid>` form) whose
    /// process no longer runs.
    static func removeStaleStaging(in folder: String, name: String) {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for entry in entries {
            let rest: Substring
            if entry.hasPrefix(".\(name).partial-") {
                rest = entry.dropFirst(name.count + 10)
            } else if entry.hasPrefix("\(name).partial-") {
                rest = entry.dropFirst(name.count + 9)
            } else {
                continue
            }
            guard let pid = Int32(rest.split(separator: "-").first ?? ""), pid > 0,
                !ProcessLiveness.isRunning(pid)
            else { continue }
            var info = stat()
            if lstat(folder + "/" + entry, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                unlink(folder + "/" + entry)
            }
        }
    }

    /// The number N when `path`, or a link on the way from it, is one of this process's descriptors
    /// (`/proc/self/fd/N`, `/proc/<own pid>/fd/N`, `/proc/thread-self/fd/N`, `/dev/fd/N`).
    static func ownDescriptor(behind path: String) -> Int32? {
        let prefixes = ["/proc/self/fd/", "/proc/\(getpid())/fd/", "/proc/thread-self/fd/", "/dev/fd/"]
        var current = URL(fileURLWithPath: path).standardizedFileURL.path
        for _ in 0..<40 {
            for prefix in prefixes where current.hasPrefix(prefix) {
                if let number = Int32(current.dropFirst(prefix.count)), number >= 0 { return number }
            }
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                let next = try? FileManager.default.destinationOfSymbolicLink(atPath: current)
            else { return nil }
            let folder = URL(fileURLWithPath: current).deletingLastPathComponent()
            let hop = next.hasPrefix("/") ? URL(fileURLWithPath: next) : folder.appendingPathComponent(next)
            current = hop.standardizedFileURL.path
        }
        return nil
    }

    /// The path with every symbolic link resolved, or `nil` when it cannot be.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    static func systemReason() -> String { String(cString: strerror(errno)) }
}
