import Foundation

/// Small, dependency-free SVG charts for the HTML report. Every label and title is escaped with its
/// hidden characters shown (``HTMLEscaping/attribute(_:)``); the page's style isolates SVG text.
enum SVGChart {
    /// One step of a funnel.
    struct Step {
        var label: String
        var value: Int
    }

    /// Horizontal funnel bars, each labelled above, with its count and the rate from the previous
    /// step; narrow enough to stay readable at phone width.
    static func funnel(_ steps: [Step], title: String) -> String {
        let width = 480.0
        let rowHeight = 46.0
        let valueRoom = 170.0
        let height = rowHeight * Double(steps.count) + 4
        let top = Double(max(steps.first?.value ?? 0, 1))
        var svg = """
            <svg class="chart funnel" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTMLEscaping.attribute(title))" preserveAspectRatio="xMinYMin meet">
            """
        for (index, step) in steps.enumerated() {
            let y = Double(index) * rowHeight
            let barWidth = max(2, (width - valueRoom) * Double(step.value) / top)
            var rate = ""
            if index > 0 {
                let previous = steps[index - 1].value
                rate = previous == 0 ? " (—)" : " (" + percent(Double(step.value) / Double(previous)) + ")"
            }
            svg += """
                <text x="0" y="\(fmt(y + 14))" class="label">\(HTMLEscaping.attribute(step.label))</text>\
                <rect x="0" y="\(fmt(y + 20))" width="\(fmt(barWidth))" height="20" rx="3" class="bar bar\(index)"/>\
                <text x="\(fmt(barWidth + 6))" y="\(fmt(y + 35))" class="value">\(step.value)\(rate)</text>
                """
        }
        return svg + "</svg>"
    }

    /// A line chart of one series per day; `format` renders axis values.
    static func line(_ points: [(String, Double)], title: String, format: (Double) -> String) -> String {
        let width = 640.0
        let height = 200.0
        let left = 56.0
        let bottom = 28.0
        let top = 12.0
        guard !points.isEmpty else { return "<p class=\"empty\">No data in this range.</p>" }
        let maxValue = max(points.map(\.1).max() ?? 0, 1e-9)
        let plotWidth = width - left - 12
        let plotHeight = height - top - bottom
        func x(_ index: Int) -> Double {
            points.count == 1 ? left + plotWidth / 2 : left + plotWidth * Double(index) / Double(points.count - 1)
        }
        func y(_ value: Double) -> Double { top + plotHeight * (1 - value / maxValue) }
        var svg = """
            <svg class="chart" viewBox="0 0 \(Int(width)) \(Int(height))" role="img" aria-label="\(HTMLEscaping.attribute(title))" preserveAspectRatio="xMinYMin meet">
            <line x1="\(left)" y1="\(top)" x2="\(left)" y2="\(top + plotHeight)" class="axis"/>\
            <line x1="\(left)" y1="\(top + plotHeight)" x2="\(width - 12)" y2="\(top + plotHeight)" class="axis"/>\
            <text x="\(fmt(left - 6))" y="\(fmt(top + 10))" class="tick end">\(HTMLEscaping.attribute(format(maxValue)))</text>\
            <text x="\(fmt(left - 6))" y="\(fmt(top + plotHeight))" class="tick end">\(HTMLEscaping.attribute(format(0)))</text>
            """
        let path = points.enumerated().map { index, point in
            "\(index == 0 ? "M" : "L")\(fmt(x(index))),\(fmt(y(point.1)))"
        }.joined(separator: " ")
        svg += "<path d=\"\(path)\" class=\"series\"/>"
        for (index, point) in points.enumerated() {
            svg +=
                "<circle cx=\"\(fmt(x(index)))\" cy=\"\(fmt(y(point.1)))\" r=\"2.5\" class=\"dot\"><title>\(HTMLEscaping.attribute(point.0)): \(HTMLEscaping.attribute(format(point.1)))</title></circle>"
        }
        let labelIndexes = Set([0, points.count / 2, points.count - 1])
        for index in labelIndexes.sorted() {
            let anchor =
                points.count == 1 ? "middle" : index == 0 ? "start" : index == points.count - 1 ? "end" : "middle"
            svg +=
                "<text x=\"\(fmt(x(index)))\" y=\"\(fmt(height - 8))\" class=\"tick \(anchor)\">\(HTMLEscaping.attribute(points[index].0))</text>"
        }
        return svg + "</svg>"
    }

    static func fmt(_ value: Double) -> String { String(format: "%.1f", value) }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
}
