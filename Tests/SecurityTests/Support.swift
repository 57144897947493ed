import Foundation
import PaywallTestSupport

/// A scratch folder removed when the test ends.
final class Scratch {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("security-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: url.appendingPathComponent(name))
        return path(name)
    }
    /// Every regular file under the folder, recursively (symbolic links are not followed).
    func allFiles() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var files: [String] = []
        for case let relative as String in walker {
            let full = path(relative)
            let type = (try? FileManager.default.attributesOfItem(atPath: full)[.type]) as? FileAttributeType
            if type == .typeRegular { files.append(full) }
        }
        return files.sorted()
    }
}

/// NDJSON lines for the checklist.
enum Sample {
    static func id(_ n: Int, prefix: String = "01936B2A-7C00-7000-8000-") -> String {
        prefix + String(format: "%012d", n)
    }

    /// A `paywall_shown` line; `placement` lands in placement_id and `source` in source (both end up in reports).
    static func shown(
        _ n: Int, source: String = "onboarding", placement: String = "main", at: Int64 = 1_764_400_000_000
    ) -> String {
        #"{"id":"\#(id(n))","name":"paywall_shown","occurred_at":\#(at),"user_id":"u\#(n)","catalog_version":1,"pw_id":"\#(id(n, prefix: "01936B2A-7000-7000-8000-"))","source":\#(json(source)),"placement_id":\#(json(placement))}"#
    }

    /// A `paywall_closed` line for presentation `n`, purchased `product`.
    static func purchased(_ n: Int, source: String = "onboarding", product: String, at: Int64 = 1_764_400_005_000)
        -> String
    {
        #"{"id":"\#(id(n, prefix: "01936B2A-7C01-7000-8000-"))","name":"paywall_closed","occurred_at":\#(at),"user_id":"u\#(n)","catalog_version":1,"pw_id":"\#(id(n, prefix: "01936B2A-7000-7000-8000-"))","source":\#(json(source)),"result":"purchased","via":"auto","open_s":5,"product":\#(json(product))}"#
    }

    /// `text` as a JSON string literal.
    static func json(_ text: String) -> String {
        let data = try! JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])
        return String(String(decoding: data, as: UTF8.self).dropFirst().dropLast())
    }
}

extension Data {
    /// Whether `needle` occurs anywhere in these bytes.
    func contains(_ needle: some StringProtocol) -> Bool { range(of: Data(needle.utf8)) != nil }
}
