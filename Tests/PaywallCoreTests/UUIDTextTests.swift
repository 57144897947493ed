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
}
