import Foundation
@testable import PaywallStore
import Testing

struct UUIDTextTests {
    @Test func rendersExactlyTheUppercaseCanonicalTextOfUUIDString() {
        // Given random UUIDs and the extremes
        var samples = (0..<10_000).map { _ in UUID() }
        samples += [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                    UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)),
                    UUID(uuid: (0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10))]
        // When each is rendered into the stack buffer the recorder binds
        let rendered = samples.map { uuid in UUIDText.withCanonical(uuid) { String(decoding: $0, as: UTF8.self) } }
        // Then every text equals uuidString, byte for byte (36 bytes, dashes in place, uppercase)
        #expect(rendered == samples.map(\.uuidString))
        #expect(rendered.allSatisfy { $0.utf8.count == 36 })
        #expect(rendered[10_002] == "01234567-89AB-CDEF-FEDC-BA9876543210")
    }
}
