import Foundation

/// Daily charts on a calendar axis: one slot per calendar day, so a day without data breaks the
/// line (a gap) instead of joining its neighbours with a step. Both axes carry a title, the y-axis
/// has round ticks (``ticks(for:minimumStep:)``), and a series can carry an interval drawn as a
/// band behind its line. Every point is an SVG `<circle>` carrying its own `<title>`, so a reader
/// hovering it, and a tool reading the page, get the exact figure.
extension SVGChart {
    /// One series of a daily chart, aligned with the chart's days.
    struct DailySeries {
        /// The value per day; `nil` for a day without data (a gap).
        var values: [Double?]
        /// The interval per day, drawn as a band behind the line; `nil` for none.
        var band: [(low: Double, high: Double)?]? = nil
        /// The `<title>` of each point.
        var titles: [String]
        /// The series' name when a chart draws several (its group's `aria-label`); `nil` for none.
        var name: String? = nil
    }

    /// The chart's geometry, in SVG user units (the page shows it about 1:1 at desktop widths).
    struct DailyFrame {
        static let width = 960.0, height = 280.0, left = 70.0, right = 44.0, top = 14.0, bottom = 52.0
        static var plotWidth: Double { width - left - right }
        static var plotHeight: Double { height - top - bottom }
    }

    /// Round y-axis ticks from 0 to at least `maxValue`: a step of 1, 2, 2.5 or 5 times a power
    /// of ten (at least `minimumStep`), and 4 to 6 ticks.
    static func ticks(for maxValue: Double, minimumStep: Double = 0) -> [Double] {
        let target = max(maxValue, 1e-12) / 5
        let magnitude = pow(10, floor(log10(target)))
        var step = [1, 2, 2.5, 5, 10].map { $0 * magnitude }.first { $0 >= target * (1 - 1e-9) } ?? 10 * magnitude
        step = max(step, minimumStep)
        let count = max(3, Int((maxValue / step - 1e-9).rounded(.up)))
        return (0...count).map { Double($0) * step }
    }

    /// `value` with as few decimals as the step between ticks needs (at most 3).
    static func tickText(_ value: Double, step: Double) -> String {
        var decimals = 0
        while decimals < 3, abs(step * pow(10, Double(decimals)) - (step * pow(10, Double(decimals))).rounded()) > 1e-6
        {
            decimals += 1
        }
        return FixedPoint.string(value, decimals: decimals)
    }

