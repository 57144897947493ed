import Foundation

/// Finds SQL built from values in Swift source: string literals that look like SQL and either
/// interpolate an expression (`"… WHERE id = \(id)"`) or are joined with `+` to something that is not
/// a literal. Comments are skipped; single-line, multi-line (`"""`) and raw (`#"…"#`) literals are
/// understood, including interpolations that contain strings.
struct SQLInterpolationScanner {
    /// One place where SQL text is built from an expression.
    struct Finding: Hashable, CustomStringConvertible {
        /// The file, relative to the scanned root.
        var file: String
        /// The 1-based line of the literal.
        var line: Int
        /// The interpolated or concatenated expression, as written.
        var expression: String
        var description: String { "\(file):\(line): SQL built from `\(expression)`" }
    }

    /// A string literal: its text with interpolations removed, the interpolated expressions, and where it is.
    struct Literal {
        var text = ""
        var interpolations: [String] = []
        var line = 1
        var start = 0
        var end = 0
    }

    /// Uppercase SQL keywords (prose and identifiers in Swift code are not uppercase).
    static let sqlPattern = try! NSRegularExpression(
        pattern:
            #"\b(SELECT|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|WHERE|PRAGMA|CREATE\s+(TABLE|INDEX|UNIQUE|VIEW|TRIGGER|TEMP)|DROP\s+(TABLE|INDEX|VIEW|TRIGGER)|ALTER\s+TABLE|ATTACH|DETACH|VALUES|ORDER\s+BY|GROUP\s+BY|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)\b"#
    )

    static func looksLikeSQL(_ text: String) -> Bool {
        sqlPattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// The findings in one file's source.
    static func scan(source: String, file: String) -> [Finding] {
        let characters = Array(source.unicodeScalars)
        var findings: [Finding] = []
        for literal in literals(in: characters) where looksLikeSQL(literal.text) {
            for expression in literal.interpolations {
                findings.append(Finding(file: file, line: literal.line, expression: expression))
            }
            if let joined = concatenated(characters, literal) {
                findings.append(Finding(file: file, line: literal.line, expression: "+ " + joined))
            }
        }
        return findings
    }

    /// The findings in every `.swift` file under `root`.
    static func scan(root: URL) throws -> [Finding] {
        var findings: [Finding] = []
        let walker = FileManager.default.enumerator(atPath: root.path)
        while let relative = walker?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let source = try String(contentsOf: root.appendingPathComponent(relative), encoding: .utf8)
            findings += scan(source: source, file: relative)
        }
        return findings.sorted { ($0.file, $0.line, $0.expression) < ($1.file, $1.line, $1.expression) }
    }

    /// The operand joined to `literal` with `+` when it is not itself a string literal.
    static func concatenated(_ c: [Unicode.Scalar], _ literal: Literal) -> String? {
        var index = literal.end
        while index < c.count, c[index] == " " || c[index] == "\n" || c[index] == "\t" { index += 1 }
        if index < c.count, c[index] == "+", index + 1 < c.count, c[index + 1] != "=" {
            index += 1
            while index < c.count, c[index] == " " || c[index] == "\n" || c[index] == "\t" { index += 1 }
            if index < c.count, c[index] != "\"", c[index] != "#" { return token(c, from: index) }
        }
        var back = literal.start - 1
        while back >= 0, c[back] == " " || c[back] == "\n" || c[back] == "\t" { back -= 1 }
        if back >= 1, c[back] == "+", c[back - 1] != "+" {
            back -= 1
            while back >= 0, c[back] == " " || c[back] == "\n" || c[back] == "\t" { back -= 1 }
            if back >= 0, c[back] != "\"", c[back] != "#" {
                var start = back
                while start > 0,
                    isName(c[start - 1]) || c[start - 1] == "." || c[start - 1] == ")" || c[start - 1] == "("
                { start -= 1 }
                return String(String.UnicodeScalarView(c[start...back]))
            }
        }
        return nil
    }

    static func isName(_ scalar: Unicode.Scalar) -> Bool {
        CharacterSet.alphanumerics.contains(scalar) || scalar == "_"
    }

    static func token(_ c: [Unicode.Scalar], from start: Int) -> String {
        var end = start
        while end < c.count, isName(c[end]) || c[end] == "." || c[end] == "(" || c[end] == ")" { end += 1 }
        return String(String.UnicodeScalarView(c[start..<max(end, start + 1)]))
    }
}
