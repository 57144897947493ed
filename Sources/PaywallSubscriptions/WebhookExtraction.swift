import Foundation

/// Reads a RevenueCat webhook body (`{"api_version":"1.0","event":{…}}`) into a
/// ``SubscriptionEvent``, or says why it can never be one.
///
/// Only four things make a body unacceptable: it is not JSON; it has no `event` object; `event.id`
/// is missing or not a string; or a field this project reads (``fields``) has the wrong type. A
/// missing field or `null` is absent, not an error (`TEST` events carry almost nothing, a refund may
/// lack a price); fields and event types this project does not know are kept in the raw body.
///
/// ```swift
/// switch WebhookExtraction.extract(Array(body)) {
/// case .success(let event): print(event.id)
/// case .failure(let problems): print(problems.reasons)
/// }
/// ```
public enum WebhookExtraction {
    /// Why a body was refused: one reason per problem, in the order found.
    public struct Problems: Error, Sendable, Equatable {
        /// The reasons, each a sentence naming the field and what was expected (never a value).
        public var reasons: [String]
    }

    /// The JSON type a known field must have (or `null`, which means absent).
    public enum Expected: Sendable, Equatable {
        /// A string.
        case string
        /// A whole number that fits in 64 bits (a time in Unix milliseconds, a count).
        case integer
        /// Any number.
        case number
        /// `true` or `false`.
        case boolean
        /// An array of strings.
        case strings
        /// An array of objects.
        case objects

        var name: String {
            switch self {
            case .string: "a string"
            case .integer: "a whole number"
            case .number: "a number"
            case .boolean: "true or false"
            case .strings: "an array of strings"
            case .objects: "an array of objects"
            }
        }
    }

    /// The `event` fields this project reads or documents, with their types. Every other field is
    /// kept in the raw body and never checked.
    public static let fields: [String: Expected] = [
        "id": .string, "type": .string, "app_id": .string, "environment": .string,
        "event_timestamp_ms": .integer, "app_user_id": .string, "original_app_user_id": .string,
        "aliases": .strings, "product_id": .string, "period_type": .string, "purchased_at_ms": .integer,
        "expiration_at_ms": .integer, "store": .string, "transaction_id": .string,
        "original_transaction_id": .string, "is_trial_conversion": .boolean, "cancel_reason": .string,
        "expiration_reason": .string, "presented_offering_id": .string, "price": .number, "currency": .string,
        "price_in_purchased_currency": .number, "tax_percentage": .number, "commission_percentage": .number,
        "takehome_percentage": .number, "country_code": .string, "offer_code": .string, "renewal_number": .integer,
        "experiments": .objects, "transferred_from": .strings, "transferred_to": .strings,
    ]

    /// ``fields`` in name order: the order reasons are given in (sorted once, not per body).
    static let checkOrder = fields.sorted { $0.key < $1.key }

