import Synchronization
import Foundation
final class Box: Sendable { let m = Mutex<[Int]>([]) }
let box = Box()
let group = DispatchGroup()
for t in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for i in 0..<20000 { box.m.withLock { $0.append(t * i) } }
    }
}
group.wait()
print(box.m.withLock { $0.count })
