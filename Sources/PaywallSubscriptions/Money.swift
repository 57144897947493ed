import Foundation

/// Dollar amounts as whole micro-dollars, computed from the amounts' decimal text, never through a
/// binary float: `4.99` is 4,990,000 exactly, and sums of micros are exact integers.
///
/// Design note: `Foundation.Decimal` holds 38 significant digits, more than a price times a
/// percentage needs (RevenueCat sends at most 17 significant digits per number), so the products are
/// exact before the one rounding (half to even) to whole micros.
public enum Money {
    /// Micros per dollar.
    public static let microsPerUnit: Int64 = 1_000_000

    /// The exact value of a JSON number's text, or `nil` when it is out of `Decimal`'s range.
    public static func decimal(_ text: String) -> Decimal? {
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
            return nil
        }
        return value
    }

    /// `value` × 1,000,000 rounded half to even, or `nil` when it does not fit in 64 bits.
    public static func micros(_ value: Decimal) -> Int64? {
        var scaled = value * Decimal(microsPerUnit)
        var rounded = Decimal()
        NSDecimalRound(&rounded, &scaled, 0, .bankers)
        guard !rounded.isNaN else { return nil }
        return Int64(rounded.description)
    }

    /// The proceeds of `price`: `price × (1 − tax − commission)` (an absent percentage counts 0),
    /// or `price × takehome` for an older event that has neither percentage but the takehome one;
    /// in micros, rounded once, half to even; `nil` when the price is absent or out of range.
    public static func proceedsMicros(price: Decimal?, tax: Decimal?, commission: Decimal?, takehome: Decimal?)
        -> Int64?
    {
        guard let price else { return nil }
        if tax == nil, commission == nil, let takehome { return micros(price * takehome) }
        let factor = Decimal(1) - (tax ?? 0) - (commission ?? 0)
        return micros(price * factor)
    }
}
