/// The envelope fields of an event by their wire names: the keys of an NDJSON line beside the
/// catalog's properties (``PropertyName``), and the `events` columns of the same names. The one
/// place these names are spelled: the NDJSON encoder, the validators and the store's and the
/// exports' SQL take them from here.
///
/// ```swift
/// EnvelopeField.occurredAt.rawValue  // "occurred_at"
/// ```
public enum EnvelopeField: String, Sendable, Hashable, CaseIterable {
    /// `id`: the event's UUID.
    case id
    /// `name`: the event's catalog name.
    case name
    /// `occurred_at`: when the event happened (Unix milliseconds).
    case occurredAt = "occurred_at"
    /// `recorded_at`: when a store stored it (Unix milliseconds).
    case recordedAt = "recorded_at"
    /// `user_id`: the customer.
    case userID = "user_id"
    /// `session_id`: the app session's UUID, when there is one.
    case sessionID = "session_id"
    /// `catalog_version`: the catalog version the event was recorded with.
    case catalogVersion = "catalog_version"
    /// `app_version`: the app's marketing version (catalog version 2, optional).
    case appVersion = "app_version"
    /// `build`: the app's build number (catalog version 2, optional).
    case build
    /// `platform`: the operating system family (catalog version 2, optional).
    case platform
    /// `os_version`: the operating system's version (catalog version 2, optional).
    case osVersion = "os_version"
    /// `sdk_version`: the recording library's version (catalog version 2, optional).
    case sdkVersion = "sdk_version"
    /// `locale`: the device's BCP 47 locale (catalog version 2, optional).
    case locale
}
