import Foundation

/// One stored event: the envelope plus the catalog properties, flat, exactly as the store keeps it.
///
/// Typed events (``PaywallShown`` and friends) and validated untyped input (``EventValidator``)
/// both become an `EventRecord`: the store writes it, the forwarder and the uploader read it back
/// from their queues. The reports do not: they read the `events` table with their own SQL.
public struct EventRecord: Sendable, Hashable, Codable {
    /// Unique id of the event, the idempotency key.
    public var id: UUID
    /// The event's catalog name.
    public var name: EventName
    /// When the event happened, Unix milliseconds from the device clock.
    public var occurredAt: Int64
    /// When the event was stored, Unix milliseconds; `nil` until the store sets it.
    public var recordedAt: Int64?
    /// The RevenueCat app user id.
    public var userID: String
    /// The app session, when known.
    public var sessionID: UUID?
    /// The catalog version the event was written against.
    public var catalogVersion: Int
    /// The catalog properties; which are set depends on ``name``.
    public var properties: EventProperties
    /// Where the event came from (catalog version 2's optional envelope fields; ``EventContext/empty``
    /// for a version 1 event).
    public var context: EventContext

    /// Creates a record from its parts.
    public init(
        id: UUID,
        name: EventName,
        occurredAt: Int64,
        recordedAt: Int64? = nil,
        userID: String,
        sessionID: UUID? = nil,
        catalogVersion: Int = CatalogInfo.version,
        properties: EventProperties,
        context: EventContext = .empty
    ) {
        self.id = id
        self.name = name
        self.occurredAt = occurredAt
        self.recordedAt = recordedAt
        self.userID = userID
        self.sessionID = sessionID
        self.catalogVersion = catalogVersion
        self.properties = properties
        self.context = context
    }

    enum CodingKeys: String, CodingKey {
        case id, name, occurredAt, recordedAt, userID, sessionID, catalogVersion, properties, context
    }

    /// Decodes a record; one encoded before events had a context decodes with ``EventContext/empty``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        name = try container.decode(EventName.self, forKey: .name)
        occurredAt = try container.decode(Int64.self, forKey: .occurredAt)
        recordedAt = try container.decodeIfPresent(Int64.self, forKey: .recordedAt)
        userID = try container.decode(String.self, forKey: .userID)
        sessionID = try container.decodeIfPresent(UUID.self, forKey: .sessionID)
        catalogVersion = try container.decode(Int.self, forKey: .catalogVersion)
        properties = try container.decode(EventProperties.self, forKey: .properties)
        context = try container.decodeIfPresent(EventContext.self, forKey: .context) ?? .empty
    }
}

extension UUID {
    /// The uppercase canonical text form used in the store, in NDJSON and on the wire.
    public var canonical: String { uuidString }
}
