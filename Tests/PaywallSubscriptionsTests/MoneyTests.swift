import Foundation
import PaywallSubscriptions
import Testing

/// Prices to micro-dollars from their decimal text: exact, rounded once, half to even.
@Suite struct MoneyTests {
    func micros(_ text: String) -> Int64? { Money.decimal(text).flatMap(Money.micros) }

    @Test func pricesBecomeExactMicros() {
        #expect(micros("4.99") == 4_990_000)
        #expect(micros("-4.99") == -4_990_000)
        #expect(micros("0") == 0)
        #expect(micros("1e2") == 100_000_000)
        #expect(micros("1.5E-3") == 1_500)
        #expect(micros("129.99") == 129_990_000)
    }

    @Test func halvesRoundToEven() {
        #expect(micros("1.0000005") == 1_000_000)
        #expect(micros("1.0000015") == 1_000_002)
        #expect(micros("-1.0000025") == -1_000_002)
        #expect(micros("0.0000025") == 2)
        #expect(micros("0.00000251") == 3)
    }

    @Test func sumsOfMicrosAreExactWhereBinaryFloatsAreNot() {
        let prices = ["0.1", "0.2"]
        #expect(prices.compactMap(micros).reduce(0, +) == 300_000)
        #expect(prices.compactMap(Double.init).reduce(0, +) != 0.3)
    }

    @Test func proceedsFollowTaxAndCommissionOrTheOlderTakehome() {
        let price = Money.decimal("10")
        #expect(
            Money.proceedsMicros(
                price: price, tax: Money.decimal("0.1"), commission: Money.decimal("0.15"), takehome: nil) == 7_500_000)
        #expect(
            Money.proceedsMicros(
                price: price, tax: nil, commission: Money.decimal("0.3"), takehome: Money.decimal("0.5")) == 7_000_000)
        #expect(
            Money.proceedsMicros(price: price, tax: nil, commission: nil, takehome: Money.decimal("0.7")) == 7_000_000)
        #expect(Money.proceedsMicros(price: price, tax: nil, commission: nil, takehome: nil) == 10_000_000)
        #expect(Money.proceedsMicros(price: nil, tax: Money.decimal("0.1"), commission: nil, takehome: nil) == nil)
        // 1 × (1 − 0.3000005) = 0.6999995 → 699,999.5 micros → 700,000 (even); 3 × 0.8333335 → 2,500,000.5 → 2,500,000.
        #expect(
            Money.proceedsMicros(
                price: Money.decimal("1"), tax: nil, commission: Money.decimal("0.3000005"), takehome: nil) == 700_000)
        #expect(
            Money.proceedsMicros(
                price: Money.decimal("3"), tax: nil, commission: Money.decimal("0.1666665"), takehome: nil) == 2_500_000
        )
    }

    @Test func amountsBeyondSixtyFourBitsAreRefused() {
        #expect(micros("1e400") == nil)
        #expect(micros("99999999999999999999") == nil)
    }
}
