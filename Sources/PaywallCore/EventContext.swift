/// Where an event came from: the optional envelope fields catalog version 2 added (`app_version`,
/// `build`, `platform`, `os_version`, `sdk_version`, `locale`). Every field is optional; an event
/// of catalog version 1 has none (``empty``), and one that carries any must say `catalog_version` 2
/// or later (the validator refuses it otherwise).
///
/// ```swift
/// let context = EventContext(appVersion: "3.2.0", build: "412", platform: .ios, osVersion: "17.4")
/// ```
public struct EventContext: Sendable, Hashable, Codable {
    /// `app_version`: the app's marketing version (at most 64 scalars).
    public var appVersion: String?
    /// `build`: the app's build number (at most 64 scalars).
    public var build: String?
    /// `platform`: the operating system family.
    public var platform: DevicePlatform?
    /// `os_version`: the operating system's version (at most 32 scalars).
    public var osVersion: String?
    /// `sdk_version`: the version of the library that recorded the event (at most 64 scalars).
    public var sdkVersion: String?
    /// `locale`: the device's locale as a BCP 47 tag (at most 35 scalars).
    public var locale: String?

    /// A context from its parts; leave out what is not known.
    public init(
        appVersion: String? = nil, build: String? = nil, platform: DevicePlatform? = nil, osVersion: String? = nil,
        sdkVersion: String? = nil, locale: String? = nil
    ) {
        self.appVersion = appVersion
        self.build = build
        self.platform = platform
        self.osVersion = osVersion
        self.sdkVersion = sdkVersion
        self.locale = locale
    }

    /// No context: what a catalog version 1 event carries.
    public static let empty = EventContext()

    /// Whether no field is set.
    public var isEmpty: Bool { self == Self.empty }

    /// The catalog version an event needs to carry this context: 1 when empty, else 2.
    public var minimumCatalogVersion: Int { isEmpty ? 1 : 2 }

    /// `override`'s fields where it has them, this context's elsewhere (the app's overrides over
    /// what the library found on the device).
    public func overridden(by override: EventContext) -> EventContext {
        EventContext(
            appVersion: override.appVersion ?? appVersion, build: override.build ?? build,
            platform: override.platform ?? platform, osVersion: override.osVersion ?? osVersion,
            sdkVersion: override.sdkVersion ?? sdkVersion, locale: override.locale ?? locale)
    }

    /// The text of the context field `field` (`platform` as its raw value); `nil` when unset and for
    /// every other envelope field.
    public func text(_ field: EnvelopeField) -> String? {
        switch field {
        case .appVersion: appVersion
        case .build: build
        case .platform: platform?.rawValue
        case .osVersion: osVersion
        case .sdkVersion: sdkVersion
        case .locale: locale
        default: nil
        }
    }

    /// The context fields in wire order.
    public static let fields: [EnvelopeField] = [.appVersion, .build, .platform, .osVersion, .sdkVersion, .locale]
}
