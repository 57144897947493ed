import Foundation
import PaywallCore
import PaywallTestSupport
import Testing

/// Replays the committed fuzzing seeds and corpora (Fuzz/seeds/…, Fuzz/corpus/…) and any crasher (Fuzz/crashers/…) through
/// the same properties the libFuzzer harnesses check, in the normal test suite: a crash found once
/// stays fixed, and the properties hold for every interesting input the fuzzers kept.
struct FuzzCorpusReplayTests {
    static let root = Golden.packageRoot(from: #filePath).appendingPathComponent("Fuzz")

    static func inputs(_ target: String) throws -> [URL] {
        var urls: [URL] = []
        for folder in ["seeds/\(target)", "corpus/\(target)", "crashers"] {
            let url = root.appendingPathComponent(folder)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { continue }
            urls += names.filter { folder != "crashers" || $0.hasPrefix(target + "-") }.map {
                url.appendingPathComponent($0)
            }
        }
        return urls.sorted { $0.path < $1.path }
    }

    @Test func everyValidatorInputKeepsTheFuzzedProperties() throws {
        let validator = EventValidator(catalog: .bundled)
        let inputs = try Self.inputs("validator")
        #expect(inputs.count >= 15, "the corpus is committed: \(inputs.count) inputs")
        var valid = 0
        for url in inputs {
            let bytes = try Data(contentsOf: url)
            let outcome = bytes.withUnsafeBytes { validator.validate(line: $0) }
            if let text = String(data: bytes, encoding: .utf8) {
                #expect(
                    validator.validate(line: text) == outcome,
                    "\(url.lastPathComponent): String and byte paths disagree")
            }
            if case .valid(let record) = outcome {
                valid += 1
                #expect(
                    validator.validate(record).isEmpty,
                    "\(url.lastPathComponent): an accepted line does not re-validate")
            }
        }
        #expect(valid >= 5, "the corpus keeps valid lines too (\(valid))")
    }

    @Test func everyCatalogInputKeepsTheFuzzedProperties() throws {
        let inputs = try Self.inputs("catalog")
        #expect(inputs.count >= 10, "the corpus is committed: \(inputs.count) inputs")
        var loaded = 0
        for url in inputs {
            do {
                let catalog = try Catalog.load(from: Data(contentsOf: url))
                loaded += 1
                #expect(CatalogChecker.problems(in: catalog).isEmpty)
                #expect(
                    try Catalog.load(from: JSONEncoder().encode(catalog)) == catalog,
                    "\(url.lastPathComponent) round trip")
            } catch let error as CatalogError {
                #expect(!error.description.isEmpty)
            }
        }
        #expect(loaded >= 2, "the corpus keeps loadable catalogs too (\(loaded))")
    }
}
