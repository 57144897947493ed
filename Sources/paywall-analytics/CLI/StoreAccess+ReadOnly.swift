import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore

/// What a command does with a store this user cannot write.
enum ReadOnlyUse {
    /// Read it read-only: the command only reads (stats, export of events, quarantine, dead letters).
    case read
    /// Refuse it (exit 73); the text says what the command would write, e.g. "report keeps its rollups in the store".
    case refuse(String)
}

extension StoreAccess {
    /// Whether this user can write the store: the file, and either its folder or both its `-wal`
    /// and `-shm` files (a WAL store needs them). Checked with `access(2)`, so root is held back by
    /// `chattr +i` but not by mode bits, as SQLite would be.
    static func isWritable(_ path: String) -> Bool {
        guard access(path, W_OK) == 0 else { return false }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if access(folder, W_OK) == 0 { return true }
        return access(path + "-wal", W_OK) == 0 && access(path + "-shm", W_OK) == 0
    }

    /// Opens a store this user cannot write for reading, creating nothing beside it: immutable
    /// (no locks, no `-wal`/`-shm`) when it has neither file, so everything is in the main file;
    /// read-only through its existing `-wal` and `-shm` otherwise. Refuses it for `.refuse`.
    static func openReadOnly(_ path: String, use: ReadOnlyUse, now: Now) throws(CLIError) -> EventStore {
        if case .refuse(let why) = use {
            throw CLIError(
                .cannotCreateOutput,
                "\(path) is read-only for this user (the file, or the folder it is in, cannot be "
                    + "written), and \(why). Make the file and its folder writable by this user, run as the store's owner, or copy "
                    + "the store and pass --db COPY; `stats` and `export events|quarantine|dead-letters` read it as it is."
            )
        }
        let sidecars = ["-wal", "-shm"].filter { FileManager.default.fileExists(atPath: path + $0) }
        do {
            let options: OpenOptions = sidecars.isEmpty ? .immutableSnapshot : .readOnly
            return EventStore(connection: try Schema.open(path: path, options: options), now: now)
        } catch let error as StorageError where !sidecars.isEmpty && [.readOnly, .cannotOpen].contains(error.kind) {
            throw CLIError(
                .cannotCreateOutput,
                "\(path) is read-only for this user and its \(sidecars.joined(separator: " and ")) "
                    + "file\(sidecars.count == 1 ? "" : "s") hold\(sidecars.count == 1 ? "s" : "") changes SQLite cannot read without "
                    + "write access. Run any command once as the store's owner (it folds them into the file), then read it again."
            )
        } catch {
            throw map(error)
        }
    }
}
