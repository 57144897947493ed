import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One collector per store: an exclusive `flock` on `<database>-serve.lock`, held for the life of
/// the process (the system releases it when the process ends, however it ends), with a line naming
/// its holder (process id, listen address, start time) for the message a second `serve` gets.
/// Two collectors on one store would each answer 200 for their own commits while contending for
/// the write lock, and the second would checkpoint and sync under the first.
public final class CollectorLock: Sendable {
    /// The lock file's path.
    public let path: String
    private let descriptor: Int32

    /// Takes the lock for the store at `databasePath`, writing `holder` (who takes it) into the file.
    ///
    /// - Throws: ``CollectorError/anotherCollector(holder:)`` naming the holder when another process
    ///   has it; ``CollectorError/lockFile(path:reason:)`` when the file cannot be opened.
    public init(databasePath: String, holder: String) throws(CollectorError) {
        path = databasePath + "-serve.lock"
        let handle = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard handle >= 0 else {
            throw .lockFile(path: path, reason: String(cString: strerror(errno)))
        }
        guard flock(handle, LOCK_EX | LOCK_NB) == 0 else {
            var bytes = [UInt8](repeating: 0, count: 512)
            let count = pread(handle, &bytes, bytes.count, 0)
            close(handle)
            let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw .anotherCollector(holder: text.isEmpty ? "another process" : text)
        }
        let line = Array((holder + "\n").utf8)
        _ = ftruncate(handle, 0)
        _ = line.withUnsafeBytes { pwrite(handle, $0.baseAddress, $0.count, 0) }
        descriptor = handle
    }

    /// Whether a collector holds the lock for the store at `databasePath` now (a report then
    /// writes its rollups in small transactions). Takes nothing: a shared try, released at once.
    public static func isHeld(databasePath: String) -> Bool {
        let handle = open(databasePath + "-serve.lock", O_RDONLY | O_CLOEXEC)
        guard handle >= 0 else { return false }
        defer { close(handle) }
        guard flock(handle, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        _ = flock(handle, LOCK_UN)
        return false
    }

    deinit { close(descriptor) }
}
