import Foundation
import PaywallCore

/// The offering comparison's two charts over time, per placement with two or more offerings, on the
/// report's calendar axis, one line per offering (a day the offering was not seen is a gap): its
/// conversion of customers counted from the range's first day through each day, with its 95 % Wilson
/// interval as a band, and its revenue per customer over the same days. Read from the
/// `offering_trends` table (``OfferingTrends``). Each point's `<title>` says exactly what it counts
/// (``trendConversionTitle(first:date:offering:placement:_:)``, ``trendRevenueTitle(first:date:offering:placement:_:)``).
extension HTMLReport {
    /// One (placement, offering)'s cumulative figures on one day.
    struct OfferingDay {
        var customers: Int
        var converted: Int
        var revenueMicros: Int64
    }

    /// The trend rows per placement and offering (both by exact scalars), each by date: one pass over
    /// the table (the page draws every compared placement from it).
    static func offeringDays(_ table: ReportTable?) -> [ExactText: [ExactText: [String: OfferingDay]]] {
        guard let table else { return [:] }
        let column = { (name: String) in table.columns.firstIndex(of: name) }
        guard let date = column("date"), let placement = column("placement"), let offering = column("offering"),
            let customers = column("customers"), let converted = column("converted"),
            let revenue = column("revenue_micros")
        else { return [:] }
        var out: [ExactText: [ExactText: [String: OfferingDay]]] = [:]
        for row in table.rows {
            guard let count = Int(row[customers]), count > 0 else { continue }
            out[ExactText(row[placement]), default: [:]][ExactText(row[offering]), default: [:]][row[date]] =
                OfferingDay(
                    customers: count, converted: Int(row[converted]) ?? 0, revenueMicros: Int64(row[revenue]) ?? 0)
        }
        return out
    }

    /// The two charts of one placement, for `offerings` (names as stored, in the comparison's order);
    /// `byOffering`: the placement's rows of ``offeringDays(_:)``.
    static func offeringTrends(
        _ placement: String, offerings: [String], byOffering: [ExactText: [String: OfferingDay]], calendar: [String]
    ) -> String {
        guard let first = calendar.first else { return "" }
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
                line.titles.append(
                    trendConversionTitle(first: first, date: date, offering: name, placement: placement, day))
                money.values.append(Double(day.revenueMicros) / 1_000_000 / Double(day.customers))
                money.titles.append(
                    trendRevenueTitle(first: first, date: date, offering: name, placement: placement, day))
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

    /// `FIRST to DATE: X of N customers who saw offering O at P converted, RATE% (95% LO–HI%)` ("1 customer"): of the
    /// customers who saw the offering at the placement on any day from the range's first day through
    /// DATE, those with a purchase on one of those presentations; the rate and its 95 % Wilson score
    /// interval in percent to one decimal (`%.1f`), an en dash between the bounds.
    static func trendConversionTitle(
        first: String, date: String, offering: String, placement: String, _ day: OfferingDay
    ) -> String {
        let interval = OfferingStatistics.wilson(converted: Int64(day.converted), customers: Int64(day.customers))
        func tenth(_ value: Double) -> String { FixedPoint.string(value * 100, decimals: 1) }
        let rate = tenth(Double(day.converted) / Double(day.customers))
        let customers = day.customers == 1 ? "1 customer" : "\(day.customers) customers"
        return "\(first) to \(date): \(day.converted) of \(customers) who saw offering \(offering) at "
            + "\(placement) converted, \(rate)% (95% \(tenth(interval.low))\u{2013}\(tenth(interval.high))%)"
    }

    /// `FIRST to DATE: $A per customer ($R from the subscriptions attributed to offering O at P, over N
    /// customers who saw it)` ("1 customer"): the revenue (as of the run) of the subscriptions attributed
    /// to the offering's presentations of those days, divided by the customers who saw it on those
    /// days (half to even, 2 decimals).
    static func trendRevenueTitle(
        first: String, date: String, offering: String, placement: String, _ day: OfferingDay
    ) -> String {
        let perCustomer = ReportMoney.format(micros: day.revenueMicros, per: Int64(day.customers), places: 2)
        let total = ReportMoney.format(micros: day.revenueMicros, places: 2)
        let customers = day.customers == 1 ? "1 customer" : "\(day.customers) customers"
        return "\(first) to \(date): \(dollarText(perCustomer)) per customer (\(dollarText(total)) from the "
            + "subscriptions attributed to offering \(offering) at \(placement), over \(customers) who saw it)"
    }

    /// "$1.20", "-$0.50".
    static func dollarText(_ amount: String) -> String {
        amount.hasPrefix("-") ? "-$" + amount.dropFirst() : "$" + amount
    }
}
