import Foundation

/// Two `report --nightly` output folders compared: the same paths (links with the same targets), every
/// file equal byte for byte, except `run.json`, compared without `duration_ms` (the run's wall time,
/// measured on the monotonic clock whatever `--now` says).
struct FleetReportComparison {
    /// Regular files compared.
    private(set) var files = 0
    /// What differs, one sentence each (empty: equal).
    private(set) var differences: [String] = []

    init(_ left: String, _ right: String) throws {
        let leftEntries = try Self.entries(left)
        let rightEntries = try Self.entries(right)
        if leftEntries.keys.sorted() != rightEntries.keys.sorted() {
            let only = Set(leftEntries.keys).symmetricDifference(rightEntries.keys).sorted()
            differences.append("the report folders hold other paths: \(only.prefix(10)) (\(left) vs \(right))")
        }
        for (path, entry) in leftEntries.sorted(by: { $0.key < $1.key }) {
            guard let other = rightEntries[path] else { continue }
            switch (entry, other) {
            case (.link(let target), .link(let otherTarget)):
                if target != otherTarget {
                    differences.append("\(path) links to \(target) in one, \(otherTarget) in the other")
                }
            case (.file(let bytes), .file(let otherBytes)):
                files += 1
                let equal =
                    path.hasSuffix("run.json")
                    ? Self.withoutDuration(bytes) == Self.withoutDuration(otherBytes)
                    : bytes == otherBytes
                if !equal { differences.append("\(path) differs between \(left) and \(right)") }
            default:
                differences.append("\(path) is a link in one folder and a file in the other")
            }
        }
        if files == 0 { differences.append("no report file was written in \(left)") }
    }

    enum Entry: Equatable {
        case link(String)
        case file(Data)
    }

    /// Every path under `root` (not following links), relative to it.
    static func entries(_ root: String) throws -> [String: Entry] {
        var entries: [String: Entry] = [:]
        let manager = FileManager.default
        let enumerator = manager.enumerator(atPath: root)
        while let name = enumerator?.nextObject() as? String {
            let path = root + "/" + name
            let attributes = try manager.attributesOfItem(atPath: path)
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?: entries[name] = .link(try manager.destinationOfSymbolicLink(atPath: path))
            case .typeRegular?: entries[name] = .file(try Data(contentsOf: URL(fileURLWithPath: path)))
            default: continue
            }
        }
        return entries
    }

    /// `run.json` as a dictionary without `duration_ms`.
    static func withoutDuration(_ bytes: Data) -> NSDictionary? {
        guard var object = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any] else { return nil }
        object.removeValue(forKey: "duration_ms")
        return object as NSDictionary
    }
}
