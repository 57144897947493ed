import PaywallLock

/// Whether the holder of a delivery lease is still alive: a pass takes an exclusive `flock` on
/// `<database>-<lease key>.lock` before it writes its lease row, writes its owner name into that
/// file, holds the `flock` while it runs and removes the file when it gives the lease back. The
/// system drops a `flock` when its process ends, however it ends (a SIGKILL, a crash, an app killed
/// in the background), so a later pass that gets the `flock` while the file is still there knows
/// that every owner the file names is gone, and may take such an owner's lease at once instead of
/// waiting for it to expire (120 s for the uploader).
///
/// The file names its pass and, when that pass took over a gone owner's lease, that owner too: a
/// pass killed after writing the file but before committing its row leaves the row of the owner
/// it was taking over, which the file still names. A lease whose owner the file does not name (one
/// taken after its expiry by a pass that could not get the `flock` because its first holder still
/// ran, one written by hand) is left to expire as before, so a live pass is never taken over. Where
/// the lock file cannot be opened (a store in memory, a folder that cannot be written) the lease
/// works by expiry alone.
///
/// Design note: a pass holds the `flock` only while it runs. On iOS a pass runs inside a background
/// task, so the app is not suspended holding it (the system ends an app suspended with a lock in a
/// shared container).
final class LeaseLiveness: Sendable {
    /// The lock file's path.
    let path: String
    /// The lock this value holds.
    private let lock: FileLock
    /// The owners the file named when the `flock` was taken: all gone.
    let gone: Set<String>

    /// Takes the `flock` of `path` without waiting and reads the owners the file names; nil when
    /// another process (or another pass of this one) holds it or the file cannot be opened.
    init?(path: String) {
        for _ in 0..<3 {
            guard let lock = try? FileLock(path: path) else { return nil }
            // The file may have been removed (a pass giving its lease back) between open and flock:
            // a lock on a file no longer at `path` proves nothing to anyone, so open it again.
            guard lock.isAtPath else {
                lock.release()
                continue
            }
            self.path = path
            self.lock = lock
            gone = Set(lock.contents().split(separator: "\n").map(String.init))
            return
        }
        return nil
    }

    /// The lock file of the lease `key` of the database at `databasePath`, or nil for a store
    /// without a file.
    static func lockPath(databasePath: String, key: String) -> String? {
        guard !databasePath.isEmpty, databasePath != ":memory:", !databasePath.hasPrefix("file:") else { return nil }
        return databasePath + "-" + key + ".lock"
    }

    /// Writes the owners the file vouches for: the pass holding it, and the gone owner whose lease
    /// it is taking over (if any).
    func name(_ owners: [String]) {
        lock.write(owners.joined(separator: "\n"))
    }

    /// Gives the lock up without having taken the lease: the file is left naming the gone owners it
    /// named when the lock was taken (a pass that named itself and then failed to write its row is
    /// not gone, and must not be vouched for), or is removed when it named no one.
    func abandon() {
        if gone.isEmpty {
            lock.removeAndRelease()
        } else {
            name(gone.sorted())
            lock.release()
        }
    }

    /// Removes the file and gives the lock up: the pass gave its lease back.
    func remove() {
        lock.removeAndRelease()
    }

    /// The locks this process's passes hold, by lock path and owner.
    static let held = Lock<[String: LeaseLiveness]>([:])
}
