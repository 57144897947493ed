import Foundation
import PaywallLock

/// One collector per store: an exclusive `flock` on `<database>-serve.lock`, held for the life of
/// the process (the system releases it when the process ends, however it ends), with a line naming
/// its holder (process id, listen address, start time) for the message a second `serve` gets.
/// Two collectors on one store would each answer 200 for their own commits while contending for
/// the write lock, and the second would checkpoint and sync under the first.
public final class CollectorLock: Sendable {
    /// The lock file's path.
    public let path: String
    private let lock: FileLock

    /// Takes the lock for the store at `databasePath`, writing `holder` (who takes it) into the file.
    ///
    /// - Throws: ``CollectorError/anotherCollector(holder:)`` naming the holder when another process
    ///   has it; ``CollectorError/lockFile(path:reason:)`` when the file cannot be opened.
    public init(databasePath: String, holder: String) throws(CollectorError) {
        path = Self.path(databasePath)
        do throws(FileLock.Failure) {
            lock = try FileLock(path: path)
        } catch {
            switch error {
            case .cannotOpen(let reason):
                throw .lockFile(path: path, reason: reason)
            case .held(let contents):
                let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
                throw .anotherCollector(holder: text.isEmpty ? "another process" : text)
            }
        }
        lock.write(holder + "\n")
    }

    /// Whether a collector holds the lock for the store at `databasePath` now (a report then
    /// writes its rollups in small transactions). Takes nothing: a shared try, released at once.
    public static func isHeld(databasePath: String) -> Bool {
        FileLock.isHeld(path: path(databasePath))
    }

    private static func path(_ databasePath: String) -> String { databasePath + "-serve.lock" }
}
