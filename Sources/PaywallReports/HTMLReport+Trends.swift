import Foundation

/// A placement's daily trends on the page: impressions per day, and purchases per impression per
/// day with its 95 % Wilson interval as a band, both on the report's calendar axis (a day without
/// data is a gap). Each conversion point's `<title>` is exactly
/// `DATE: RATE% (X of N; 95% LO–HI%)` (``conversionTitle(date:purchased:impressions:)``).
extension HTMLReport {
    /// The two daily charts of one placement.
    static func trends(_ placement: String, calendar: [String], model: HTMLReportModel) -> String {
        let byDate = model.dailyByDate(for: placement)
        let impressions = SVGChart.DailySeries(
            values: calendar.map { byDate[$0].map { Double($0.impressions) } },
            titles: calendar.map { date in byDate[date].map { "\(date): \($0.impressions) impressions" } ?? "" })
        var out = "<div class=\"trends\"><div><h3>Impressions per day</h3>"
        out += SVGChart.daily(
            days: calendar, series: [impressions], title: "Impressions per day at \(placement)", xTitle: "Day",
            yTitle: "Impressions", percent: false, minimumStep: 1)
        out += "</div><div><h3>Purchases per impression, per day (band: 95 % interval)</h3>"
        out += SVGChart.daily(
            days: calendar, series: [conversionSeries(calendar, byDate)],
            title: "Purchases per impression per day at \(placement)", xTitle: "Day",
            yTitle: "Purchases per impression", percent: true)
        return out + "</div></div>"
    }

    /// Purchases per impression per day with its Wilson interval; a day without impressions is a gap.
    static func conversionSeries(_ calendar: [String], _ byDate: [String: HTMLReportModel.Day]) -> SVGChart.DailySeries
    {
        var series = SVGChart.DailySeries(values: [], band: [], titles: [])
        for date in calendar {
            guard let day = byDate[date], day.impressions > 0 else {
                series.values.append(nil)
                series.band?.append(nil)
                series.titles.append("")
                continue
            }
            let interval = OfferingStatistics.wilson(
                converted: Int64(day.purchased), customers: Int64(day.impressions))
            series.values.append(Double(day.purchased) / Double(day.impressions))
            series.band?.append(interval)
            series.titles.append(conversionTitle(date: date, purchased: day.purchased, impressions: day.impressions))
        }
        return series
    }

    /// `DATE: RATE% (X of N; 95% LO–HI%)`: the rate and the bounds of its 95 % Wilson score interval
    /// in percent, each rounded to one decimal (`%.1f`, the nearest tenth of the double), with an
    /// en dash between the bounds. `impressions` must be at least 1.
    static func conversionTitle(date: String, purchased: Int, impressions: Int) -> String {
        let interval = OfferingStatistics.wilson(converted: Int64(purchased), customers: Int64(impressions))
        let rate = Double(purchased) / Double(impressions)
        func tenth(_ value: Double) -> String { FixedPoint.string(value * 100, decimals: 1) }
        return
            "\(date): \(tenth(rate))% (\(purchased) of \(impressions); 95% \(tenth(interval.low))\u{2013}\(tenth(interval.high))%)"
    }
}
