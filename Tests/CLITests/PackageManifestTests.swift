import Foundation
import PaywallTestSupport
import Testing

/// `Package.swift` declares, where each target is declared, every module of this package the
/// target's files import (no dependency reached only through another target, no patch after).
struct PackageManifestTests {
    struct Target {
        let name: String
        let path: String
        let dependencies: Set<String>
    }

    /// The manifest's targets with their folders and declared dependencies.
    static func targets(_ manifest: String) throws -> [Target] {
        let pattern =
            #"\.(target|executableTarget|systemLibrary|testTarget)\(\s*name:\s*"([^"]+)"(.*?)\)(?=,\s*\n\s*(?:\.|\]))"#
        let regex = try NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
        let text = manifest as NSString
        return regex.matches(in: manifest, range: NSRange(location: 0, length: text.length)).map { match in
            let kind = text.substring(with: match.range(at: 1))
            let name = text.substring(with: match.range(at: 2))
            let rest = text.substring(with: match.range(at: 3))
            let list =
                rest.range(of: #"dependencies:\s*\[[^\]]*\]"#, options: .regularExpression).map { String(rest[$0]) }
                ?? ""
            let dependencies = list.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map {
                String($0.element)
            }
            let path =
                rest.range(of: #"path:\s*"[^"]+""#, options: .regularExpression)
                .map { String(rest[$0]).split(separator: "\"")[1] }.map(String.init)
                ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            return Target(name: name, path: path, dependencies: Set(dependencies))
        }
    }

    /// The modules `import`ed by the Swift files under `folder`.
    static func imports(under folder: URL) -> Set<String> {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
            return []
        }
        var modules: Set<String> = []
        for case let file as URL in walker where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ").filter {
                    !$0.hasPrefix("@") && $0 != "public" && $0 != "internal"
                }
                if words.count >= 2, words[0] == "import" { modules.insert(String(words[1])) }
            }
        }
        return modules
    }

    @Test func everyTargetDeclaresEveryModuleOfThePackageItImports() throws {
        // Given the manifest's targets
        let root = Golden.packageRoot()
        let targets = try Self.targets(
            String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
        #expect(targets.count > 20, "the manifest's targets were not found")
        let byModule = Dictionary(targets.map { ($0.name.replacingOccurrences(of: "-", with: "_"), $0.name) }) {
            first, _ in first
        }
        // When each target's imports are read; Then every imported module of the package is declared
        for target in targets {
            let imported = Self.imports(under: root.appendingPathComponent(target.path)).compactMap { byModule[$0] }
            let undeclared = Set(imported).subtracting(target.dependencies).subtracting([target.name])
            #expect(
                undeclared.isEmpty,
                "\(target.name) imports \(undeclared.sorted()) without declaring them in Package.swift")
        }
    }
}
