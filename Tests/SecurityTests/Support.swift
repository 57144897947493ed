import Foundation
import PaywallTestSupport

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
