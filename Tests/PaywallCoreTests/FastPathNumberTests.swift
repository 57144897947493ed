import Foundation
import PaywallSimulation
import Testing

@testable import PaywallCore

/// The fast path reads numbers from bytes; every value must be the one `Int64(text)` and
/// `Double(text)` give on the full path, bit for bit.
struct FastPathNumberTests {
    func double(_ text: String) -> Double { Array(text.utf8).withUnsafeBytes { FastPlan.double($0) } }
    func integer(_ text: String) -> Int64? { Array(text.utf8).withUnsafeBytes { FastPlan.integer($0) } }

    @Test(arguments: [
        "0", "-0", "0.0", "-0.0", "1", "12.5", "0.1", "0.2", "0.3", "86400", "86400.001", "123456789012345",
        "1234567890123456", "12345678901234567890", "0.30000000000000004", "9007199254740993", "1e2", "1E-7",
        "2.5e-300", "1e999", "-1e999", "4.9e-324", "1.7976931348623157e308", "0.000000000000000000000123",
        "0.1234567890123456789", "99999999999999.9", "999999999999999", "1000000000000000.5",
    ])
    func doublesAreTheValueDoubleOfTheTextGives(text: String) {
        let expected = Double(text) ?? .infinity
        #expect(double(text).bitPattern == expected.bitPattern, "\(text)")
    }

    @Test func randomDecimalsAreTheValueDoubleOfTheTextGives() {
        // Given many random decimals of up to 20 digits, with and without a fraction and a sign
        var random = SeededGenerator(seed: 5)
        var checked = 0
        for _ in 0..<50_000 {
            let digits = Int.random(in: 1...20, using: &random)
            var text = String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
            if random.chance(0.3) { text = "0" }
            let point = Int.random(in: 0...text.count, using: &random)
            if point > 0, point < text.count, text.first != "0" {
                text.insert(".", at: text.index(text.startIndex, offsetBy: point))
            } else if random.chance(0.5) {
                text += "." + String(Int.random(in: 0...999_999, using: &random))
            }
            if random.chance(0.2) { text = "-" + text }
            // When the fast path reads it
            // Then it is exactly Double(text)
            let expected = Double(text) ?? .infinity
            #expect(double(text).bitPattern == expected.bitPattern, "\(text)")
            checked += 1
        }
        #expect(checked == 50_000)
    }

    @Test(arguments: [
        "0", "-0", "1", "-1", "1764400000000", "9223372036854775807", "-9223372036854775807", "-9223372036854775808",
        "9223372036854775808", "99999999999999999999999", "1.5", "1e3", "1E3", "-", "",
    ])
    func integersAreTheValueInt64OfTheTextGivesOrNone(text: String) {
        // The fast path may decline (nil) where Int64 succeeds, never disagree with it
        if let value = integer(text) {
            #expect(Int64(text) == value, "\(text)")
        } else {
            #expect(text == "-9223372036854775808" || Int64(text) == nil, "\(text) declined")
        }
    }
}
