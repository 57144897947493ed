import Foundation
import PaywallCore
import Testing

struct JSONStringTests {
    @Test(arguments: [
        ("plain", #""plain""#), ("a\"b", #""a\"b""#), ("back\\slash", #""back\\slash""#),
        ("line\nfeed\r\t", #""line\nfeed\r\t""#), ("\u{01}\u{08}\u{0C}\u{1F}", #""\u0001\b\f\u001f""#),
        ("oné 😀 <script>", "\"oné 😀 <script>\""),
    ])
    func escapesExactlyWhatJSONRequires(input: String, expected: String) throws {
        #expect(JSONString.quoted(input) == expected)
        let decoded = try JSONSerialization.jsonObject(with: Data("[\(expected)]".utf8)) as? [String]
        #expect(decoded == [input], "round-trips through a JSON parser")
    }
}
