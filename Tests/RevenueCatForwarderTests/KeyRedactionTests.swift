import Foundation
import RevenueCatForwarder
import Testing

struct KeyRedactionTests {
    static let key = "appl_Secret0123456789XYZ"

    @Test(arguments: [
        ("invalid key appl_Secret0123456789XYZ!", "invalid key (redacted)!"),
        ("invalid key Secret0123456789XYZ", "invalid key (redacted)"),            // without the prefix
        ("key appl_Secret01… was refused", "key (redacted)… was refused"),         // truncated
        ("a=456789XYZ b=appl_Sec", "a=(redacted) b=(redacted)"),                   // both ends, 9 and 8 bytes
        ("[appl_Secret0123456789XYZappl_Secret0123456789XYZ]", "[(redacted)]"),   // repeated: one run
        ("appl_ and Secret0 are 5 and 7 bytes", "appl_ and Secret0 are 5 and 7 bytes"),
        ("{}", "{}"),
    ])
    func everyFragmentOfEightBytesOrMoreIsRedacted(body: String, expected: String) {
        // Given a response body echoing (part of) the key, When it is redacted, Then no 8-byte fragment is left
        let result = String(decoding: KeyRedaction.redact(Data(body.utf8), key: Self.key), as: UTF8.self)
        #expect(result == expected)
        let key = Array(Self.key)
        for start in 0...(key.count - 8) { #expect(!result.contains(String(key[start..<start + 8]))) }
    }

    @Test func aKeyShorterThanEightBytesLeavesTheBodyAsItIs() {
        #expect(KeyRedaction.redact(Data("abc short".utf8), key: "short") == Data("abc short".utf8))
    }
}
