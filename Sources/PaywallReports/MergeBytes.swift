import PaywallSQLite

/// A chunk's texts and a group of folds' ids laid out for the merge to bind in place
/// (``Statement/bindBlob(inPlace:count:at:)``): every text of the chunk's ``TextTable`` as UTF-8,
/// and the four ids of up to ``Rollup/mergeRows`` folds (``load(_:)``, one statement's rows at a
/// time) as the 16 big-endian bytes the rollup stores.
///
/// Design note: bound the usual way, SQLite copies every text and blob into a buffer it allocates,
/// and frees the buffer when the parameter is bound again: up to ten `malloc`, `memcpy` and `free`
/// per presentation (four ids, up to six texts) on the merging thread, the slower side of a first
/// build's refresh with its reading thread about as busy. Bound in place, SQLite reads the bytes
/// where they are when the statement steps. The texts stay put for the whole chunk; the ids of a
/// group are overwritten by the next group's only after the statement ran, and every parameter is
/// bound again before the next step. ``Rollup``'s merge clears the statements' bindings before the
/// bytes go (inside `withExtendedLifetime`). Laying out the whole chunk's ids at once (2.8 MB for a
/// 100k-event chunk) raised the peak memory of a first build at 1M events by about 7 MiB; a group's
/// ids take 4 kB.
final class MergeBytes {
    private let base: UnsafeMutableRawPointer
    /// Each text's start and length, by ``TextTable`` index; the texts begin after the group's ids.
    private let textStarts: [Int]
    private let textLengths: [Int]
    private static let idsAt = 0
    private static let textsAt = Rollup.mergeRows * 64

    /// Lays out the texts of `texts`.
    init(texts: TextTable) {
        var starts: [Int] = []
        var lengths: [Int] = []
        starts.reserveCapacity(texts.texts.count)
        lengths.reserveCapacity(texts.texts.count)
        var textBytes = 0
        for text in texts.texts {
            starts.append(textBytes)
            lengths.append(text.utf8.count)
            textBytes += text.utf8.count
        }
        textStarts = starts
        textLengths = lengths
        base = .allocate(byteCount: Self.textsAt + textBytes, alignment: 16)
        for (index, text) in texts.texts.enumerated() {
            var text = text
            text.withUTF8 { utf8 in
                guard let source = utf8.baseAddress, utf8.count > 0 else { return }
                (base + Self.textsAt + starts[index]).copyMemory(from: source, byteCount: utf8.count)
            }
        }
    }

    deinit { base.deallocate() }

    /// Lays out the ids of `folds` (at most ``Rollup/mergeRows``), as folds `0 ..< folds.count` of
    /// ``bind(_:fold:_:at:)``, over the previous group's.
    func load(_ folds: ArraySlice<PresentationFold>) {
        precondition(folds.count <= Rollup.mergeRows, "one statement's folds at a time")
        func store(_ id: UUIDKey, at offset: Int) {
            base.storeBytes(of: id.high.bigEndian, toByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: id.low.bigEndian, toByteOffset: offset + 8, as: UInt64.self)
        }
        for (index, fold) in folds.enumerated() {
            store(fold.pwID, at: index * 64)
            store(fold.firstID, at: index * 64 + 16)
            store(fold.closeID, at: index * 64 + 32)
            store(fold.impressionID, at: index * 64 + 48)
        }
    }

    /// Which of a fold's ids.
    enum ID: Int {
        case pw = 0
        case first, close, impression
    }

    /// Binds id `id` of fold `fold` (its index in the group laid out last) to parameter `index`.
    func bind(_ statement: Statement, fold: Int, _ id: ID, at index: Int) {
        statement.bindBlob(inPlace: base + fold * 64 + id.rawValue * 16, count: 16, at: index)
    }

    /// Binds text `text` (a ``TextTable`` index; ``TextTable/null`` binds `NULL`) to parameter `index`.
    func bind(_ statement: Statement, text: Int32, at index: Int) {
        guard text != TextTable.null else { return statement.bindNull(at: index) }
        let slot = Int(text)
        // An empty text still gets a pointer that is not NULL (the buffer's own, 0 bytes read).
        statement.bindText(inPlace: base + Self.textsAt + textStarts[slot], count: textLengths[slot], at: index)
    }
}

extension PresentationFold {
    /// Binds this fold to the parameters `offset + 1 … offset + 19` of `rollup_merge_presentation.sql`
    /// (in order of first appearance) or of one row of ``Rollup/mergeRows``, its ids and texts in
    /// place from `bytes`, where its ids are number `fold` of the group laid out last.
    func bind(_ statement: Statement, bytes: MergeBytes, fold: Int, offset: Int = 0) {
        bytes.bind(statement, fold: fold, .pw, at: offset + 1)
        statement.bind(firstAt, at: offset + 2)
        bytes.bind(statement, fold: fold, .first, at: offset + 3)
        statement.bind(placementKey, at: offset + 4)
        statement.bind(customerKey, at: offset + 5)
        statement.bind(impressionAt, at: offset + 6)
        statement.bind(Int64(planSelected ? 1 : 0), at: offset + 7)
        statement.bind(Int64(purchaseStarted ? 1 : 0), at: offset + 8)
        statement.bind(closeAt, at: offset + 9)
        if closeAt != nil {
            bytes.bind(statement, fold: fold, .close, at: offset + 10)
        } else {
            statement.bindNull(at: offset + 10)
        }
        bytes.bind(statement, text: closeResult, at: offset + 11)
        bytes.bind(statement, text: closeVia, at: offset + 12)
        statement.bind(closeOpenS, at: offset + 13)
        bytes.bind(statement, text: closeProduct, at: offset + 14)
        if impressionAt != nil {
            bytes.bind(statement, fold: fold, .impression, at: offset + 15)
        } else {
            statement.bindNull(at: offset + 15)
        }
        bytes.bind(statement, text: offering, at: offset + 16)
        bytes.bind(statement, text: platform, at: offset + 17)
        bytes.bind(statement, text: appVersion, at: offset + 18)
        statement.bind(lastAt, at: offset + 19)
    }
}
