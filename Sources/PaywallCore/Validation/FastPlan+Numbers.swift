import Foundation

extension FastPlan {
    /// Exact powers of ten: every one up to 10^22 is a `Double` without rounding.
    static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// The whole number written by JSON number bytes, as `Int64(text)` reads it; `nil` for a
    /// fraction, an exponent or an overflow (the full validator then explains).
    static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < bytes.count else { return nil }
        var magnitude: Int64 = 0
        while index < bytes.count {
            let digit = bytes[index] &- 0x30
            guard digit < 10 else { return nil }
            let (times10, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times10.addingReportingOverflow(Int64(digit))
            guard !overflow, !carry else { return nil }
            magnitude = sum
            index += 1
        }
        return negative ? -magnitude : magnitude
    }

    /// The `Double` nearest to JSON number bytes — the value `Double(text)` gives. Numbers of at
    /// most 15 significant digits, no exponent and at most 22 decimals are one exact integer
    /// divided by an exact power of ten, which IEEE division rounds correctly (Clinger's fast
    /// path); any other number goes through `Double(text)` itself.
    static func double(_ bytes: UnsafeRawBufferPointer) -> Double {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var decimals = 0
        var fraction = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                fraction = true
            } else {
                let digit = byte &- 0x30
                guard digit < 10 else { return slowDouble(bytes) }
                mantissa = mantissa &* 10 &+ UInt64(digit)
                digits += 1
                if fraction { decimals += 1 }
                if digits > 15 { return slowDouble(bytes) }
            }
            index += 1
        }
        guard decimals < powersOfTen.count else { return slowDouble(bytes) }
        let value = Double(mantissa) / powersOfTen[decimals]
        return negative ? -value : value
    }

    /// `Double(text)`, or infinity (refused) when the text is no number.
    static func slowDouble(_ bytes: UnsafeRawBufferPointer) -> Double {
        Double(String(decoding: bytes, as: UTF8.self)) ?? .infinity
    }
}
