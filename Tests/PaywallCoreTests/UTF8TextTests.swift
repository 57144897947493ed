import PaywallCore
import Testing

struct UTF8TextTests {
    static let cases: [([UInt8], Bool)] = [
        (Array("plain".utf8), true), (Array("é€😀".utf8), true), ([], true),
        ([0xFF], false), ([0xC3], false), ([0xE2, 0x82], false), ([0xED, 0xA0, 0x80], false),
        ([0xF0, 0x90, 0x80, 0x41], false),  // a cut 4-byte sequence of 3 bytes: one U+FFFD of 3 bytes
        ([0xC0, 0xAF], false), ([0xF4, 0x90, 0x80, 0x80], false),
    ]

    @Test(arguments: cases)
    func theFallbackAgreesWithTheSystemValidator(bytes: [UInt8], valid: Bool) {
        #expect((UTF8Text.stringByRoundTrip(validating: bytes) != nil) == valid)
        #expect((UTF8Text.string(validating: bytes) != nil) == valid)
        if valid { #expect(UTF8Text.stringByRoundTrip(validating: bytes).map { Array($0.utf8) } == bytes) }
    }
}