    /// A daily chart over `days` (ISO dates, every calendar day of the axis). `percent`: values are
    /// fractions shown as percentages. Series are drawn in order with classes `s0`, `s1`, …
    static func daily(
        days: [String], series: [DailySeries], title: String, xTitle: String, yTitle: String, percent: Bool,
        minimumStep: Double = 0
    ) -> String {
        guard !days.isEmpty, series.contains(where: { $0.values.contains { $0 != nil } }) else {
            return "<p class=\"empty\">No data in this range.</p>"
        }
        typealias F = DailyFrame
        var highest = 0.0
        for line in series {
            for (index, value) in line.values.enumerated() {
                highest = max(highest, value ?? 0, line.band?[index]?.high ?? 0)
            }
        }
        let ticks = ticks(for: percent ? min(max(highest, 0.01), 1) : highest, minimumStep: minimumStep)
        let step = ticks[1]
        let top = ticks[ticks.count - 1]
        func x(_ index: Int) -> Double { F.left + F.plotWidth * (Double(index) + 0.5) / Double(days.count) }
        func y(_ value: Double) -> Double { F.top + F.plotHeight * (1 - min(max(value, 0), top) / top) }
        // Each day's x and each point's y formatted once (`fmt` is a Foundation format call, the bulk of
        // a chart's cost): the same text wherever the band, the line and the point repeat them.
        let xs = days.indices.map { fmt(x($0)) }
        let bottomY = F.top + F.plotHeight
        var svg = """
            <svg class="chart daily" viewBox="0 0 \(Int(F.width)) \(Int(F.height))" role="img" aria-label="\(HTMLEscaping.attribute(title))" preserveAspectRatio="xMinYMin meet">
            """
        // Grid and y ticks
        for tick in ticks {
            let label = percent ? tickText(tick * 100, step: step * 100) + "%" : tickText(tick, step: step)
            svg +=
                "<line x1=\"\(fmt(F.left))\" y1=\"\(fmt(y(tick)))\" x2=\"\(fmt(F.width - F.right))\" y2=\"\(fmt(y(tick)))\" class=\"grid\"/>"
                + "<text x=\"\(fmt(F.left - 6))\" y=\"\(fmt(y(tick) + 4))\" class=\"tick ytick end\">\(label)</text>"
        }
        svg +=
            "<line x1=\"\(fmt(F.left))\" y1=\"\(fmt(F.top))\" x2=\"\(fmt(F.left))\" y2=\"\(fmt(bottomY))\" class=\"axis\"/>"
            + "<line x1=\"\(fmt(F.left))\" y1=\"\(fmt(bottomY))\" x2=\"\(fmt(F.width - F.right))\" y2=\"\(fmt(bottomY))\" class=\"axis\"/>"
        // x ticks: about eight dates, the last day always labelled
        let stride = max(1, Int((Double(days.count) / 7).rounded(.up)))
        var labelled = Array(Swift.stride(from: 0, to: days.count, by: stride))
        if let last = labelled.last, last != days.count - 1 {
            // A label too close to the last day's gives way to it
            if days.count - 1 - last <= stride / 2, labelled.count > 1 { labelled.removeLast() }
            labelled.append(days.count - 1)
        }
        for index in labelled {
            svg +=
                "<line x1=\"\(xs[index])\" y1=\"\(fmt(bottomY))\" x2=\"\(xs[index])\" y2=\"\(fmt(bottomY + 4))\" class=\"axis\"/>"
                + "<text x=\"\(xs[index])\" y=\"\(fmt(bottomY + 18))\" class=\"tick xtick middle\">\(HTMLEscaping.attribute(days[index]))</text>"
        }
        svg +=
            "<text x=\"\(fmt(F.left + F.plotWidth / 2))\" y=\"\(fmt(F.height - 6))\" class=\"axis-title middle\">\(HTMLEscaping.attribute(xTitle))</text>"
            + "<text x=\"14\" y=\"\(fmt(F.top + F.plotHeight / 2))\" transform=\"rotate(-90 14 \(fmt(F.top + F.plotHeight / 2)))\" class=\"axis-title middle\">\(HTMLEscaping.attribute(yTitle))</text>"
        for (number, line) in series.enumerated() {
            let runs = segments(line.values)
            let ys = line.values.map { $0.map { fmt(y($0)) } ?? "" }
            if let name = line.name {
                svg += "<g class=\"series-group\" aria-label=\"\(HTMLEscaping.attribute(name))\">"
            }
            if let band = line.band {
                for run in runs {
                    guard run.count > 1 else {
                        if let interval = band[run[0]] {
                            svg +=
                                "<line x1=\"\(xs[run[0]])\" y1=\"\(fmt(y(interval.high)))\" x2=\"\(xs[run[0]])\" y2=\"\(fmt(y(interval.low)))\" class=\"band-line s\(number % 8)\"/>"
                        }
                        continue
                    }
                    let intervals = run.compactMap { index in band[index].map { (index, $0) } }
                    guard !intervals.isEmpty else { continue }
                    let upper = intervals.map { "\(xs[$0.0]),\(fmt(y($0.1.high)))" }
                    let lower = intervals.reversed().map { "\(xs[$0.0]),\(fmt(y($0.1.low)))" }
                    svg +=
                        "<path d=\"M" + (upper + lower).joined(separator: " L") + " Z\" class=\"band s\(number % 8)\"/>"
                }
            }
            for run in runs where run.count > 1 {
                let path = run.enumerated().map { offset, index in
                    "\(offset == 0 ? "M" : "L")\(xs[index]),\(ys[index])"
                }.joined(separator: " ")
                svg += "<path d=\"\(path)\" class=\"series s\(number % 8)\"/>"
            }
            for run in runs {
                for index in run {
                    svg +=
                        "<circle cx=\"\(xs[index])\" cy=\"\(ys[index])\" r=\"3\" class=\"dot s\(number % 8)\"><title>\(HTMLEscaping.attribute(line.titles[index]))</title></circle>"
                }
            }
            if line.name != nil { svg += "</g>" }
        }
        return svg + "</svg>"
    }

    /// The runs of consecutive days with a value: each run is one unbroken line.
    static func segments(_ values: [Double?]) -> [[Int]] {
        var runs: [[Int]] = []
        var current: [Int] = []
        for (index, value) in values.enumerated() {
            if value == nil {
                if !current.isEmpty { runs.append(current) }
                current = []
            } else {
                current.append(index)
            }
        }
        if !current.isEmpty { runs.append(current) }
        return runs
    }
}
