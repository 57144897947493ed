import Foundation

#if canImport(Darwin)
    import Darwin
#endif

/// The ``EventContext`` of the device the library runs on, read once at start: the app's versions
/// from its bundle's Info.plist (`CFBundleShortVersionString`, `CFBundleVersion`), the platform and
/// the operating system's version from the build target and `ProcessInfo`, the library's own
/// version (``ProductVersion``), and the current locale as a BCP 47 tag. A value that would break
/// the catalog's limits (too long, empty) is left out rather than cut, so an event never fails
/// validation because of its context.
///
/// On Linux and other systems without an app bundle the app's versions are absent (an app passes
/// them through its configuration) and the platform is `server`: a Swift process on Linux that
/// records paywall events is a server-side recorder, since the catalog has no Linux desktop value.
///
/// ```swift
/// let context = DeviceContext.current()   // EventContext(appVersion: "3.2.0", platform: .ios, …)
/// ```
public enum DeviceContext {
    /// The context of this process (`bundle` and `processInfo` can be replaced in tests).
    public static func current(bundle: Bundle = .main, processInfo: ProcessInfo = .processInfo) -> EventContext {
        let info = bundle.infoDictionary ?? [:]
        return EventContext(
            appVersion: fitting(info["CFBundleShortVersionString"] as? String, .appVersion),
            build: fitting(info["CFBundleVersion"] as? String, .build),
            platform: platform(processInfo),
            osVersion: fitting(osVersion(processInfo.operatingSystemVersion), .osVersion),
            sdkVersion: fitting(ProductVersion.current, .sdkVersion),
            locale: fitting(localeTag(Locale.current), .locale))
    }

    /// `major.minor`, with `.patch` when it is not 0 (`17.4`, `17.4.1`, `6.8.0-generic` is `6.8`).
    public static func osVersion(_ version: OperatingSystemVersion) -> String {
        let base = "\(version.majorVersion).\(version.minorVersion)"
        return version.patchVersion == 0 ? base : base + ".\(version.patchVersion)"
    }

    /// The locale's BCP 47 tag (`en-US`); `nil` for the undetermined root locale.
    public static func localeTag(_ locale: Locale) -> String? {
        let tag = locale.identifier(.bcp47)
        return tag.isEmpty || tag == "und" ? nil : tag
    }

    /// `value` when it is within the limits the catalog gives `field`, else `nil`.
    public static func fitting(_ value: String?, _ field: EnvelopeField) -> String? {
        guard let value else { return nil }
        guard let spec = Catalog.bundled.envelope.first(where: { $0.name == field.rawValue }) else { return nil }
        return spec.lengthProblem(TextLength(value)) == nil ? value : nil
    }

    /// The platform this build runs on.
    static func platform(_ processInfo: ProcessInfo) -> DevicePlatform {
        #if os(visionOS)
            return .visionos
        #elseif os(iOS)
            // An iPhone app running on a Mac is a macOS presentation; an iPad's model starts with "iPad".
            if processInfo.isiOSAppOnMac || processInfo.isMacCatalystApp { return .macos }
            return machineModel(processInfo).hasPrefix("iPad") ? .ipados : .ios
        #elseif os(macOS)
            return .macos
        #elseif os(tvOS)
            return .tvos
        #elseif os(watchOS)
            return .watchos
        #elseif os(Android)
            return .android
        #elseif os(Linux) || os(Windows)
            return .server
        #else
            return .other
        #endif
    }

    #if os(iOS) && !os(visionOS)
        /// The device model (`iPad13,4`); the simulator's is in its environment.
        static func machineModel(_ processInfo: ProcessInfo) -> String {
            if let simulated = processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] { return simulated }
            var system = utsname()
            uname(&system)
            return withUnsafeBytes(of: &system.machine) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        }
    #endif
}
