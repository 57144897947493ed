import Foundation
@testable import PaywallStore
import Testing

struct UUIDTextTests {
    @Test func theCanonicalTextIsFoundationsUUIDString() {
        // Given random UUIDs and the extremes; When rendered into the stack buffer; Then the bytes are uuidString's
        var uuids = (0..<5_000).map { _ in UUID() }
        uuids.append(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        uuids.append(UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255)))
        for uuid in uuids {
            let text = UUIDText.withCanonical(uuid) { String(decoding: $0, as: UTF8.self) }
            #expect(text == uuid.uuidString)
        }
    }
}
