import CFixedPoint

/// Numbers with a fixed count of decimals, as `String(format: "%.Nf", value)` writes them.
///
/// Design note: the reports write every rate of the CSVs and every coordinate, percentage and
/// title number of the page this way (thousands per run). `String(format:)` builds a variadic
/// argument list, an `NSString` and a CoreFoundation format for each, then bridges the result back:
/// about 3–5 % of a 1M-event nightly run's CPU went there. The same C call (`snprintf` with
/// `%.*f`, which `String(format:)` ends in for a `Double`) on a stack buffer gives the same bytes
/// (`FormatTests.fixedPointWritesWhatStringFormatWrites` compares them over rounding ties, signs,
/// zeros, long numbers and random values).
enum FixedPoint {
    /// `value` with `decimals` decimals (rounded as printf rounds: the nearest, ties to even on the exact binary value).
    static func string(_ value: Double, decimals: Int) -> String {
        let fitted = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> String? in
            let length = Int(fixed_point_format(value, Int32(decimals), buffer.baseAddress!, 64))
            guard length >= 0, length < 64 else { return nil }
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
        if let fitted { return fitted }
        // A long number (hundreds of digits): size the buffer from the first call's length.
        let length = Int(fixed_point_format(value, Int32(decimals), nil, 0))
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            _ = fixed_point_format(value, Int32(decimals), buffer.baseAddress!, length + 1)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }
}
