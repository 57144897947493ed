/// How catalog (snake_case) names become Swift names: `pw_id` → `pwID`, `paywall_shown` →
/// `PaywallShown`, `close_button` → `closeButton`.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "func", "import", "init", "inout", "let",
        "operator", "protocol", "struct", "subscript", "typealias", "var", "break", "case", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return",
        "switch", "where", "while", "as", "false", "is", "nil", "self", "Self", "super", "throw", "throws",
        "true", "try", "public", "private", "internal", "static", "some", "any", "Type",
    ]

    /// `pw_id` → `pwID`.
    static func member(_ snake: String) -> String {
        let parts = snake.split(separator: "_").map(String.init)
        guard let first = parts.first else { return snake }
        let rest = parts.dropFirst().map { $0 == "id" ? "ID" : $0.prefix(1).uppercased() + $0.dropFirst() }
        return ([first == "id" ? "id" : first] + rest).joined()
    }

    /// `member`, escaped with backticks when it is a Swift keyword.
    static func escapedMember(_ snake: String) -> String {
        let name = member(snake)
        return keywords.contains(name) ? "`\(name)`" : name
    }

    /// `paywall_shown` → `PaywallShown`.
    static func type(_ snake: String) -> String {
        snake.split(separator: "_").map { $0 == "id" ? "ID" : $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}
