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
    /// The close's `via` as ``PresentationScan/code(_:_:)`` numbers it (4 close_button, 5 continue_free).
    var via: Int { get }
    /// Calls `body` with the UTF-8 bytes of the first impression's offering (empty when it has none).
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T
}

/// The details of a row of `PresentationScan.scanSQL` (or `DayPartial.daySQL`, the same columns).
struct RowDetails: PresentationDetails {
    let row: Row
    var planSelected: Bool { row.int64(at: 4) != 0 }
    var purchaseStarted: Bool { row.int64(at: 5) != 0 }
    var openS: Double { row.double(at: 9) ?? 0 }
    var product: String { row.string(at: 10) ?? "" }
    var via: Int { PresentationScan.code(row, 8) }
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T { row.withUnsafeText(at: 11, body) }
}

/// The details of a presentation folded in memory (its close texts in `texts`, with their
/// ``PresentationScan/code(_:)`` in `codes`, by the same index).
struct FoldDetails: PresentationDetails {
    let fold: PresentationFold
    let texts: TextTable
    let codes: [Int]
    var planSelected: Bool { fold.planSelected }
    var purchaseStarted: Bool { fold.purchaseStarted }
    var openS: Double { fold.closeOpenS ?? 0 }
    var product: String { texts[fold.closeProduct] ?? "" }
    var via: Int { fold.closeVia == TextTable.null ? 0 : codes[Int(fold.closeVia)] }
    func withOffering<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        var offering = texts[fold.offering] ?? ""
        return offering.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }
}

extension PresentationScan.ScannedPresentation {
    /// A presentation folded in memory, as a scan of its rollup row would read it (`codes` as in ``FoldDetails``).
    init(_ fold: PresentationFold, codes: [Int]) {
        self.init(firstAt: fold.firstAt, placement: Int(fold.placementKey), user: UInt32(truncatingIfNeeded: fold.customerKey),
                  impressionAt: fold.impressionAt, closeAt: fold.closeAt,
                  result: fold.closeResult == TextTable.null ? 0 : codes[Int(fold.closeResult)])
    }
}
