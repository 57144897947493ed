import Foundation
import PaywallTestSupport
import Testing

struct CatalogCommandTests {
    let cli = try! CommandRunner()
    let root = Golden.packageRoot()

    @Test func theShippedCatalogChecksClean() async throws {
        let result = try await cli.run(["catalog", "check"], directory: root)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("catalog/catalog.json: OK (catalog version 2, 4 events"))
    }

    @Test func aBrokenCopyExits65NamingEveryProblem() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("catalog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var text = try String(contentsOf: root.appendingPathComponent("catalog/catalog.json"), encoding: .utf8)
        text = text.replacingOccurrences(
            of: #""name": "open_s", "type": "number""#, with: #""name": "open_s", "type": "float""#)
        text = text.replacingOccurrences(
            of: #""when_property": "result", "when_values": ["purchased"]"#,
            with: #""when_property": "outcome", "when_values": ["purchased"]"#)
        let broken = folder.appendingPathComponent("broken.json")
        try text.write(to: broken, atomically: true, encoding: .utf8)
        let result = try await cli.run(["catalog", "check", broken.path])
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("has 2 problems"))
        #expect(result.stderr.contains("properties[open_s]: unknown type \"float\""))
        #expect(result.stderr.contains("events[paywall_closed].rules[1]: names the property \"outcome\""))
        #expect(result.stdout.isEmpty)
    }

    @Test func aMissingCatalogExits66AndMalformedJSONExits65() async throws {
        let missing = try await cli.run(["catalog", "check", "/nonexistent/catalog.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("cannot read the catalog at /nonexistent/catalog.json"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).json")
        try Data("{\"catalog_version\": 1,".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let malformed = try await cli.run(["catalog", "check", file.path])
        #expect(malformed.status == 65)
        #expect(malformed.stderr.contains("not readable"))
    }

    @Test func generateAndDocsReproduceTheCheckedInFiles() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let code = folder.appendingPathComponent("code.swift")
        let docs = folder.appendingPathComponent("docs.md")
        #expect(try await cli.run(["catalog", "generate", "--output", code.path], directory: root).status == 0)
        #expect(try await cli.run(["catalog", "docs", "--output", docs.path], directory: root).status == 0)
        let checkedInCode = try String(
            contentsOf: root.appendingPathComponent("Sources/PaywallCore/Generated/CatalogEvents.generated.swift"),
            encoding: .utf8)
        #expect(try String(contentsOf: code, encoding: .utf8) == checkedInCode)
        let checkedInDocs = try String(contentsOf: root.appendingPathComponent("catalog/README.md"), encoding: .utf8)
        #expect(try String(contentsOf: docs, encoding: .utf8) == checkedInDocs)
    }

    @Test func generateRefusesABrokenCatalogAndWritesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("c.json")
        let output = folder.appendingPathComponent("out.swift")
        try Data(#"{"catalog_version":0,"description":"","envelope":[],"properties":[],"events":[]}"#.utf8).write(
            to: broken)
        let result = try await cli.run(["catalog", "generate", "--catalog", broken.path, "--output", output.path])
        #expect(result.status == 65)
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
