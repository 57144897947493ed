import Foundation

/// Exact money formatting (funnels.md "Formats"): sums are kept in integer micro-dollars and a
/// quotient of integers is rounded half to even to the places asked, never through a binary float.
enum ReportMoney {
    /// `numerator / denominator` micro-dollars as dollars with `places` decimals (0…6), half to even.
    static func format(micros numerator: Int64, per denominator: Int64 = 1, places: Int) -> String {
        precondition(denominator > 0 && (0...6).contains(places))
        var scale: Int64 = 1
        for _ in places..<6 { scale *= 10 }
        // the value in units of 10^-places is numerator / (denominator × scale), rounded half to even
        let divisor = denominator.multipliedReportingOverflow(by: scale)
        let negative = numerator < 0
        var quotient: UInt64 = 0
        if !divisor.overflow {  // (an overflowing divisor exceeds any numerator: the quotient is 0)
            let d = UInt64(divisor.partialValue)
            quotient = numerator.magnitude / d
            let r = numerator.magnitude % d
            if r > d - r || (r == d - r && quotient % 2 == 1) { quotient += 1 }
        }
        var digits = String(quotient)
        if places > 0 {
            if digits.count <= places { digits = String(repeating: "0", count: places - digits.count + 1) + digits }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -places))
        }
        return (negative && quotient != 0 ? "-" : "") + digits
    }
}

/// The rows of `revenue.csv` and the subscription columns the offering comparison and data quality
/// gain, from the report's ``MoneyByDay`` (a full attribution's, or the nightly job's state).
struct RevenueRows {
    let money: MoneyByDay
    var days: [ReportDay] { money.days }
    /// The window's money per placement and offering (summed once, when made: the costly part of
    /// the offering comparison's columns, so it runs wherever the rows are made).
    let offeringMoney: [String: [String: OfferingMoney]]

    /// The rows of `money`'s report.
    init(money: MoneyByDay) {
        self.money = money
        offeringMoney = Self.offeringMoney(money)
    }

    /// An offering's money over the window: its sums and each customer's revenue.
    struct OfferingMoney {
        var paid: Int64 = 0, trials: Int64 = 0, revenue: Int64 = 0
        /// Each customer's revenue, while the cells are summed.
        var byCustomer: [Int64: Int64] = [:]
        /// Each customer's revenue, sorted (``byCustomer``'s values, once every cell is in).
        var amounts: [Int64] = []

        mutating func add(_ c: MoneyCell) {
            trials += c.trials
            paid += c.paid
            revenue += c.revenue
            for (customer, money) in c.customers { byCustomer[customer, default: 0] += money.revenue }
        }
    }

    /// Every day's cells summed per placement and offering, in place through the dictionaries'
    /// accessors. Design note (speed): an earlier version copied an offering's money out, changed it
    /// and stored it back, so every subscription copied that offering's whole `byCustomer` table
    /// (copy on write, the table being referenced twice): with 1M subscription events beside 10M
    /// paywall events that made the report's CSV stage 6.0 s of CPU (`paywall-bench report
    /// subscriptions`, quiet machine).
    static func offeringMoney(_ money: MoneyByDay) -> [String: [String: OfferingMoney]] {
        var sums: [String: [String: OfferingMoney]] = [:]
        for entries in money.cells {
            for entry in entries {
                sums[entry.placement, default: [:]][entry.offering, default: OfferingMoney()].add(entry.cell)
            }
        }
        return sums.mapValues { offerings in
            offerings.mapValues { summed in
                var money = summed
                money.amounts = summed.byCustomer.values.sorted()
                money.byCustomer = [:]
                return money
            }
        }
    }

    /// `revenue.csv`: one row per (date, placement, impressions) of the conversion funnel.
    func revenueRows(conversion: [(date: String, placement: String, impressions: Int64)]) -> [[ReportValue]] {
        struct Sums {
            var paid: Int64 = 0, trials: Int64 = 0, conversions: Int64 = 0, pending: Int64 = 0, refunds: Int64 = 0
            var revenue: Int64 = 0, proceeds: Int64 = 0

            mutating func add(_ c: MoneyCell, asOf: Int64) {
                trials += c.trials
                conversions += c.conversions
                pending += c.pending(asOf: asOf)
                paid += c.paid
                refunds += c.refunds
                revenue += c.revenue
                proceeds += c.proceeds
            }
        }
        // By day index, then placement; summed in place (no copy of a day's table per cell).
        var sums = [[String: Sums]](repeating: [:], count: days.count)
        for (day, entries) in money.cells.enumerated() {
            for entry in entries { sums[day][entry.placement, default: Sums()].add(entry.cell, asOf: money.asOf) }
        }
        var dayOfDate: [String: Int] = [:]
        for (index, day) in days.enumerated() { dayOfDate[day.date.description] = index }
        return conversion.map { row in
            let sum = dayOfDate[row.date].flatMap { sums[$0][row.placement] } ?? Sums()
            let decided = sum.trials - sum.pending
            return [
                .text(row.date), .text(row.placement), .integer(row.impressions), .integer(sum.paid),
                .integer(sum.trials), .integer(sum.conversions), .integer(sum.pending),
                decided > 0 ? .real(Double(sum.conversions) / Double(decided)) : .null, .integer(sum.refunds),
                .text(ReportMoney.format(micros: sum.revenue, places: 2)),
                .text(ReportMoney.format(micros: sum.proceeds, places: 2)),
                row.impressions > 0
                    ? .text(ReportMoney.format(micros: sum.revenue, per: row.impressions, places: 4)) : .null,
            ]
        }
    }

