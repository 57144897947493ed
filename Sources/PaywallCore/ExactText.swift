import Foundation

/// Text that is equal, hashed and ordered by its exact Unicode scalars (its UTF-8 bytes), never by
/// canonical equivalence. Swift's `String ==`, `Set<String>` and `Dictionary<String, …>` treat
/// `"caf\u{E9}"` and `"cafe\u{301}"` (or `"K"` and the Kelvin sign `"\u{212A}"`) as the same text;
/// in event data they are two different placements, products or offerings, as they are in SQLite,
/// in the CSVs and at RevenueCat. Use this as the key wherever data text is compared or grouped.
/// The order is code-point order (UTF-8 byte order is code-point order).
///
/// ```swift
/// Set(["caf\u{E9}", "cafe\u{301}"]).count                 // 1
/// Set(["caf\u{E9}", "cafe\u{301}"].map(ExactText.init)).count  // 2
/// ```
public struct ExactText: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The text.
    public let text: String

    /// Wraps `text`.
    public init(_ text: String) { self.text = text }

    /// The text itself.
    public var description: String { text }

    /// Whether both hold the same Unicode scalars.
    public static func == (lhs: ExactText, rhs: ExactText) -> Bool { same(lhs.text, rhs.text) }

    /// Code-point order.
    ///
    /// Compares the UTF-8 bytes with `memcmp` (a walk of the two `utf8` views, element by element,
    /// was a quarter of the nightly's late-renewal lookups, which sort 33k transaction ids at 10M events).
    public static func < (lhs: ExactText, rhs: ExactText) -> Bool {
        var left = lhs.text
        var right = rhs.text
        return left.withUTF8 { a in
            right.withUTF8 { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
    }

    /// Hashes the UTF-8 bytes.
    public func hash(into hasher: inout Hasher) {
        var copy = text
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Whether `a` and `b` hold the same Unicode scalars (not merely canonically equivalent ones).
    @inline(__always)
    public static func same(_ a: String, _ b: String) -> Bool { a.utf8.elementsEqual(b.utf8) }

    /// Whether `a` is `b` exactly; `nil` is never equal.
    @inline(__always)
    public static func same(_ a: String?, _ b: String) -> Bool { a.map { same($0, b) } ?? false }
}
