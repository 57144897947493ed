import Foundation
import PaywallSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes erased bytes leave the files (``UserErasure``, opt-out): checkpoints the WAL into the
/// database file and truncates it to zero bytes, then searches the database file for the erased
/// ids and rebuilds it (`VACUUM`) when a copy is left in free space from writes made before.
enum SecureWipe {
    /// Checkpoints and truncates the WAL; rebuilds the file when one of `needles` is still in it.
    ///
    /// - Returns: whether the file was rebuilt.
    /// - Throws: `StorageError` `.busy` when another connection's reader kept the WAL from being
    ///   checkpointed whole (what was erased is committed; run the erasure again to finish).
    static func clean(_ connection: Connection, needles: [[UInt8]]) throws -> Bool {
        try checkpoint(connection)
        guard !needles.isEmpty, try fileContains(connection.path, needles) else { return false }
        try connection.execute("VACUUM")
        try checkpoint(connection)
        return true
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`, failing when it could not complete.
    static func checkpoint(_ connection: Connection) throws {
        guard try connection.scalar("PRAGMA journal_mode")?.string == "wal" else { return }
        let busy = try connection.withDatabase { db in
            try db.all("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int64(at: 0) }.first ?? 0
        }
        guard busy == 0 else {
            throw StorageError(
                code: 0,
                message: """
                    the erasure is committed, but another program was reading the store, so the write-ahead log \
                    (\(connection.path)-wal) could not be checkpointed and truncated and may still hold the erased rows' \
                    old pages. Run the same command again once that program has finished reading (it is safe to repeat)
                    """, path: connection.path, kind: .busy)
        }
    }

    /// Whether any of `needles` occurs in the database file, its `-wal` or its `-shm`.
    static func fileContains(_ path: String, _ needles: [[UInt8]]) throws -> Bool {
        for file in [path, path + "-wal", path + "-shm"] where try contains(file: file, needles) { return true }
        return false
    }

    /// Whether the file at `path` (missing: no) holds any of `needles`, read in 1 MiB chunks that
    /// overlap by the longest needle.
    static func contains(file path: String, _ needles: [[UInt8]]) throws -> Bool {
        let needles = needles.filter { !$0.isEmpty }
        guard !needles.isEmpty else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return false }
            throw StorageError(
                code: 0, message: "cannot read \(path) to check the erasure: \(String(cString: strerror(errno)))",
                path: path, kind: .ioError)
        }
        defer { close(descriptor) }
        let overlap = needles.map(\.count).max()! - 1
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk + overlap)
        var kept = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + kept, chunk) }
            if got < 0, errno == EINTR { continue }
            if got < 0 {
                throw StorageError(
                    code: 0, message: "cannot read \(path) to check the erasure: \(String(cString: strerror(errno)))",
                    path: path, kind: .ioError)
            }
            let filled = kept + got
            let found = buffer.withUnsafeBytes { bytes in
                needles.contains { needle in Self.find(needle, in: UnsafeRawBufferPointer(rebasing: bytes[0..<filled]))
                }
            }
            if found { return true }
            if got == 0 { return false }
            kept = min(overlap, filled)
            buffer.withUnsafeMutableBytes {
                $0.baseAddress!.copyMemory(from: $0.baseAddress! + filled - kept, byteCount: kept)
            }
        }
    }

    /// Whether `needle` occurs in `bytes` (`memchr` for its first byte, then `memcmp`).
    static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress, needle.count <= bytes.count else { return false }
        return needle.withUnsafeBytes { pattern in
            var offset = 0
            let last = bytes.count - needle.count
            while offset <= last {
                guard let hit = memchr(base + offset, Int32(needle[0]), last - offset + 1) else { return false }
                let position = base.distance(to: UnsafeRawPointer(hit))
                if memcmp(base + position, pattern.baseAddress!, needle.count) == 0 { return true }
                offset = position + 1
            }
            return false
        }
    }
}
