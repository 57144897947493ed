import Foundation
import PaywallCore
import PaywallGzip
import PaywallSQLite
import PaywallStore
import PaywallTestSupport
import Testing

@testable import PaywallCollector

/// gzip with a decompressed cap, and the in-memory NDJSON body held to exactly import's rules.
struct GzipAndBodyTests {
    @Test func inflatesOneOrSeveralMembers() throws {
        let one = Array("hello\n".utf8)
        let two = Array("world\n".utf8)
        #expect(try Gzip.inflate(Gzip.deflate(one), limit: 100) == one)
        #expect(try Gzip.inflate(Gzip.deflate(one) + Gzip.deflate(two), limit: 100) == one + two)
    }

    @Test func stopsAtTheCapAndRefusesDamage() throws {
        let bomb = Gzip.deflate([UInt8](repeating: 0, count: 8 << 20))
        #expect(throws: Gzip.Failure.tooLarge) { try Gzip.inflate(bomb, limit: 1 << 20) }
        var cut = Gzip.deflate(Array("some text to compress".utf8))
        cut.removeLast(5)
        #expect(throws: Gzip.Failure.malformed) { try Gzip.inflate(cut, limit: 1 << 20) }
        #expect(throws: Gzip.Failure.malformed) { try Gzip.inflate(Array("plain".utf8), limit: 1 << 20) }
        #expect(throws: Gzip.Failure.malformed) { try Gzip.inflate([], limit: 1 << 20) }
    }

    @Test func aBodyIsValidatedExactlyAsImportValidatesTheSameFile() throws {
        let good = EventLines.batch(pairs: 3).lines
        // (a CRLF line that repeats no other line: a quarantined line is identified by its bytes without
        // the terminator, so `good[0] + "\r"` would be stored once with line 1)
        let crlf = try #require(EventLines.batch(pairs: 4).lines.last) + "\r"
        #expect(!good.contains(String(crlf.dropLast())))
        let lines =
            good + ["", "   ", "{\"id\":\"x\"}", crlf, "{" + String(repeating: "a", count: 300) + "}", "not json"]
        let text = lines.joined(separator: "\n")
        let options = ImportOptions(maxLineBytes: 200)
        let body = NDJSONBody(options: options, now: .constant(1_764_400_000_000))
        let validated = Array(text.utf8).withUnsafeBytes { body.validate($0, origin: "test") }
        let folder = TemporaryDirectory(prefix: "collector-body")
        let file = folder.path("body.ndjson")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let store = try EventStore(path: folder.path("store.sqlite"), now: .constant(1_764_400_000_000))
        let result = try Importer(store: store, options: options).importNDJSON(path: file)
        #expect(validated.events.count == result.imported + result.duplicates)
        #expect(validated.quarantine.count == result.quarantined)
        let imported = try store.connection.all("SELECT line, reasons FROM quarantine ORDER BY line") { row in
            "\(row.int64(at: 0)): \(row.string(at: 1) ?? "")"
        }
        #expect(validated.quarantine.map { "\($0.line ?? 0): \($0.reasons.joined(separator: "; "))" } == imported)
    }
}

/// The body's UTF-8 check agrees with Swift's own decoder on valid and broken text.
struct UTF8CheckTests {
    @Test(arguments: [
        "", "plain ascii text that is longer than eight bytes", "é", "日本語のテキスト", "emoji 👋🏽 mixed", "\u{10FFFF}",
    ])
    func acceptsWellFormedText(text: String) {
        #expect(UTF8Check.isValid(Array(text.utf8)))
    }

    @Test(
        arguments: [
            [0xC3, 0x28], [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xE2, 0x82], [0x80],
        ] as [[UInt8]])
    func refusesMalformedBytes(bytes: [UInt8]) {
        #expect(!UTF8Check.isValid(bytes))
        #expect(String(validatingCString: bytes.map { CChar(bitPattern: $0) } + [0]) == nil)
    }
}
