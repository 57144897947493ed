import Foundation
import PaywallTestSupport
import Testing

@testable import PaywallReports

/// The offering comparison's money and sequential statistics against independent computations:
/// numpy (revenue_statistics_check.py) for the mean interval, the Welch test and the mixture
/// sequential interval and p-value; the chi-square distribution's closed forms for integer degrees
/// of freedom for the sample-ratio check.
struct RevenueStatisticsTests {
    /// A deterministic generator (SplitMix64), so every run checks the same cases.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Revenue per customer in micro-dollars: mostly 0, some one price, a few refunded (negative).
    static func amounts(_ n: Int, _ random: inout SplitMix) -> [Int64] {
        (0..<n).map { _ in
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6: return 0
            case 6..<9: return [4_990_000, 9_990_000, 59_990_000][Int.random(in: 0..<3, using: &random)]
            default: return -Int64.random(in: 0...9_990_000, using: &random)
            }
        }
    }

    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-9) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return abs(a - b) <= tolerance * max(1, abs(b))
        default: return false
        }
    }

    @Test func meanIntervalWelchAndSequentialEqualNumpy() throws {
        var random = SplitMix(state: 25)
        struct Case: Encodable {
            var a: [Double], b: [Double], x: Int, n: Int, x0: Int, n0: Int
        }
        var cases: [Case] = []
        var swift: [(ci: (Double, Double)?, welch: Double?, seq: (Double, Double)?, seqP: Double?)] = []
        // sizes include the edges: one customer, two, all equal (s = 0), both sides zero
        let sizes: [(Int, Int)] = [(1, 5), (2, 2), (3, 1), (10, 12), (50, 40), (400, 380), (2000, 2100)]
        for (index, (n, n0)) in (sizes + sizes.map { ($0.1, $0.0) }).enumerated() {
            var a = Self.amounts(n, &random)
            var b = Self.amounts(n0, &random)
            if index == 3 { a = [Int64](repeating: 4_990_000, count: n) }
            if index == 4 { (a, b) = ([Int64](repeating: 0, count: n), [Int64](repeating: 0, count: n0)) }
            let x = index == 4 ? 0 : Int.random(in: 0...n, using: &random)
            let x0 = index == 4 ? 0 : Int.random(in: 0...n0, using: &random)
            cases.append(
                Case(a: a.map { Double($0) / 1e6 }, b: b.map { Double($0) / 1e6 }, x: x, n: n, x0: x0, n0: n0))
            let sample = RevenueStatistics.sample(customers: Int64(n), amounts: a.filter { $0 != 0 })
            let control = RevenueStatistics.sample(customers: Int64(n0), amounts: b.filter { $0 != 0 })
            let p = Double(x) / Double(n)
            let p0 = Double(x0) / Double(n0)
            let v = RevenueStatistics.differenceVariance(
                rate: p, customers: Int64(n), controlRate: p0, controlCustomers: Int64(n0))
            swift.append(
                (
                    RevenueStatistics.meanInterval(sample), RevenueStatistics.welchPValue(sample, control: control),
                    RevenueStatistics.sequentialInterval(diff: p - p0, variance: v),
                    RevenueStatistics.sequentialPValue(diff: p - p0, variance: v)
                ))
        }
        let (status, output, errors) = try runPython(
            "revenue_statistics_check.py", [], stdin: try JSONEncoder().encode(cases))
        #expect(status == 0, "revenue_statistics_check.py: \(errors)")
        struct Result: Decodable {
            var ci: [Double]?, welch: Double?, seq: [Double]?, seqP: Double?
            enum CodingKeys: String, CodingKey {
                case ci, welch, seq
                case seqP = "seq_p"
            }
        }
        let python = try JSONDecoder().decode([Result].self, from: Data(output.utf8))
        #expect(python.count == swift.count)
        var welchTested = 0
        for (index, (mine, theirs)) in zip(swift, python).enumerated() {
            #expect(Self.close(mine.ci?.0, theirs.ci?[0]) && Self.close(mine.ci?.1, theirs.ci?[1]), "case \(index)")
            // NormalDist's cdf loses relative precision in the far tail: compare absolutely there
            #expect(
                Self.close(mine.welch, theirs.welch, 1e-9), "case \(index): \(mine.welch as Any) \(theirs.welch as Any)"
            )
            if mine.welch != nil { welchTested += 1 }
            #expect(Self.close(mine.seq?.0, theirs.seq?[0]) && Self.close(mine.seq?.1, theirs.seq?[1]), "case \(index)")
            #expect(Self.close(mine.seqP, theirs.seqP), "case \(index)")
        }
        // the edge cases really produced empties and the others really produced values
        #expect(swift[0].ci == nil && swift[4].welch == nil && swift[4].seq == nil && swift[4].seqP == nil)
        #expect(swift[3].ci?.0 == 4.99 && swift[3].ci?.1 == 4.99)
        #expect(welchTested >= 8)
    }

    /// The chi-square upper tail from its closed forms: for even k, e^{-x/2} Σ_{i<k/2} (x/2)^i / i!;
    /// for odd k, erfc(√(x/2)) + e^{-x/2} Σ_{i=1}^{(k−1)/2} (x/2)^{i−1/2} / Γ(i + 1/2).
    static func closedFormUpperTail(_ x: Double, _ k: Int) -> Double {
        let h = x / 2
        var sum = 0.0
        if k % 2 == 0 {
            var term = 1.0
            for i in 0..<(k / 2) {
                if i > 0 { term *= h / Double(i) }
                sum += term
            }
            return exp(-h) * sum
        }
        var term = h.squareRoot() / tgamma(1.5)
        for i in 1...max(1, (k - 1) / 2) where k > 1 {
            if i > 1 { term *= h / (Double(i) - 0.5) }
            sum += term
        }
        return erfc(h.squareRoot()) + exp(-h) * sum
    }

    @Test func chiSquareUpperTailEqualsTheClosedForms() {
        var checked = 0
        for k in 1...40 {
            for x in [0.001, 0.1, 0.5, 1, 2, 3.84, 5, 7.5, 10, 15, 20, 30, 45, 60, 100, 150] {
                let expected = Self.closedFormUpperTail(x, k)
                let actual = RevenueStatistics.chiSquareUpperTail(x, degreesOfFreedom: k)
                #expect(
                    abs(actual - expected) <= 1e-12 + 1e-9 * expected, "k = \(k), x = \(x): \(actual) vs \(expected)")
                checked += 1
            }
        }
        #expect(checked == 640)
        // the familiar critical values: 3.841 at 1 df and 5.991 at 2 df are the 5 % points
        #expect(abs(RevenueStatistics.chiSquareUpperTail(3.841459, degreesOfFreedom: 1) - 0.05) < 1e-6)
        #expect(abs(RevenueStatistics.chiSquareUpperTail(5.991465, degreesOfFreedom: 2) - 0.05) < 1e-6)
    }

    @Test func sampleRatioCheckIsPearsonAgainstAnEqualSplit() throws {
        // 1000 vs 1100: chi² = (50² + 50²) / 1050 = 4.7619, 1 df
        let p = try #require(RevenueStatistics.sampleRatioPValue([1000, 1100]))
        #expect(abs(p - Self.closedFormUpperTail(5000.0 / 1050, 1)) < 1e-12)
        #expect(RevenueStatistics.sampleRatioPValue([5]) == nil)
        #expect(RevenueStatistics.sampleRatioPValue([0, 0]) == nil)
        #expect(RevenueStatistics.sampleRatioPValue([300, 300, 300]) == 1)
        // a broken split is far below 0.001
        #expect(try #require(RevenueStatistics.sampleRatioPValue([1000, 800])) < 0.001)
    }

    /// Peeking: experiments with no difference (10 % both sides, 150 customers per side per day,
    /// a look every day for 30 days). The fixed-horizon p-value crosses 0.05 on some day far more
    /// often than 5 %; the always-valid p-value stays near or under 5 %.
    @Test func peekingDailyFoolsTheFixedPValueButNotTheSequentialOne() throws {
        var random = SplitMix(state: 2026)
        let experiments = 400
        var fixedCrossed = 0
        var sequentialCrossed = 0
        for _ in 0..<experiments {
            var (x, x0, n) = (Int64(0), Int64(0), Int64(0))
            var (fixed, sequential) = (false, false)
            for _ in 0..<30 {
                for _ in 0..<150 {
                    if Double.random(in: 0..<1, using: &random) < 0.1 { x += 1 }
                    if Double.random(in: 0..<1, using: &random) < 0.1 { x0 += 1 }
                }
                n += 150
                if let p = OfferingStatistics.pValue(
                    converted: x, customers: n, controlConverted: x0, controlCustomers: n),
                    p < 0.05
                {
                    fixed = true
                }
                let rate = Double(x) / Double(n)
                let rate0 = Double(x0) / Double(n)
                let v = RevenueStatistics.differenceVariance(
                    rate: rate, customers: n, controlRate: rate0, controlCustomers: n)
                if let p = RevenueStatistics.sequentialPValue(diff: rate - rate0, variance: v), p < 0.05 {
                    sequential = true
                }
            }
            if fixed { fixedCrossed += 1 }
            if sequential { sequentialCrossed += 1 }
        }
        let fixedShare = Double(fixedCrossed) / Double(experiments)
        let sequentialShare = Double(sequentialCrossed) / Double(experiments)
        #expect(fixedShare > 0.15, "fixed p-value crossed in \(fixedShare)")
        #expect(sequentialShare <= 0.06, "sequential p-value crossed in \(sequentialShare)")
        #expect(fixedShare > 3 * max(sequentialShare, 0.01))
    }

    @Test func sequentialIntervalExcludesZeroExactlyWhenTheSequentialPValueIsBelowAlpha() {
        // the interval and the p-value are the same test: 0 outside the interval ⇔ p < α
        for (diff, v) in [(0.02, 0.0001), (0.05, 0.0001), (0.03, 0.00005), (-0.04, 0.0002), (0.001, 0.01)] {
            let (low, high) = RevenueStatistics.sequentialInterval(diff: diff, variance: v)!
            let p = RevenueStatistics.sequentialPValue(diff: diff, variance: v)!
            #expect((low > 0 || high < 0) == (p < RevenueStatistics.alpha), "diff \(diff), V \(v)")
        }
    }
}
