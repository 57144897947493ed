import PaywallSQLite

/// Binds named parameters (`:name`) of the report SQL by name: SQLite numbers distinct names in
/// order of first appearance, which this scanner reproduces (skipping comments and string literals).
enum NamedParameters {
    /// The distinct parameter names of `sql`, in SQLite's numbering order (index 0 is `?1`).
    static func names(in sql: String) -> [String] {
        var names: [String] = []
        let bytes = Array(sql.utf8)
        var index = 0
        func isNameByte(_ byte: UInt8) -> Bool {
            (byte >= 97 && byte <= 122) || (byte >= 65 && byte <= 90) || (byte >= 48 && byte <= 57) || byte == 95
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "-"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "-") {
                while index < bytes.count, bytes[index] != 10 { index += 1 }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != byte { index += 1 }
                index += 1
            } else if byte == UInt8(ascii: ":"), index + 1 < bytes.count, isNameByte(bytes[index + 1]) {
                var end = index + 1
                while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                if !names.contains(name) { names.append(name) }
                index = end
            } else {
                index += 1
            }
        }
        return names
    }

    /// The values for `sql`'s parameters in binding order; a name missing from `values` binds `NULL`.
    static func values(for sql: String, _ values: [String: SQLValue]) -> [SQLValue] {
        names(in: sql).map { values[$0] ?? .null }
    }
}