    /// Extracts `body` (see the type's summary).
    public static func extract(_ body: [UInt8]) -> Result<SubscriptionEvent, Problems> {
        let root: WebhookJSON
        do { root = try WebhookJSON.parse(body) } catch {
            return .failure(Problems(reasons: ["the body is not JSON (\(error.description))"]))
        }
        guard case .object = root else {
            return .failure(
                Problems(reasons: ["the body is \(root.typeName), not a JSON object with an \"event\" object"]))
        }
        var reasons: [String] = []
        if let version = root["api_version"], version != .null {
            if case .string = version {
            } else {
                reasons.append("api_version is \(version.typeName), expected a string")
            }
        }
        guard let event = root["event"] else {
            return .failure(Problems(reasons: reasons + ["the body has no \"event\" object"]))
        }
        guard case .object(let members) = event else {
            return .failure(Problems(reasons: reasons + ["\"event\" is \(event.typeName), expected an object"]))
        }
        // A repeated key counts by its last value, as in ``WebhookJSON/subscript(_:)``.
        var values: [String: WebhookJSON] = [:]
        for member in members { values[member.key] = member.value }
        for (name, expected) in checkOrder {
            guard let value = values[name], value != .null || name == "id" else { continue }
            if let problem = check(value, expected) {
                reasons.append("event.\(name) is \(problem), expected \(expected.name)")
            }
        }
        guard case .string(let id)? = values["id"] else {
            if values["id"] == nil { reasons.insert("the event has no \"id\" (event.id)", at: 0) }
            return .failure(Problems(reasons: reasons))
        }
        if id.isEmpty { reasons.append("event.id is empty") }
        var price: Decimal?
        if case .number(let text)? = values["price"] {
            price = Money.decimal(text)
            if price.flatMap(Money.micros) == nil { reasons.append("event.price is out of range") }
        }
        for name in ["tax_percentage", "commission_percentage", "takehome_percentage"] {
            if case .number(let text)? = values[name], Money.decimal(text) == nil {
                reasons.append("event.\(name) is out of range")
            }
        }
        func decimal(_ name: String) -> Decimal? {
            if case .number(let text)? = values[name] { Money.decimal(text) } else { nil }
        }
        let proceeds = Money.proceedsMicros(
            price: price, tax: decimal("tax_percentage"), commission: decimal("commission_percentage"),
            takehome: decimal("takehome_percentage"))
        if reasons.isEmpty, price != nil, proceeds == nil {
            reasons.append("the proceeds of event.price after its percentages are out of range")
        }
        guard reasons.isEmpty else { return .failure(Problems(reasons: reasons)) }

        func string(_ name: String) -> String? { if case .string(let text)? = values[name] { text } else { nil } }
        func integer(_ name: String) -> Int64? {
            if case .number(let text)? = values[name] { wholeNumber(text) } else { nil }
        }
        func strings(_ name: String) -> [String] {
            guard case .array(let elements)? = values[name] else { return [] }
            return elements.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        var out = SubscriptionEvent(id: id)
        out.type = string("type")
        out.environment = string("environment")
        out.eventTimestampMs = integer("event_timestamp_ms")
        out.appUserID = string("app_user_id")
        out.originalAppUserID = string("original_app_user_id")
        out.aliases = strings("aliases")
        out.productID = string("product_id")
        out.periodType = string("period_type")
        out.purchasedAtMs = integer("purchased_at_ms")
        out.expirationAtMs = integer("expiration_at_ms")
        out.store = string("store")
        out.transactionID = string("transaction_id")
        out.originalTransactionID = string("original_transaction_id")
        if case .bool(let flag)? = values["is_trial_conversion"] { out.isTrialConversion = flag }
        out.presentedOfferingID = string("presented_offering_id")
        out.priceMicros = price.flatMap(Money.micros)
        out.proceedsMicros = proceeds
        out.currency = string("currency")
        out.transferredIDs = strings("transferred_from") + strings("transferred_to")
        return .success(out)
    }

    /// What is wrong with `value` for `expected` (its type, described), or `nil` when it fits.
    static func check(_ value: WebhookJSON, _ expected: Expected) -> String? {
        switch (expected, value) {
        case (.string, .string), (.number, .number), (.boolean, .bool): return nil
        case (.integer, .number(let text)):
            return wholeNumber(text) == nil ? "a number that is not a whole number of at most 64 bits" : nil
        case (.strings, .array(let elements)):
            return elements.allSatisfy({ if case .string = $0 { true } else { false } })
                ? nil : "an array holding a non-string"
        case (.objects, .array(let elements)):
            return elements.allSatisfy({ if case .object = $0 { true } else { false } })
                ? nil : "an array holding a non-object"
        default: return value.typeName
        }
    }

    /// The value of a JSON number's text when it is a whole number within 64 bits (`1.5e3` is 1500).
    static func wholeNumber(_ text: String) -> Int64? {
        if let plain = Int64(text) { return plain }
        guard let value = Money.decimal(text) else { return nil }
        var rounded = Decimal()
        var copy = value
        NSDecimalRound(&rounded, &copy, 0, .plain)
        guard rounded == value else { return nil }
        return Int64(rounded.description)
    }
}
