import Foundation
import PaywallCore

/// The offering comparison's two charts over time, per placement with two or more offerings: each
/// offering's conversion (customers converted of customers, counted from the range's first day to
/// each day) with its 95 % Wilson interval as a band, and its revenue per customer to each day, on
/// the report's calendar axis (a day the offering was not seen is a gap). Read from the
/// `offering_trends` table (``OfferingTrends``). Conversion points' `<title>` is exactly
/// `DATE: RATE% (X of N; 95% LO–HI%)`; revenue points' is `DATE: $A per customer ($R of N customers)` ("1 customer").
extension HTMLReport {
    /// One (placement, offering)'s cumulative figures on one day.
    struct OfferingDay {
        var customers: Int
        var converted: Int
        var revenueMicros: Int64
    }

    /// The trend rows of `placement` per offering (by exact scalars), each by date.
    static func offeringDays(_ table: ReportTable?, placement: String) -> [ExactText: [String: OfferingDay]] {
        var out: [ExactText: [String: OfferingDay]] = [:]
        for record in table?.records ?? [] where ExactText.same(record["placement"], placement) {
            guard let date = record["date"], let customers = record["customers"].flatMap({ Int($0) }), customers > 0
            else { continue }
            out[ExactText(record["offering"] ?? ""), default: [:]][date] = OfferingDay(
                customers: customers, converted: record["converted"].flatMap { Int($0) } ?? 0,
                revenueMicros: record["revenue_micros"].flatMap { Int64($0) } ?? 0)
        }
        return out
    }

    /// The two charts of one placement, for `offerings` (names as stored, in the comparison's order).
    static func offeringTrends(
        _ placement: String, offerings: [String], table: ReportTable?, calendar: [String]
    ) -> String {
        guard !calendar.isEmpty else { return "" }
        let byOffering = offeringDays(table, placement: placement)
        var conversion: [SVGChart.DailySeries] = []
        var revenue: [SVGChart.DailySeries] = []
        for offering in offerings {
            let days = byOffering[ExactText(offering)] ?? [:]
            let name = offering.isEmpty ? "(none)" : offering
            var line = SVGChart.DailySeries(values: [], band: [], titles: [], name: name)
            var money = SVGChart.DailySeries(values: [], titles: [], name: name)
            for date in calendar {
                guard let day = days[date] else {
                    line.values.append(nil)
                    line.band?.append(nil)
                    line.titles.append("")
                    money.values.append(nil)
                    money.titles.append("")
                    continue
                }
                line.values.append(Double(day.converted) / Double(day.customers))
                line.band?.append(
                    OfferingStatistics.wilson(converted: Int64(day.converted), customers: Int64(day.customers)))
                line.titles.append(conversionTitle(date: date, purchased: day.converted, impressions: day.customers))
                money.values.append(Double(day.revenueMicros) / 1_000_000 / Double(day.customers))
                money.titles.append(revenuePerCustomerTitle(date: date, day))
            }
            conversion.append(line)
            revenue.append(money)
        }
        var out = "<div class=\"offering-trends\"><ul class=\"legend\">"
        for (number, offering) in offerings.enumerated() {
            let name = offering.isEmpty ? "(none)" : offering
            out += "<li><span class=\"swatch s\(number % 8)\"></span>\(HTMLEscaping.data(name))</li>"
        }
        out += "</ul><div class=\"trends\"><div><h4>Conversion of customers, from the first day to each day "
        out += "(band: 95 % interval)</h4>"
        out += SVGChart.daily(
            days: calendar, series: conversion, title: "Conversion by offering over time at \(placement)",
            xTitle: "Day", yTitle: "Customers converted", percent: true)
        out += "</div><div><h4>Revenue per customer, from the first day to each day</h4>"
        out += SVGChart.daily(
            days: calendar, series: revenue, title: "Revenue per customer by offering over time at \(placement)",
            xTitle: "Day", yTitle: "US dollars per customer", percent: false)
        return out + "</div></div></div>"
    }

    /// `DATE: $A per customer ($R of N customers)` ("1 customer"): the attributed revenue to that day per customer
    /// (half to even, 2 decimals), the revenue itself and the customers it divides by.
    static func revenuePerCustomerTitle(date: String, _ day: OfferingDay) -> String {
        let perCustomer = ReportMoney.format(micros: day.revenueMicros, per: Int64(day.customers), places: 2)
        let total = ReportMoney.format(micros: day.revenueMicros, places: 2)
        let customers = day.customers == 1 ? "1 customer" : "\(day.customers) customers"
        return "\(date): \(dollarText(perCustomer)) per customer (\(dollarText(total)) of \(customers))"
    }

    /// "$1.20", "-$0.50".
    static func dollarText(_ amount: String) -> String {
        amount.hasPrefix("-") ? "-$" + amount.dropFirst() : "$" + amount
    }
}
