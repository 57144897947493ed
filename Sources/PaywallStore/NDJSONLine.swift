import Foundation
import PaywallCore

/// Writes an event as one flat NDJSON object (the import format): envelope fields and catalog
/// properties side by side, snake_case names, absent optionals left out.
public enum NDJSONLine {
    /// The line for `event`, without a trailing newline.
    ///
    /// ```swift
    /// NDJSONLine.encode(event)  // {"id":"0199…","name":"paywall_shown","occurred_at":1764400000000,…}
    /// ```
    public static func encode(_ event: EventRecord) -> String { event.ndjsonLine }

    /// A JSON string literal for `text`.
    public static func quoted(_ text: String) -> String { JSONString.quoted(text) }
}
