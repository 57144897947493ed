import PaywallSQLite

/// Finds and deletes the quarantined inputs of forgotten customers (one owner: the store's
/// `quarantine` table). An input is theirs when its `user_id` is one of the ids
/// (``QuarantineUserIDs``: the parsed field, or every `"user_id": "…"` of a line that does not
/// parse), or when an id is a whole token of its payload or its reasons (``IDTokens``: a JSON
/// string under any key, the end of a line cut mid-string, a value a reason quotes or names as a
/// word), so that no
/// copy of the id stays in the file. An id's bytes inside a longer value (`42` in a timestamp, `_`
/// in `user_id`) are not the id: other customers' inputs stay. A quarantined input is never valid,
/// so erasing one that only mentions the id in another field loses no event.
enum QuarantineErasure {
    /// Deletes the matching rows (inside the caller's transaction); returns how many.
    static func erase(_ ids: [String], _ db: Database) throws -> Int {
        let wanted = Set(ids.map { Array($0.utf8) })
        var doomed: [Int64] = []
        try db.forEachRow(
            "SELECT seq, coalesce(payload_raw, CAST(payload AS BLOB)), CAST(reasons AS BLOB) FROM quarantine"
        ) { row in
            let payload = row.withUnsafeBlob(at: 1) { Array($0) }
            let reasons = row.withUnsafeBlob(at: 2) { Array($0) }
            if matches(payload, reasons: reasons, wanted: wanted) { doomed.append(row.int64(at: 0)) }
            return true
        }
        guard !doomed.isEmpty else { return 0 }
        let list = "[" + doomed.map(String.init).joined(separator: ",") + "]"
        return try db.run("DELETE FROM quarantine WHERE seq IN (SELECT value FROM json_each(?1))", [.text(list)])
    }

    /// Whether one quarantined input belongs to the customers `wanted` (their ids' bytes).
    static func matches(_ payload: [UInt8], reasons: [UInt8], wanted: Set<[UInt8]>) -> Bool {
        if QuarantineUserIDs.ids(in: payload).contains(where: { wanted.contains(Array($0.utf8)) }) { return true }
        return IDTokens.carries(payload, anyOf: wanted) || IDTokens.carries(reasons, anyOf: wanted)
            || wanted.contains { IDTokens.replacingWords($0, in: reasons, with: []) != nil }
    }
}