    /// The offering comparison's rows with funnels.md's money and sequential columns appended.
    /// `rows` are the existing columns (placement, offering, customers, impressions, converted,
    /// conversion_rate, ci_low, ci_high, is_control, lift, p_value), with unrounded rates.
    func offeringRows(_ rows: [[ReportValue]]) -> [[ReportValue]] {
        let money = offeringMoney
        func text(_ value: ReportValue) -> String { if case .text(let t) = value { t } else { "" } }
        func integer(_ value: ReportValue) -> Int64 { if case .integer(let i) = value { i } else { 0 } }
        func real(_ value: ReportValue) -> Double {
            switch value {
            case .real(let r): r
            case .integer(let i): Double(i)
            default: 0
            }
        }
        struct Side {
            var sample: RevenueStatistics.Sample
            var rate: Double
            var customers: Int64
        }
        var sides: [String: [String: Side]] = [:]
        var controls: [String: String] = [:]
        for row in rows {
            let (placement, offering, customers) = (text(row[0]), text(row[1]), integer(row[2]))
            let m = money[placement]?[offering] ?? OfferingMoney()
            sides[placement, default: [:]][offering] = Side(
                sample: RevenueStatistics.sample(customers: customers, amounts: m.amounts),
                rate: real(row[5]), customers: customers)
            if text(row[8]) == "true" { controls[placement] = offering }
        }
        var srm: [String: Double?] = [:]
        for (placement, offered) in sides {
            srm[placement] = RevenueStatistics.sampleRatioPValue(
                offered.filter { !$0.key.isEmpty }.sorted { codePointLess($0.key, $1.key) }.map(\.value.customers))
        }
        return rows.map { row in
            let (placement, offering) = (text(row[0]), text(row[1]))
            let m = money[placement]?[offering] ?? OfferingMoney()
            let side = sides[placement]![offering]!
            let isControl = controls[placement] == offering
            let control = controls[placement].flatMap { sides[placement]?[$0] }
            var added: [ReportValue] = [
                .integer(m.paid), .integer(m.trials), .text(ReportMoney.format(micros: m.revenue, places: 2)),
                side.customers > 0
                    ? .text(ReportMoney.format(micros: m.revenue, per: side.customers, places: 4)) : .null,
            ]
            if let interval = RevenueStatistics.meanInterval(side.sample) {
                added += [.real(interval.low), .real(interval.high)]
            } else {
                added += [.null, .null]
            }
            if !isControl, let control {
                added.append(
                    RevenueStatistics.welchPValue(side.sample, control: control.sample).map { .real($0) } ?? .null)
                let diff = side.rate - control.rate
                added.append(.real(diff))
                let v = RevenueStatistics.differenceVariance(
                    rate: side.rate, customers: side.customers, controlRate: control.rate,
                    controlCustomers: control.customers)
                if let interval = RevenueStatistics.sequentialInterval(diff: diff, variance: v),
                    let p = RevenueStatistics.sequentialPValue(diff: diff, variance: v)
                {
                    added += [.real(interval.low), .real(interval.high), .real(p)]
                } else {
                    added += [.null, .null, .null]
                }
            } else {
                added += [.null, .null, .null, .null, .null]
            }
            added.append((srm[placement] ?? nil).map { .real($0) } ?? .null)
            return row + added
        }
    }

    /// Data quality's rows with the three subscription counts appended; days that have only
    /// subscription events get a row of zeros for the other columns. `rows` start with the date.
    func dataQualityRows(_ rows: [[ReportValue]], columns: Int) -> [[ReportValue]] {
        let counts = money.stampCounts
        var byDate: [String: [ReportValue]] = [:]
        for row in rows { if case .text(let date) = row[0] { byDate[date] = row } }
        var result: [[ReportValue]] = []
        for (index, day) in days.enumerated() {
            let date = day.date.description
            let c = counts[index]
            if let row = byDate[date] {
                result.append(row + c.map { .integer($0) })
            } else if c.contains(where: { $0 > 0 }) {
                result.append(
                    [.text(date)] + [ReportValue](repeating: .integer(0), count: columns - 1) + c.map { .integer($0) })
            }
        }
        return result
    }
}
