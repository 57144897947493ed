import Foundation
import PaywallLock
import Testing

struct LockTests {
    @Test func incrementsFromManyThreadsAreNeverLost() {
        // Given a lock around a counter
        let counter = Lock(0)
        // When 8 threads each add 10,000 times
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        // Then every increment is there
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test func aThrowReleasesTheLockAndKeepsTheError() {
        struct Refused: Error, Equatable {}
        let state = Lock([Int]())
        #expect(throws: Refused()) {
            try state.withLock { (values: inout [Int]) throws(Refused) in
                values.append(1)
                throw Refused()
            }
        }
        // The change made before the throw stays, and the lock can be taken again.
        #expect(state.withLock { $0 } == [1])
    }
}
