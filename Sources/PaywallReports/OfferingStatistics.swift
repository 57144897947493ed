import Foundation

/// The statistics of funnels.md "Offering comparison", written with the same operations in the
/// same order as `reports/offering_comparison.sql`, so both engines compute the same doubles.
enum OfferingStatistics {
    /// The normal quantile of 97.5 % (a 95 % two-sided interval), as funnels.md fixes it.
    static let z = 1.959964

    /// The Wilson score interval of `converted / customers` at 95 %, clamped to [0, 1]
    /// (`customers` must be at least 1).
    static func wilson(converted: Int64, customers: Int64) -> (low: Double, high: Double) {
        let n = Double(customers)
        let rate = Double(converted) / n
        let z2 = z * z
        let denominator = 1 + z2 / n
        let center = (rate + z2 / Double(2 * customers)) / denominator
        let half = z * (rate * (1 - rate) / n + z2 / (4.0 * n * n)).squareRoot() / denominator
        return (max(0.0, center - half), min(1.0, center + half))
    }

    /// The two-sided p-value of the two-proportion z-test with the pooled rate of
    /// `converted / customers` against the control's; `nil` when the pooled standard error is 0.
    static func pValue(converted: Int64, customers: Int64, controlConverted: Int64, controlCustomers: Int64) -> Double?
    {
        let rate = Double(converted) / Double(customers)
        let controlRate = Double(controlConverted) / Double(controlCustomers)
        let pooled = Double(converted + controlConverted) / Double(customers + controlCustomers)
        let inverseSizes = 1.0 / Double(customers) + 1.0 / Double(controlCustomers)
        let se = (pooled * (1 - pooled) * inverseSizes).squareRoot()
        guard se > 0 else { return nil }
        return erfc(abs(rate - controlRate) / se / 2.0.squareRoot())
    }

    /// `rate / controlRate − 1`; `nil` when the control's rate is 0.
    static func lift(rate: Double, controlRate: Double) -> Double? {
        controlRate > 0 ? rate / controlRate - 1 : nil
    }
}
