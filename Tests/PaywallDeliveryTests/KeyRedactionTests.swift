import Foundation
import PaywallDelivery
import PaywallTestSupport
import Testing

struct KeyRedactionTests {
    static let key = "appl_Secret0123456789XYZ"

    @Test(arguments: [
        ("invalid key appl_Secret0123456789XYZ!", "invalid key (redacted)!"),
        ("invalid key Secret0123456789XYZ", "invalid key (redacted)"),  // without the prefix
        ("key appl_Secret01… was refused", "key (redacted)… was refused"),  // truncated
        ("a=456789XYZ b=appl_Se", "a=(redacted) b=(redacted)"),  // both ends, 9 and 7 bytes
        ("[appl_Secret0123456789XYZappl_Secret0123456789XYZ]", "[(redacted)]"),  // repeated: one run
        ("APPL_SECRET0123456789xyz", "(redacted)"),  // another case
        ("appl_ and Secret are 5 and 6 bytes", "appl_ and Secret are 5 and 6 bytes"),
        ("{}", "{}"),
    ])
    func everyPieceOfSevenBytesOrMoreIsRedacted(body: String, expected: String) {
        // Given a response body echoing (part of) the key, When it is redacted, Then no 7-byte piece is left
        let result = KeyRedaction.redact(Data(body.utf8), key: Self.key)
        #expect(String(decoding: result, as: UTF8.self) == expected)
        #expect(KeyForms.leaks(of: Self.key, in: result).isEmpty)
    }

    @Test(arguments: KeyForms.echoes(of: "appl_Zq7Xv2Lw9Pk4Rt8Ny3Hs6Jd").map(\.form))
    func everyEncodedEchoIsRedacted(form: String) throws {
        // Given a body echoing the key in `form` (checked to be a leak before redaction)
        let key = "appl_Zq7Xv2Lw9Pk4Rt8Ny3Hs6Jd"
        let echo = try #require(KeyForms.echoes(of: key).first { $0.form == form })
        #expect(!KeyForms.leaks(of: key, in: Data(echo.body.utf8)).isEmpty, "the search finds the unredacted form")
        // When it is redacted
        let result = KeyRedaction.redact(Data(echo.body.utf8), key: key)
        // Then no form of any 7-byte piece is left, and the text around the key is kept
        let leaks = KeyForms.leaks(of: key, in: result)
        #expect(leaks.isEmpty, "\(form): \(String(decoding: result, as: UTF8.self)) holds \(leaks)")
        #expect(String(decoding: result, as: UTF8.self).hasPrefix("{\"code\":7225,\"message\":\"Invalid API key: "))
        #expect(String(decoding: result, as: UTF8.self).contains("(redacted)"))
    }

    @Test func base64OfTheHeaderAtEveryAlignmentIsRedacted() {
        // Given the key inside longer text at every byte offset, base64-encoded, standard and url-safe
        let key = "appl_Zq7Xv2Lw9Pk4Rt8Ny3Hs6Jd"
        for prefix in ["", "a", "ab", "abc", "Bearer ", "Authorization: Bearer ", "{\"k\":\""] {
            let standard = Data("\(prefix)\(key)\" trailing".utf8).base64EncodedString()
            let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            for encoded in [standard, urlSafe, "token=" + standard, "x" + urlSafe] {
                let result = KeyRedaction.redact(Data(encoded.utf8), key: key)
                #expect(KeyForms.leaks(of: key, in: result).isEmpty, "\(prefix): \(encoded)")
                #expect(result != Data(encoded.utf8))
            }
        }
    }

    @Test func base64WrappedIntoLinesIsRedactedWhereverTheBreakFalls() {
        // Given the header in base64 wrapped every n characters (MIME uses 76), with CRLF, LF or a JSON \n,
        // so that the line break falls at every place inside the key's encoding
        let key = "appl_Zq7Xv2Lw9Pk4Rt8Ny3Hs6Jd"
        let encoded = Data("Authorization: Bearer \(key)".utf8).base64EncodedString()
        for width in 30...50 {
            for lineBreak in ["\r\n", "\n", "\\n"] {
                let lines = stride(from: 0, to: encoded.count, by: width).map { start in
                    String(encoded.dropFirst(start).prefix(width))
                }
                let body = "{\"echo\":\"" + lines.joined(separator: lineBreak) + "\"}"
                // When it is redacted / Then no piece of the key can be decoded from what is left
                let result = String(decoding: KeyRedaction.redact(Data(body.utf8), key: key), as: UTF8.self)
                let rejoined = result.replacingOccurrences(of: lineBreak, with: "")
                #expect(result.contains("(redacted)"), "\(width) \(lineBreak)")
                #expect(KeyForms.leaks(of: key, in: Data(rejoined.utf8)).isEmpty, "\(width): \(result)")
            }
        }
    }

    @Test func aKeyShorterThanSevenBytesIsRedactedWhole() {
        #expect(KeyRedaction.redact(Data("abc short".utf8), key: "short") == Data("abc (redacted)".utf8))
    }

    @Test func onlyTheFirst64KBAreKept() {
        // (of a byte that is neither base64 nor hex, so the test stays cheap in a debug build)
        let body = Data(repeating: UInt8(ascii: "!"), count: 200_000)
        #expect(KeyRedaction.redact(body, key: Self.key).count == KeyRedaction.maximumScannedBytes)
    }
}
