import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

/// The quarantine's identity by exact bytes, at the store: the raw bytes of a line that is not UTF-8
/// are kept with its digest (the upgrade of older stores is in PaywallReportsTests' ExactBytesMigrationTests,
/// which can write every legacy version).
struct QuarantineIdentityStoreTests {
    let directory = TemporaryDirectory()

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let path = directory.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func invalidUTF8IsKeptAsItsBytesAndShownWithEscapes() throws {
        // Given a line holding a lone continuation byte, an overlong encoding and a truncated sequence
        let line: [UInt8] = Array(#"{"source":"a"#.utf8) + [0x80, 0xC0, 0xAF, 0x62, 0xE2, 0x82] + Array("\"}".utf8)
        let store = try EventStore(path: directory.path("s.sqlite"), now: .constant(1_764_400_000_000))
        // When it is imported
        let result = try Importer(store: store).importFiles([try file("bad.ndjson", line + [0x0A])])
        #expect(result.quarantined == 1)
        // Then the table keeps the exact bytes, the payload shows each invalid byte, and the digest is the line's
        let row = try #require(
            try store.connection.all("SELECT payload, payload_raw, line_sha256 FROM quarantine") {
                ($0.string(at: 0), $0.data(at: 1), $0.data(at: 2))
            }.first)
        #expect(row.0 == #"{"source":"a\x80\xC0\xAFb\xE2\x82"}"#)
        #expect(row.1.map { [UInt8]($0) } == line)
        #expect(row.2.map { [UInt8]($0) } == SHA256.digest(line))
    }
}
