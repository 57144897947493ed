import Foundation

/// The statistics of the offering comparison's money and sequential columns (funnels.md "Offering
/// comparison"): the mean interval and Welch test of revenue per customer, the always-valid
/// (mixture sequential probability ratio test) interval and p-value of a difference in conversion,
/// and the sample-ratio chi-square check. Pure functions of their arguments.
enum RevenueStatistics {
    /// The normal mixture's standard deviation τ of the always-valid interval.
    static let tau = 0.05
    /// The always-valid interval's error rate α (a 95 % interval).
    static let alpha = 0.05

    /// The mean, the sample standard deviation (divisor `n − 1`) and `n` of one row's customers.
    struct Sample: Equatable {
        /// Customers (`n`).
        var n: Int64
        /// The mean revenue per customer, in dollars.
        var mean: Double
        /// The sample standard deviation, in dollars (0 when `n < 2`).
        var sd: Double
    }

    /// The sample of `n` customers of whom those in `amounts` (micro-dollars, one per customer with
    /// revenue) have that revenue and the rest 0. Two passes over the values, in the order given
    /// after sorting, so every caller gets the same doubles.
    static func sample(customers n: Int64, amounts: [Int64]) -> Sample {
        guard n > 0 else { return Sample(n: 0, mean: 0, sd: 0) }
        let values = amounts.sorted().map { Double($0) / 1_000_000 }
        let total = Double(amounts.reduce(0, +)) / 1_000_000
        let mean = total / Double(n)
        guard n > 1 else { return Sample(n: n, mean: mean, sd: 0) }
        var squares = Double(n - Int64(values.count)) * mean * mean
        for value in values { squares += (value - mean) * (value - mean) }
        return Sample(n: n, mean: mean, sd: (squares / Double(n - 1)).squareRoot())
    }

    /// `m ± 1.959964 × s / sqrt(n)`; `nil` when `n < 2`.
    static func meanInterval(_ sample: Sample) -> (low: Double, high: Double)? {
        guard sample.n >= 2 else { return nil }
        let half = OfferingStatistics.z * sample.sd / Double(sample.n).squareRoot()
        return (sample.mean - half, sample.mean + half)
    }

    /// The two-sided Welch z-test of `sample`'s mean against `control`'s:
    /// `erfc(|m − m₀| / sqrt(s²/n + s₀²/n₀) / sqrt(2))`; `nil` when either side has `n < 2` or the
    /// denominator is 0.
    static func welchPValue(_ sample: Sample, control: Sample) -> Double? {
        guard sample.n >= 2, control.n >= 2 else { return nil }
        let se = (sample.sd * sample.sd / Double(sample.n) + control.sd * control.sd / Double(control.n)).squareRoot()
        guard se > 0 else { return nil }
        return erfc(abs(sample.mean - control.mean) / se / 2.0.squareRoot())
    }

    /// The variance `V = p(1 − p)/n + p₀(1 − p₀)/n₀` of a difference of two rates.
    static func differenceVariance(
        rate p: Double, customers n: Int64, controlRate p0: Double, controlCustomers n0: Int64
    )
        -> Double
    {
        p * (1 - p) / Double(n) + p0 * (1 - p0) / Double(n0)
    }

    /// The always-valid 95 % interval of `diff` with variance `v`:
    /// `diff ± sqrt(V (V + τ²) / τ² × (2 ln(1/α) + ln((V + τ²) / V)))`; `nil` when `V = 0`.
    static func sequentialInterval(diff: Double, variance v: Double) -> (low: Double, high: Double)? {
        guard v > 0 else { return nil }
        let tau2 = tau * tau
        let half = (v * (v + tau2) / tau2 * (2 * log(1 / alpha) + log((v + tau2) / v))).squareRoot()
        return (diff - half, diff + half)
    }

    /// The always-valid p-value `min(1, sqrt((V + τ²) / V) × exp(−τ² diff² / (2 V (V + τ²))))`;
    /// `nil` when `V = 0`.
    static func sequentialPValue(diff: Double, variance v: Double) -> Double? {
        guard v > 0 else { return nil }
        let tau2 = tau * tau
        return min(1, ((v + tau2) / v).squareRoot() * exp(-tau2 * diff * diff / (2 * v * (v + tau2))))
    }

    /// The sample-ratio check: Pearson's chi-square of `counts` against an equal split, upper-tail
    /// probability with `k − 1` degrees of freedom; `nil` when fewer than 2 counts or none counted.
    static func sampleRatioPValue(_ counts: [Int64]) -> Double? {
        guard counts.count >= 2 else { return nil }
        let total = Double(counts.reduce(0, +))
        guard total > 0 else { return nil }
        let expected = total / Double(counts.count)
        let statistic = counts.reduce(0.0) { $0 + (Double($1) - expected) * (Double($1) - expected) / expected }
        return chiSquareUpperTail(statistic, degreesOfFreedom: counts.count - 1)
    }

    /// The upper-tail probability of the chi-square distribution: `Q(df / 2, x / 2)`.
    static func chiSquareUpperTail(_ x: Double, degreesOfFreedom df: Int) -> Double {
        guard x > 0 else { return 1 }
        return regularizedUpperGamma(Double(df) / 2, x / 2)
    }

    /// The regularized upper incomplete gamma function `Q(a, x) = Γ(a, x) / Γ(a)`, by its series
    /// below `x < a + 1` and by its continued fraction (modified Lentz) above.
    static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        guard x > 0 else { return 1 }
        let logPrefix = a * log(x) - x - lgamma(a)
        if x < a + 1 {
            var term = 1 / a
            var sum = term
            var n = a
            for _ in 0..<10_000 {
                n += 1
                term *= x / n
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return max(0, 1 - sum * exp(logPrefix))
        }
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1...10_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(1, exp(logPrefix) * h)
    }
}
