import PaywallCore

extension PresentationScan {
    /// `offering_comparison.csv`: per placement, each offering's customers, impressions, converted
    /// customers, rate with its Wilson interval, and against the placement's control (`control`
    /// where the placement has it, else the offering with the most customers, ties by code points)
    /// the lift and the p-value; sorted by placement, then offering, by code points.
    func offeringRows(control: String?) -> [[ReportValue]] {
        struct Row {
            let offering: String
            let impressions: Int64
            let customers: Int64
            let converted: Int64
        }
        var byPlacement: [Int: [Row]] = [:]
        for tally in offerings.tallies {
            byPlacement[tally.placement, default: []].append(
                Row(
                    offering: offerings.names[tally.offering], impressions: tally.impressions,
                    customers: tally.customers.count, converted: tally.converted.count))
        }
        var rows: [[ReportValue]] = []
        for placement in byPlacement.keys.sorted(by: { codePointLess(placements[$0], placements[$1]) }) {
            let offered = byPlacement[placement]!.sorted { codePointLess($0.offering, $1.offering) }
            let chosen =
                offered.first { row in control.map { row.offering.utf8.elementsEqual($0.utf8) } ?? false }
                ?? offered.min {
                    $0.customers != $1.customers ? $0.customers > $1.customers : codePointLess($0.offering, $1.offering)
                }!
            let controlRate = Double(chosen.converted) / Double(chosen.customers)
            for row in offered {
                let rate = Double(row.converted) / Double(row.customers)
                let interval = OfferingStatistics.wilson(converted: row.converted, customers: row.customers)
                let isControl = row.offering.utf8.elementsEqual(chosen.offering.utf8)
                let lift = isControl ? nil : OfferingStatistics.lift(rate: rate, controlRate: controlRate)
                let p =
                    isControl
                    ? nil
                    : OfferingStatistics.pValue(
                        converted: row.converted, customers: row.customers,
                        controlConverted: chosen.converted, controlCustomers: chosen.customers)
                rows.append([
                    .text(placements[placement]), .text(row.offering), .integer(row.customers),
                    .integer(row.impressions), .integer(row.converted), .real(rate),
                    .real(interval.low), .real(interval.high), .text(isControl ? "true" : "false"),
                    lift.map(ReportValue.real) ?? .null, p.map(ReportValue.real) ?? .null,
                ])
            }
        }
        return rows
    }
}

extension PresentationScan {
    /// The offering trends' counts (``OfferingTrends``): per day each (placement, offering) was seen,
    /// its ``OfferingTallies/Point`` as date, placement, offering, customers, converted; sorted by
    /// day, then placement and offering by code points. Needs ``OfferingTallies/finish()`` first.
    func offeringTrendRows() -> [[ReportValue]] {
        var rows: [(day: Int, placement: String, offering: String, point: OfferingTallies.Point)] = []
        for tally in offerings.tallies {
            let (placement, offering) = (placements[tally.placement], offerings.names[tally.offering])
            for point in tally.points { rows.append((point.day, placement, offering, point)) }
        }
        rows.sort {
            if $0.day != $1.day { return $0.day < $1.day }
            if !ExactText.same($0.placement, $1.placement) { return codePointLess($0.placement, $1.placement) }
            return codePointLess($0.offering, $1.offering)
        }
        return rows.map {
            [
                .text(days[$0.day].date.description), .text($0.placement), .text($0.offering),
                .integer($0.point.customers), .integer($0.point.converted),
            ]
        }
    }
}
