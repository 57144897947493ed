import Foundation
import PaywallCore
import PaywallSQLite

/// Reads an ``EventRecord`` from a row that selects ``EventColumn/record`` first, in table order
/// (the outbox's and the upload queue's reads). Ids are parsed from the columns' bytes with
/// ``UUIDText`` (no `String`, no Foundation parser): the uploader reads every event this way.
enum StoredEventRow {
    /// The event of `row`; `nil` when its `id` or `pw_id` is no UUID (the store writes canonical ids,
    /// so such a row cannot be sent, and the caller passes over it).
    ///
    /// - Throws: ``StoredEventError`` when `name`, `result`, `via` or `platform` holds a value this build's
    ///   catalog does not know: the row was written by another program or a newer version, or
    ///   changed by hand, and turning it into some other event would send a wrong one.
    static func event(from row: Row) throws -> EventRecord? {
        func uuid(_ column: EventColumn) -> UUID? {
            row.isNull(at: column.rawValue) ? nil : row.withUnsafeText(at: column.rawValue) { UUIDText.parse($0) }
        }
        guard let id = uuid(.id), let pwID = uuid(.pwID) else { return nil }
        func known<Value: RawRepresentable<String>>(_ column: EventColumn, _: Value.Type) throws -> Value? {
            guard let text = row.string(at: column.rawValue) else { return nil }
            guard let value = Value(rawValue: text) else {
                throw StoredEventError(id: id, column: column.columnName, value: text)
            }
            return value
        }
        guard let name = try known(.name, EventName.self) else {
            throw StoredEventError(id: id, column: EventColumn.name.columnName, value: nil)
        }
        return EventRecord(
            id: id,
            name: name,
            occurredAt: row.int64(at: EventColumn.occurredAt.rawValue),
            recordedAt: row.optionalInt64(at: EventColumn.recordedAt.rawValue),
            userID: row.string(at: EventColumn.userID.rawValue) ?? "",
            sessionID: uuid(.sessionID),
            catalogVersion: Int(row.int64(at: EventColumn.catalogVersion.rawValue)),
            properties: EventProperties(
                pwID: pwID,
                source: row.string(at: EventColumn.source.rawValue) ?? "",
                offeringID: row.string(at: EventColumn.offeringID.rawValue),
                placementID: row.string(at: EventColumn.placementID.rawValue),
                product: row.string(at: EventColumn.product.rawValue),
                result: try known(.result, CloseResult.self),
                via: try known(.via, CloseVia.self),
                openS: row.double(at: EventColumn.openS.rawValue)
            ),
            context: EventContext(
                appVersion: row.string(at: EventColumn.appVersion.rawValue),
                build: row.string(at: EventColumn.build.rawValue),
                platform: try known(.platform, DevicePlatform.self),
                osVersion: row.string(at: EventColumn.osVersion.rawValue),
                sdkVersion: row.string(at: EventColumn.sdkVersion.rawValue),
                locale: row.string(at: EventColumn.locale.rawValue))
        )
    }
}

/// A stored `events` row that cannot be read as an event of this build's catalog: a column holds a
/// value the catalog does not define (a row written by another program or a newer version, or
/// changed by hand). A delivery pass stops on it rather than send some other event in its place.
public struct StoredEventError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The event id of the row.
    public var id: UUID
    /// The column holding the unknown value (`name`, `result` or `via`).
    public var column: String
    /// The value found (`nil` when the column is empty); at most 64 characters are kept.
    public var value: String?

    /// An error for the row of `id` whose `column` holds `value`.
    public init(id: UUID, column: String, value: String?) {
        self.id = id
        self.column = column
        self.value = value.map { $0.count > 64 ? String($0.prefix(61)) + "..." : $0 }
    }

    /// What was found and what the pass did.
    public var description: String {
        let found = value.map { "'\($0)'" } ?? "no value"
        return "the stored event \(id.uuidString) has \(found) in its \(column) column, which this version's "
            + "catalog does not define (the row was written by another program or a newer version, or changed "
            + "by hand); the pass stopped without sending it or any event after it"
    }
}
