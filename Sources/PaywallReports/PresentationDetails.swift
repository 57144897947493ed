import PaywallCore
import PaywallSQLite

/// The columns of a presentation that only its (day, placement) group reads, beyond
/// ``PresentationScan/ScannedPresentation``: read lazily from a scanned row (``RowDetails``) or
/// taken from a presentation just folded in memory (``FoldDetails``).
protocol PresentationDetails {
    /// At least one `paywall_plan_selected`.
    var planSelected: Bool { get }
    /// At least one `paywall_purchase_started`.
    var purchaseStarted: Bool { get }
    /// The close's `open_s` (0 when it has none).
    var openS: Double { get }
    /// The close's product ("" when it has none).
    var product: String { get }
    /// The close's `via` (``PresentationScan/via(_:_:)``), `nil` when it has none.
    var via: CloseVia? { get }
    /// Calls `body` with the UTF-8 bytes of the first impression's offering (empty when it has none).
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T
    /// The first event's `platform` ("" when it has none).
    var platform: String { get }
    /// The first event's `app_version` ("" when it has none).
    var appVersion: String { get }
    /// The indexes in `table` of the first event's platform and app version (`""` when it has none).
    func contextIndexes(_ table: inout TextTable) -> (platform: Int32, appVersion: Int32)
}

extension PresentationDetails {
    func contextIndexes(_ table: inout TextTable) -> (platform: Int32, appVersion: Int32) {
        (table.index(platform), table.index(appVersion))
    }
}

/// The details of a row of `PresentationScan.scanSQL` (or `DayPartial.daySQL`, the same columns).
struct RowDetails: PresentationDetails {
    let row: Row
    var planSelected: Bool { row.int64(at: 4) != 0 }
    var purchaseStarted: Bool { row.int64(at: 5) != 0 }
    var openS: Double { row.double(at: 9) ?? 0 }
    var product: String { row.string(at: 10) ?? "" }
    var via: CloseVia? { PresentationScan.via(row, 8) }
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T { row.withUnsafeText(at: 11, body) }
    var platform: String { row.string(at: 12) ?? "" }
    var appVersion: String { row.string(at: 13) ?? "" }
    /// From the row's bytes (no `String` per row: a day's rescan calls this for every presentation).
    func contextIndexes(_ table: inout TextTable) -> (platform: Int32, appVersion: Int32) {
        (table.index(orEmpty: row, 12), table.index(orEmpty: row, 13))
    }
}

/// The details of a presentation folded in memory (its close texts in `texts`, with their
/// catalog values in `words`, by the same index).
struct FoldDetails: PresentationDetails {
    let fold: PresentationFold
    let texts: TextTable
    let words: CloseWords
    var planSelected: Bool { fold.planSelected }
    var purchaseStarted: Bool { fold.purchaseStarted }
    var openS: Double { fold.closeOpenS ?? 0 }
    var product: String { texts[fold.closeProduct] ?? "" }
    var via: CloseVia? { fold.closeVia == TextTable.null ? nil : words.vias[Int(fold.closeVia)] }
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        var offering = texts[fold.offering] ?? ""
        return offering.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
    var platform: String { texts[fold.platform] ?? "" }
    var appVersion: String { texts[fold.appVersion] ?? "" }
}

extension PresentationScan.ScannedPresentation {
    /// A presentation folded in memory, as a scan of its rollup row would read it (`words` as in ``FoldDetails``).
    init(_ fold: PresentationFold, words: CloseWords) {
        self.init(
            firstAt: fold.firstAt, placement: Int(fold.placementKey),
            user: UInt32(truncatingIfNeeded: fold.customerKey),
            impressionAt: fold.impressionAt, closeAt: fold.closeAt,
            result: fold.closeResult == TextTable.null ? nil : words.results[Int(fold.closeResult)])
    }
}

/// The catalog values of a ``TextTable``'s texts, by the same index: each text's `result` and
/// `via` (`nil` where it is not one), looked up once per refresh instead of once per fold.
struct CloseWords {
    let results: [CloseResult?]
    let vias: [CloseVia?]

    init(_ texts: TextTable) {
        results = texts.map { PresentationScan.resultWords.value(of: $0) }
        vias = texts.map { PresentationScan.viaWords.value(of: $0) }
    }
}
