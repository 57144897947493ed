import PaywallCore
import Testing

/// ``ExactText`` compares, hashes and orders by Unicode scalars, where `String` uses canonical equivalence.
struct ExactTextTests {
    static let pairs = [
        ("caf\u{E9}", "cafe\u{301}"), ("K", "\u{212A}"), ("\u{212B}", "\u{C5}"),
        ("\u{1E9B}\u{323}", "\u{17F}\u{323}\u{307}"),
    ]

    @Test(arguments: pairs)
    func canonicallyEquivalentSpellingsAreTwoTexts(a: String, b: String) {
        #expect(a == b, "String equality is canonical equivalence")
        #expect(ExactText(a) != ExactText(b))
        #expect(Set([a, b].map(ExactText.init)).count == 2)
        #expect(Dictionary([(ExactText(a), 1), (ExactText(b), 2)], uniquingKeysWith: +).count == 2)
        #expect(ExactText(a) < ExactText(b) || ExactText(b) < ExactText(a))
        #expect(ExactText(a) == ExactText(String(a.unicodeScalars)))
        #expect(!ExactText.same(a, b) && ExactText.same(a, a))
    }

    @Test func theOrderIsCodePointOrder() {
        let texts = ["\u{212A}iosk", "caf\u{E9}", "Kiosk", "cafe\u{301}", "\u{1F600}", "\u{FFFD}", ""]
        let sorted = texts.map(ExactText.init).sorted().map(\.text)
        let byScalars = texts.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
        #expect(sorted.map { Array($0.unicodeScalars) } == byScalars.map { Array($0.unicodeScalars) })
    }

    @Test func theOrderIsTheUTF8BytesOrderForPrefixesAndRandomTexts() {
        #expect(ExactText("ab") < ExactText("abc") && !(ExactText("abc") < ExactText("ab")))
        #expect(ExactText("") < ExactText("a") && !(ExactText("") < ExactText("")))
        #expect(!(ExactText("abc") < ExactText("abc")))
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Unicode.Scalar] = ["a", "b", "\u{0}", "\u{7F}", "\u{E9}", "\u{301}", "\u{FFFD}", "\u{1F600}"]
        let texts = (0..<500).map { _ in
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                text.append(alphabet.randomElement(using: &generator)!)
            }
            return String(text)
        }
        for (a, b) in zip(texts, texts.shuffled(using: &generator)) {
            #expect(
                (ExactText(a) < ExactText(b)) == a.utf8.lexicographicallyPrecedes(b.utf8),
                "\(a.debugDescription) \(b.debugDescription)")
        }
    }

    @Test func keysThatAreCanonicallyEquivalentAreNotDuplicatesForTheValidator() {
        // Given a line with two unknown keys spelled caf\u{E9} and cafe\u{301}
        let line = #"{"name":"paywall_shown","caf\#u{E9}":1,"cafe\#u{301}":2}"#
        guard case .invalid(let issues) = EventValidator().validate(line: line) else {
            Issue.record("accepted")
            return
        }
        // Then each is an unknown property, neither a duplicate
        #expect(!issues.contains { $0.rule == "duplicate_key" }, "\(issues)")
        #expect(issues.filter { $0.rule == "unknown_property" }.count == 2, "\(issues)")
    }
}
