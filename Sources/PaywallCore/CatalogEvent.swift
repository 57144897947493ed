import Foundation

/// A typed catalog event (generated, one type per event): its name and its properties.
public protocol CatalogEvent: Sendable, Hashable {
    /// The event's catalog name.
    static var name: EventName { get }
    /// The event's properties in the flat form the store keeps.
    var properties: EventProperties { get }
}

extension CatalogEvent {
    /// Wraps the event in an envelope.
    ///
    /// - Parameters:
    ///   - id: the event id; pass a time-ordered ``UUIDv7`` id.
    ///   - occurredAt: Unix milliseconds from the device clock.
    ///   - userID: the RevenueCat app user id.
    ///   - sessionID: the app session, when known.
    ///   - context: where the event came from (app version, platform…); empty by default.
    public func record(
        id: UUID, occurredAt: Int64, userID: String, sessionID: UUID? = nil, context: EventContext = .empty
    ) -> EventRecord {
        EventRecord(
            id: id, name: Self.name, occurredAt: occurredAt, userID: userID,
            sessionID: sessionID, properties: properties, context: context)
    }
}
