import Foundation
import PaywallTestSupport
import Testing

/// A body that starts with a UTF-8 byte-order mark is stored as `import` stores the same bytes:
/// the mark is skipped at the very start only (plain and gzip alike); a mark at the start of a
/// later line is still refused. The built `serve` and `import`.
@Suite(.serialized)
struct CollectorByteOrderMarkTests {
    @Test(arguments: [false, true])
    func aLeadingByteOrderMarkIsSkippedAsImportSkipsIt(gzip: Bool) throws {
        let harness = try CollectorHarness()
        let first = EventLines.presentation()
        let second = EventLines.presentation()
        let body =
            [0xEF, 0xBB, 0xBF] + EventLines.body(first.lines) + [0xEF, 0xBB, 0xBF] + EventLines.body(second.lines)
        let reply = try harness.post(body, gzip: gzip)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.json["accepted"] as? Int == 3 && reply.json["quarantined"] as? Int == 1, "\(reply.text)")
        #expect(try harness.storedIDs() == Set(first.ids + second.ids.dropFirst()))
        // import of the same bytes does the same
        let file = harness.folder.path("bom.ndjson")
        try Data(body).write(to: URL(fileURLWithPath: file))
        let other = harness.folder.path("imported.sqlite")
        let imported = try harness.cli.runBlocking(["import", file, "--db", other])
        #expect(imported.stdout.hasPrefix("imported 3, duplicates 0, conflicts 0, quarantined 1"), "\(imported.stdout)")
    }
}
