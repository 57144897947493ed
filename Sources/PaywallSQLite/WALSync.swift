import CSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes a WAL database's commits durable from another thread: `fdatasync` of its `-wal` file.
///
/// A writer that runs with `synchronous = NORMAL` commits without syncing (the frames are written,
/// not flushed). Once ``sync()`` returns, every commit that returned before it was called is on
/// disk, exactly as with `synchronous = FULL`: the sync covers all the file's data written so far,
/// its size included. The collector uses this to overlap one group's sync with the next group's
/// inserts (design note: `CommitQueue`).
///
/// The descriptor is opened on the first sync (and the folder synced, so a WAL file that was just
/// created is found after a power loss). The file synced must be the one SQLite writes: the
/// database's device and inode are taken when the sync is made (right after the store is opened),
/// and the WAL's at the first sync; whenever either path names another file, or none, the sync
/// fails. A store deleted and created anew at the same path by another process is then never
/// reported durable: SQLite keeps writing the unlinked files it has open, and syncing the new
/// ones by path would acknowledge commits that vanish with the process.
// @unchecked Sendable: `lock` guards `descriptor` and `identity`.
public final class WALSync: @unchecked Sendable {
    /// The `-wal` file's path.
    public let path: String
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var identity: (device: UInt64, inode: UInt64)?

    /// A sync for the database at `databasePath` (its WAL is `databasePath` + `-wal`).
    public init(databasePath: String) {
        path = databasePath + "-wal"
        self.databasePath = databasePath
        var status = stat()
        database = stat(databasePath, &status) == 0 ? (UInt64(status.st_dev), UInt64(status.st_ino)) : nil
    }

    /// The database file's path.
    private let databasePath: String
    /// The database file's device and inode when the sync was made.
    private let database: (device: UInt64, inode: UInt64)?

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Flushes the WAL file to disk.
    ///
    /// - Throws: ``StorageError`` (`.ioError`, with the system's reason) when the file cannot be
    ///   opened or synced: then nothing may be reported as durable.
    public func sync() throws {
        lock.lock()
        defer { lock.unlock() }
        var current = stat()
        if let database {
            guard stat(databasePath, &current) == 0, (UInt64(current.st_dev), UInt64(current.st_ino)) == database
            else {
                throw failure(
                    "the database file was removed or replaced by another file since it was opened, so the file "
                        + "written is not the one at its path; restart the process on the store", system: false)
            }
        }
        guard stat(path, &current) == 0 else { throw failure("the WAL file is missing") }
        let now = (UInt64(current.st_dev), UInt64(current.st_ino))
        if let identity, identity != now {
            throw failure(
                "the WAL file was replaced by another file since it was first synced, so the file written is not "
                    + "the one at its path; restart the process on the store", system: false)
        }
        if descriptor < 0 {
            identity = nil
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure("the WAL file could not be opened") }
            try syncFolder()
            identity = now  // only once the folder is synced: a failed folder sync is retried
        }
        guard Self.flush(descriptor) == 0 else { throw failure("the WAL file could not be synced") }
    }

    /// `fdatasync` where the system has it (Linux); `fsync` elsewhere (Darwin declares no `fdatasync`).
    private static func flush(_ descriptor: Int32) -> Int32 {
        #if os(Linux)
            fdatasync(descriptor)
        #else
            fsync(descriptor)
        #endif
    }

    private func syncFolder() throws {
        let folder = (path as NSString).deletingLastPathComponent
        let handle = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { throw failure("the store's folder could not be opened") }
        defer { close(handle) }
        guard fsync(handle) == 0 else { throw failure("the store's folder could not be synced") }
    }

    private func failure(_ what: String, system: Bool = true) -> StorageError {
        let reason = system ? " (\(String(cString: strerror(errno))))" : ""
        return StorageError(code: SQLITE_IOERR, message: "\(what)\(reason)", path: path, kind: .ioError)
    }
}
