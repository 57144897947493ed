import PaywallCore

/// The columns of the `events` table: the one list the live statements (the
/// writer's insert and probe, the outbox's and the upload queue's reads, the import's source read,
/// the reports' fold and the exports) are built from, and whose `rawValue` is a column's index in
/// a row that selects ``record`` first. The table holds them in this order except for ``seq``, which
/// sits between ``openS`` and ``appVersion`` there (the context columns were added after it by
/// `ALTER TABLE`); here it stays last so that ``record`` is every column before it. Names come from ``EnvelopeField`` and the generated
/// ``PropertyName``, so a column is named as its NDJSON field.
///
/// The migrations keep their own literal SQL: a shipped migration is history and never changes
/// when a column is added here (a new column needs a new migration and a case here; a test holds
/// this list equal to the migrated table).
///
/// ```swift
/// let pwID = row.string(at: EventColumn.pwID.rawValue)
/// ```
public enum EventColumn: Int, Sendable, CaseIterable {
    /// `id`.
    case id
    /// `name`.
    case name
    /// `occurred_at`.
    case occurredAt
    /// `recorded_at`.
    case recordedAt
    /// `user_id`.
    case userID
    /// `session_id`.
    case sessionID
    /// `catalog_version`.
    case catalogVersion
    /// `pw_id`.
    case pwID
    /// `source`.
    case source
    /// `offering_id`.
    case offeringID
    /// `placement_id`.
    case placementID
    /// `product`.
    case product
    /// `result`.
    case result
    /// `via`.
    case via
    /// `open_s`.
    case openS
    /// `app_version` (catalog version 2).
    case appVersion
    /// `build` (catalog version 2).
    case build
    /// `platform` (catalog version 2).
    case platform
    /// `os_version` (catalog version 2).
    case osVersion
    /// `sdk_version` (catalog version 2).
    case sdkVersion
    /// `locale` (catalog version 2).
    case locale
    /// `seq`: the row's stable rowid (an `INTEGER PRIMARY KEY`), last in the table.
    case seq

    /// The column's name in SQL (its NDJSON field name, and `seq`).
    public var columnName: String {
        switch self {
        case .id: EnvelopeField.id.rawValue
        case .name: EnvelopeField.name.rawValue
        case .occurredAt: EnvelopeField.occurredAt.rawValue
        case .recordedAt: EnvelopeField.recordedAt.rawValue
        case .userID: EnvelopeField.userID.rawValue
        case .sessionID: EnvelopeField.sessionID.rawValue
        case .catalogVersion: EnvelopeField.catalogVersion.rawValue
        case .pwID: PropertyName.pwID.rawValue
        case .source: PropertyName.source.rawValue
        case .offeringID: PropertyName.offeringID.rawValue
        case .placementID: PropertyName.placementID.rawValue
        case .product: PropertyName.product.rawValue
        case .result: PropertyName.result.rawValue
        case .via: PropertyName.via.rawValue
        case .openS: PropertyName.openS.rawValue
        case .appVersion: EnvelopeField.appVersion.rawValue
        case .build: EnvelopeField.build.rawValue
        case .platform: EnvelopeField.platform.rawValue
        case .osVersion: EnvelopeField.osVersion.rawValue
        case .sdkVersion: EnvelopeField.sdkVersion.rawValue
        case .locale: EnvelopeField.locale.rawValue
        case .seq: "seq"
        }
    }

    /// The 1-based parameter of the column in ``EventWriter/insertEventSQL``.
    var parameter: Int { rawValue + 1 }

    /// The columns an ``EventRecord`` holds: every column but ``seq``, in table order.
    public static let record: [EventColumn] = allCases.filter { $0 != .seq }

    /// The context columns (catalog version 2's optional envelope fields), in ``EventContext/fields`` order.
    public static let context: [EventColumn] = [.appVersion, .build, .platform, .osVersion, .sdkVersion, .locale]

    /// The ``EventContext`` field this column holds (`nil` for the other columns).
    public var contextField: EnvelopeField? {
        switch self {
        case .appVersion: .appVersion
        case .build: .build
        case .platform: .platform
        case .osVersion: .osVersion
        case .sdkVersion: .sdkVersion
        case .locale: .locale
        default: nil
        }
    }

    /// `columns`' names separated by commas, each after `prefix` (a table alias such as `e.`).
    public static func list(_ columns: [EventColumn] = record, prefix: String = "") -> String {
        columns.map { prefix + $0.columnName }.joined(separator: ", ")
    }
}
