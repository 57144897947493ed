import Foundation
import PaywallCore
import Testing

struct UUIDTextTests {
    @Test func rendersExactlyTheUppercaseCanonicalTextOfUUIDString() {
        // Given random UUIDs and the extremes
        var samples = (0..<10_000).map { _ in UUID() }
        samples += [
            UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
            UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
            UUID(
                uuid: (0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10)),
        ]
        // When each is rendered into the stack buffer the recorder binds
        let rendered = samples.map { uuid in UUIDText.withCanonical(uuid) { String(decoding: $0, as: UTF8.self) } }
        // Then every text equals uuidString, byte for byte (36 bytes, dashes in place, uppercase)
        #expect(rendered == samples.map(\.uuidString))
        #expect(rendered.allSatisfy { $0.utf8.count == 36 })
        #expect(rendered[10_002] == "01234567-89AB-CDEF-FEDC-BA9876543210")
    }

    @Test func parsesWhatItWritesInEitherCaseAndTheHalvesOnlyFromUppercase() {
        // Given random UUIDs as uppercase and lowercase text
        for uuid in (0..<2_000).map({ _ in UUID() }) {
            var upper = uuid.uuidString
            var lower = uuid.uuidString.lowercased()
            // Then both parse back to the UUID
            #expect(UUIDText.parse(upper) == uuid)
            #expect(UUIDText.parse(lower) == uuid)
            // And the halves are the UUID's bytes big-endian, from uppercase only
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            let halves = upper.withUTF8 { UUIDText.uppercaseHalves(UnsafeRawBufferPointer($0)) }
            #expect(halves?.high == high && halves?.low == low)
            if lower != upper {
                #expect(lower.withUTF8 { UUIDText.uppercaseHalves(UnsafeRawBufferPointer($0)) } == nil)
            }
        }
        // And anything but the canonical form is refused
        for text in [
            "", "0123456789ABCDEF0123456789ABCDEF", "01234567-89AB-CDEF-FEDC-BA987654321",
            "01234567-89AB-CDEF-FEDC-BA98765432100",
            "01234567+89AB-CDEF-FEDC-BA9876543210", "0123456G-89AB-CDEF-FEDC-BA9876543210",
        ] {
            #expect(UUIDText.parse(text) == nil, "\(text)")
        }
    }

    @Test func theOneParserRefusesTheLaxFormsFoundationsParserTakes() {
        // Given texts of 36 (or 37) characters that are no canonical UUID text: a sign or a space
        // where a digit belongs, a 0x prefix inside a group, a trailing NUL
        let lax = [
            "+1234567-89AB-CDEF-FEDC-BA9876543210", "01234567-89AB--DEF-FEDC-BA9876543210",
            " 1234567-89AB-CDEF-FEDC-BA9876543210", "01234567-89AB-CDEF-FEDC- A9876543210",
            "0x234567-89AB-CDEF-FEDC-BA9876543210", "01234567-0xAB-CDEF-FEDC-BA9876543210",
            "01234567-89AB-CDEF-FEDC-BA9876543210\u{0}", "01234567-89AB-CDEF-FEDC-BA987654321G",
            "01234567-89AB-CDEF-FEDC-BA987654321`", "01234567-89AB-CDEF-FEDC-BA987654321g",
            "01234567-89AB-CDEF-FEDC-BA98765432\u{C1}",
        ]
        for text in lax {
            // Then every entry point of the one parser refuses each of them
            var bytes = text
            #expect(UUIDText.parse(text) == nil, "\(text.debugDescription)")
            #expect(bytes.withUTF8 { UUIDText.uppercaseHalves(UnsafeRawBufferPointer($0)) } == nil)
        }
        // And mixed case is one UUID for parse, uppercase only for the halves
        let mixed = "01234567-89ab-CDEF-fEdC-Ba9876543210"
        #expect(UUIDText.parse(mixed) == UUID(uuidString: "01234567-89AB-CDEF-FEDC-BA9876543210"))
        var upper = "01234567-89AB-CDEF-FEDC-BA9876543210"
        let halves = upper.withUTF8 { UUIDText.uppercaseHalves(UnsafeRawBufferPointer($0)) }
        #expect(halves?.high == 0x0123_4567_89AB_CDEF && halves?.low == 0xFEDC_BA98_7654_3210)
    }

    @Test func everyLowercaseAndUppercaseDigitParsesInEveryPlace() {
        // Each of the 32 digit positions, with each of the 22 hex digit spellings
        let digits = Array("0123456789abcdefABCDEF")
        for position in 0..<32 {
            for digit in digits {
                var chars = Array("00000000000000000000000000000000")
                chars[position] = digit
                let hex = String(chars)
                let text = [
                    hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4),
                    hex.dropFirst(16).prefix(4), hex.dropFirst(20),
                ].joined(separator: "-")
                #expect(UUIDText.parse(text)?.uuidString == text.uppercased(), "\(text)")
            }
        }
    }
}
