import Foundation

/// Checks a request against RevenueCat's documented events API (headers, batch size, body keys),
/// independently of the forwarder's encoder.
/// Each violation is one readable sentence.
public enum RevenueCatRequestValidator {
    private static let allowedEventKeys: Set<String> = [
        "id", "version", "type", "app_user_id", "app_session_id", "timestamp", "paywall_id", "offering_id",
        "presented_offering_context",
    ]
    private static let allowedContextKeys: Set<String> = [
        "placement_identifier", "targeting_revision", "targeting_rule_id",
    ]

    /// Every way `request` departs from the documented method, path, headers and body.
    public static func violations(in request: ReceivedHTTPRequest) -> [String] {
        var problems: [String] = []
        if request.method != "POST" { problems.append("method is \(request.method), expected POST") }
        if request.path != "/v1/events" { problems.append("path is \(request.path), expected /v1/events") }
        let authorization = request.header("Authorization") ?? ""
        if !authorization.hasPrefix("Bearer ") || authorization.count <= "Bearer ".count {
            problems.append("Authorization is not `Bearer <key>`")
        }
        if request.header("Content-Type")?.lowercased().hasPrefix("application/json") != true {
            problems.append("Content-Type is not application/json")
        }
        if (request.header("X-Platform") ?? "").isEmpty { problems.append("X-Platform is missing") }
        if (request.header("X-Version") ?? "").isEmpty { problems.append("X-Version is missing") }
        if Int(request.header("X-Retry-Count") ?? "").map({ $0 >= 0 }) != true {
            problems.append("X-Retry-Count is missing or not a non-negative integer")
        }
        if !["true", "false"].contains(request.header("X-Is-Sandbox") ?? "") {
            problems.append("X-Is-Sandbox is missing or not true/false")
        }
        return problems + violations(inBody: request.body)
    }

    /// Every way `body` departs from `{"events":[custom_paywall_impression…]}`.
    public static func violations(inBody body: Data) -> [String] {
        guard let root = JSONValue.parse(body) else { return ["body is not JSON"] }
        guard case .object(let object) = root else { return ["body is not a JSON object"] }
        var problems: [String] = []
        if Set(object.keys) != ["events"] {
            problems.append("body keys are \(object.keys.sorted()), expected only events")
        }
        guard case .array(let events)? = object["events"] else { return problems + ["events is not an array"] }
        if events.isEmpty || events.count > 50 { problems.append("events has \(events.count) entries, expected 1…50") }
        var seen = Set<String>()
        for (index, event) in events.enumerated() {
            problems += eventViolations(event).map { "events[\(index)]: \($0)" }
            if case .object(let fields) = event, case .string(let id)? = fields["id"], !seen.insert(id).inserted {
                problems.append("events[\(index)]: id \(id) appears twice in one request")
            }
        }
        return problems
    }

    private static func eventViolations(_ event: JSONValue) -> [String] {
        guard case .object(let fields) = event else { return ["not an object"] }
        var problems = Set(fields.keys).subtracting(allowedEventKeys).sorted().map { "unknown key \($0)" }
        for (key, value) in fields where value == .null {
            problems.append("\(key) is null (absent keys must be omitted)")
        }
        if !isUppercaseUUID(fields["id"]) { problems.append("id is not an uppercase canonical UUID") }
        if fields["version"] != .integer(1) { problems.append("version is not the integer 1") }
        if fields["type"] != .string("custom_paywall_impression") {
            problems.append("type is not custom_paywall_impression")
        }
        if case .string(let user)? = fields["app_user_id"], !user.isEmpty {
        } else {
            problems.append("app_user_id is not a non-empty string")
        }
        if let session = fields["app_session_id"], session != .null, !isUppercaseUUID(session) {
            problems.append("app_session_id is not an uppercase canonical UUID")
        }
        if case .integer(let time)? = fields["timestamp"], time > 1_000_000_000_000 {
        } else {
            problems.append("timestamp is not an integer in Unix milliseconds")
        }
        for key in ["paywall_id", "offering_id"] {
            if let value = fields[key], value != .null, !isString(value) { problems.append("\(key) is not a string") }
        }
        if let context = fields["presented_offering_context"], context != .null {
            problems += contextViolations(context)
        }
        return problems
    }

    private static func contextViolations(_ context: JSONValue) -> [String] {
        guard case .object(let fields) = context else { return ["presented_offering_context is not an object"] }
        var problems = Set(fields.keys).subtracting(allowedContextKeys).sorted().map {
            "unknown key presented_offering_context.\($0)"
        }
        if fields.isEmpty { problems.append("presented_offering_context is empty (omit it instead)") }
        for (key, value) in fields {
            let ok =
                switch (key, value) {
                case ("targeting_revision", .integer): true
                case ("placement_identifier", .string), ("targeting_rule_id", .string): true
                default: !allowedContextKeys.contains(key)
                }
            if !ok { problems.append("presented_offering_context.\(key) has the wrong type") }
        }
        return problems
    }

    private static func isString(_ value: JSONValue) -> Bool {
        if case .string = value { return true }
        return false
    }

    private static func isUppercaseUUID(_ value: JSONValue?) -> Bool {
        guard case .string(let text)? = value, let uuid = UUID(uuidString: text) else { return false }
        return uuid.uuidString == text
    }
}
