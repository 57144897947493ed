import Foundation
import PaywallTestSupport
import Testing

@testable import PaywallOutput

/// A staged `--out` file is synced to disk while it is written (``StagedWriteback``), and still
/// arrives whole, or not at all, when it is committed or discarded.
struct OutputFileWritebackTests {
    let folder = TemporaryDirectory(prefix: "output-writeback")

    /// 1 MiB chunks whose bytes say which chunk they are.
    static func chunk(_ number: Int) -> [UInt8] {
        (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ number) }
    }

    @Test func aLargeFileIsSyncedWhileWrittenAndArrivesWhole() throws {
        // Given an existing file, replaced by a 24 MiB output
        let path = folder.path("events.csv")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let file = try OutputFile(path: path)
        for number in 0..<16 { try file.write(Self.chunk(number)) }
        // When 16 MiB are written, Then the background writeback syncs part of the file before the commit
        #expect(
            Eventually.holdsBlocking(every: .milliseconds(10)) { file.backgroundSyncedBytes >= 8 << 20 },
            "no background sync before the commit")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old", "the old file stays until the commit")
        for number in 16..<24 { try file.write(Self.chunk(number)) }
        try file.commit()
        // And the committed file holds every chunk in order
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.count == 24 << 20)
        #expect(written == Data((0..<24).flatMap(Self.chunk)))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.contains("partial") }
                .isEmpty)
    }

    @Test func aDiscardedLargeFileLeavesTheOldOneAndNoStagingFile() throws {
        let path = folder.path("events.csv")
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        let file = try OutputFile(path: path)
        for number in 0..<12 { try file.write(Self.chunk(number)) }
        file.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["events.csv"])
    }
}
