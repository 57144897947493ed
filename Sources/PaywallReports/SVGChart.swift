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

    static func fmt(_ value: Double) -> String { FixedPoint.string(value, decimals: 1) }

    static func percent(_ value: Double) -> String { FixedPoint.string(value * 100, decimals: 1) + "%" }
}
