import Synchronization
import Foundation
final class Box: @unchecked Sendable { let m = Mutex<[Int]>([]); var racy = 0 }
let box = Box()
let group = DispatchGroup()
for t in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for i in 0..<20000 { box.m.withLock { $0.append(t * i) } }
        box.racy += 1
    }
}
group.wait()
print(box.m.withLock { $0.count }, box.racy)
