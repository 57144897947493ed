import Foundation
import PaywallTestSupport
import Testing

@testable import PaywallSQLite

/// Bytes bound in place are read where they lie when the statement steps: the row stored holds
/// them as they are then, an empty text is '' (not NULL), and cleared bindings are NULL again.
struct InPlaceBindingTests {
    @Test func bytesBoundInPlaceAreStoredAsTheyAreWhenTheStatementSteps() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let connection = try Connection(path: directory.path("in-place.sqlite"))
        try connection.execute("CREATE TABLE t (b BLOB, x TEXT, e TEXT) STRICT")
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 8, alignment: 8)
        defer { buffer.deallocate() }
        try connection.withDatabase { db in
            let insert = try db.cachedStatement("INSERT INTO t (b, x, e) VALUES (?, ?, ?)")
            for (index, text) in ["abcd", "wxyz"].enumerated() {
                insert.reset()
                buffer.storeBytes(of: UInt32(index + 1).bigEndian, as: UInt32.self)
                insert.bindBlob(inPlace: buffer, count: 4, at: 1)
                for (offset, byte) in text.utf8.enumerated() {
                    buffer.storeBytes(of: byte, toByteOffset: 4 + offset, as: UInt8.self)
                }
                insert.bindText(inPlace: buffer + 4, count: 4, at: 2)
                insert.bindText(inPlace: buffer, count: 0, at: 3)
                try insert.run()
            }
            insert.clearBindings()
            insert.reset()
            try insert.run()
        }
        let rows = try connection.all("SELECT hex(b), x, e, e IS NULL FROM t ORDER BY rowid") { row -> [String] in
            (0..<4).map { row.string(at: $0) ?? "NULL" }
        }
        #expect(rows == [["00000001", "abcd", "", "0"], ["00000002", "wxyz", "", "0"], ["", "NULL", "NULL", "1"]])
    }
}
