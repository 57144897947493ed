import Foundation
import PaywallCore
import Testing

struct UUIDv7Tests {
    @Test func idsMadeLaterSortLaterAndCarryVersion7() {
        let first = UUIDv7.make(milliseconds: 1_764_400_000_000)
        let second = UUIDv7.make(milliseconds: 1_764_400_000_001)
        #expect(first.uuidString < second.uuidString)
        #expect(Array(first.uuidString)[14] == "7")
        #expect(["8", "9", "A", "B"].contains(Array(first.uuidString)[19]))
        #expect(first.uuidString.hasPrefix("019ACE6F-6C00"))  // 1_764_400_000_000 = 0x19ACE6F6C00
    }
}
