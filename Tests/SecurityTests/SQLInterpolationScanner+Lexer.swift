extension SQLInterpolationScanner {
    /// Every string literal outside comments, in order (interpolations' own literals included).
    static func literals(in c: [Unicode.Scalar]) -> [Literal] {
        var found: [Literal] = []
        var index = 0
        var line = 1
        while index < c.count {
            let scalar = c[index]
            if scalar == "\n" {
                line += 1
                index += 1
                continue
            }
            if scalar == "/", index + 1 < c.count, c[index + 1] == "/" {
                while index < c.count, c[index] != "\n" { index += 1 }
                continue
            }
            if scalar == "/", index + 1 < c.count, c[index + 1] == "*" {
                index += 2
                while index + 1 < c.count, !(c[index] == "*" && c[index + 1] == "/") {
                    if c[index] == "\n" { line += 1 }
                    index += 1
                }
                index += 2
                continue
            }
            var hashes = 0
            while index + hashes < c.count, c[index + hashes] == "#" { hashes += 1 }
            if index + hashes < c.count, c[index + hashes] == "\"" {
                var literal = Literal(line: line, start: index)
                index = readLiteral(c, from: index + hashes, hashes: hashes, into: &literal, found: &found, line: &line)
                literal.end = index
                found.append(literal)
                continue
            }
            index += max(1, hashes)
        }
        return found
    }

    /// Reads one literal whose opening quote is at `start`; returns the index after its closing delimiter.
    static func readLiteral(
        _ c: [Unicode.Scalar], from start: Int, hashes: Int, into literal: inout Literal,
        found: inout [Literal], line: inout Int
    ) -> Int {
        let multiline = start + 2 < c.count && c[start + 1] == "\"" && c[start + 2] == "\""
        var index = start + (multiline ? 3 : 1)
        func closes(at i: Int) -> Bool {
            let quotes = multiline ? 3 : 1
            guard i + quotes + hashes <= c.count else { return false }
            for k in 0..<quotes where c[i + k] != "\"" { return false }
            for k in 0..<hashes where c[i + quotes + k] != "#" { return false }
            return true
        }
        while index < c.count {
            if closes(at: index) { return index + (multiline ? 3 : 1) + hashes }
            let scalar = c[index]
            if scalar == "\n" { line += 1 }
            if scalar == "\\", index + hashes < c.count, (0..<hashes).allSatisfy({ c[index + 1 + $0] == "#" }) {
                let after = index + 1 + hashes
                if after < c.count, c[after] == "(" {
                    let (expression, end) = readInterpolation(c, from: after, found: &found, line: &line)
                    literal.interpolations.append(expression)
                    literal.text.unicodeScalars.append(" ")
                    index = end
                    continue
                }
                if after < c.count { literal.text.unicodeScalars.append(c[after]) }
                index = after + 1
                continue
            }
            literal.text.unicodeScalars.append(scalar)
            index += 1
        }
        return index
    }

    /// Reads `( … )` starting at the open parenthesis, skipping nested literals; returns the expression and the index after `)`.
    static func readInterpolation(
        _ c: [Unicode.Scalar], from open: Int, found: inout [Literal],
        line: inout Int
    ) -> (String, Int) {
        var depth = 0
        var index = open
        var expression = String.UnicodeScalarView()
        while index < c.count {
            let scalar = c[index]
            var hashes = 0
            while index + hashes < c.count, c[index + hashes] == "#" { hashes += 1 }
            if index + hashes < c.count, c[index + hashes] == "\"" {
                var nested = Literal(line: line, start: index)
                let end = readLiteral(
                    c, from: index + hashes, hashes: hashes, into: &nested, found: &found, line: &line)
                nested.end = end
                found.append(nested)
                expression.append(contentsOf: c[index..<end])
                index = end
                continue
            }
            if scalar == "(" { depth += 1 }
            if scalar == ")" {
                depth -= 1
                if depth == 0 { return (String(expression.dropFirst()), index + 1) }
            }
            if scalar == "\n" { line += 1 }
            expression.append(scalar)
            index += 1
        }
        return (String(expression.dropFirst()), index)
    }
}
