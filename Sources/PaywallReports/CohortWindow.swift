/// The cohort conversion window (`--cohort-window`, default 3 days = 72 hours).
public struct CohortWindow: Sendable, Hashable, CustomStringConvertible {
    /// The window in milliseconds.
    public let milliseconds: Int64

    /// A window of `milliseconds`.
    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// The longest window: 366 days.
    public static let maximum = CohortWindow(milliseconds: 366 * 86_400_000)

    /// Three days, funnels.md's `converted_3d`.
    public static let `default` = CohortWindow(milliseconds: 259_200_000)

    /// Parses `3d`, `72h`, `90m`, `30s` or `1500ms` (a positive whole number and a unit).
    ///
    /// - Throws: ``ReportError/invalidDuration(_:)``, or ``ReportError/durationOverCap(_:)`` past 366 days.
    public init(parsing text: String) throws {
        let units: [(String, Int64)] = [("ms", 1), ("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) else { break }
            // A number too large for Int64 is still a number: over the cap.
            guard let value = Int64(digits), value <= Self.maximum.milliseconds / scale else {
                throw ReportError.durationOverCap(text)
            }
            guard value > 0 else { break }
            self.init(milliseconds: value * scale)
            return
        }
        throw ReportError.invalidDuration(text)
    }

    /// The window in its largest whole unit, e.g. `3d`.
    public var description: String {
        for (suffix, scale) in [("d", Int64(86_400_000)), ("h", 3_600_000), ("m", 60_000), ("s", 1000)]
        where milliseconds % scale == 0 {
            return "\(milliseconds / scale)\(suffix)"
        }
        return "\(milliseconds)ms"
    }
}
