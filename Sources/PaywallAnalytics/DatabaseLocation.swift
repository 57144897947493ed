import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where an app keeps its event store: a folder of its own that exists, is private, survives
/// updates, and is not backed up.
///
/// ```swift
/// let path = try DatabaseLocation.applicationSupport()                         // the app's container
/// let shared = try DatabaseLocation.applicationSupport(appGroup: "group.com.example.app")
/// let analytics = try PaywallAnalytics(configuration: .init(databasePath: path))
/// ```
public enum DatabaseLocation {
    /// The default file name.
    public static let defaultFileName = "paywall-analytics.sqlite"
    /// The default folder inside the base directory.
    public static let defaultFolder = "PaywallAnalytics"

    /// The path of the store in the app's data directory, creating the folders (mode 0700).
    ///
    /// - Apple platforms: `Library/Application Support/<folder>` of the app's container, or of
    ///   the app group's container when `appGroup` is given (on macOS outside a sandbox, the
    ///   bundle identifier is added, so two apps never share a store). The folder gets the file
    ///   protection `completeUntilFirstUserAuthentication` (iOS, tvOS, watchOS, visionOS) —
    ///   readable by a background task after the first unlock, which SQLite's WAL needs — and
    ///   is excluded from backups.
    /// - Linux and others: `$XDG_DATA_HOME/<folder>`, or `~/.local/share/<folder>` when
    ///   `XDG_DATA_HOME` is unset, empty or relative.
    ///
    /// - Parameters:
    ///   - fileName: the database file's name.
    ///   - appGroup: an app group identifier (Apple platforms; needs the App Groups entitlement).
    ///   - folder: the folder for the store inside the base directory.
    ///   - environment: where `XDG_DATA_HOME` and `HOME` are read (Linux).
    /// - Returns: the database path; the file itself is created when the store opens.
    /// - Throws: ``DatabaseLocationError`` when the base directory is unknown or a folder
    ///   cannot be created.
    public static func applicationSupport(
        fileName: String = defaultFileName, appGroup: String? = nil,
        folder: String = defaultFolder,
        environment: [String: String] = ProcessInfo.processInfo.environment
    )
        throws -> String
    {
        let directory = try baseDirectory(appGroup: appGroup, environment: environment)
            .appendingPathComponent(folder, isDirectory: true)
        try createPrivateDirectory(directory)
        try protect(directory)
        return directory.appendingPathComponent(fileName, isDirectory: false).path
    }

    private static func baseDirectory(appGroup: String?, environment: [String: String]) throws -> URL {
        #if canImport(Darwin)
            if let appGroup {
                guard let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)
                else {
                    throw DatabaseLocationError.noAppGroupContainer(appGroup)
                }
                return container.appendingPathComponent("Library/Application Support", isDirectory: true)
            }
            do {
                let support = try FileManager.default.url(
                    for: .applicationSupportDirectory, in: .userDomainMask,
                    appropriateFor: nil, create: true)
                #if os(macOS)
                    let sandboxed = environment["APP_SANDBOX_CONTAINER_ID"] != nil
                    if !sandboxed, let bundle = Bundle.main.bundleIdentifier {
                        return support.appendingPathComponent(bundle, isDirectory: true)
                    }
                #endif
                return support
            } catch {
                throw DatabaseLocationError.noApplicationSupport(String(describing: error))
            }
        #else
            _ = appGroup
            if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
                return URL(fileURLWithPath: data, isDirectory: true)
            }
            guard let home = environment["HOME"], home.hasPrefix("/") else {
                throw DatabaseLocationError.noHome
            }
            return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(
                ".local/share", isDirectory: true)
        #endif
    }

    /// Creates `directory` and its missing parents, each new one with mode 0700.
    static func createPrivateDirectory(_ directory: URL) throws {
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw DatabaseLocationError.cannotCreate(path: directory.path, reason: String(describing: error))
        }
    }

    /// File protection and backup exclusion on Apple platforms; nothing elsewhere.
    private static func protect(_ directory: URL) throws {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            do {
                try FileManager.default.setAttributes(
                    [.protectionKey: FileProtectionType.completeUntilFirstUserAuthentication],
                    ofItemAtPath: directory.path)
            } catch {
                throw DatabaseLocationError.cannotProtect(path: directory.path, reason: String(describing: error))
            }
        #endif
        #if canImport(Darwin)
            var url = directory
            var values = URLResourceValues()
            values.isExcludedFromBackup = true
            do { try url.setResourceValues(values) } catch {
                throw DatabaseLocationError.cannotProtect(path: directory.path, reason: String(describing: error))
            }
        #else
            _ = directory
        #endif
    }
}

/// Why ``DatabaseLocation`` found no place for the store.
public enum DatabaseLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The app group has no container: the App Groups entitlement is missing or misspelt.
    case noAppGroupContainer(String)
    /// The system gave no Application Support directory.
    case noApplicationSupport(String)
    /// Neither `XDG_DATA_HOME` nor `HOME` is an absolute path.
    case noHome
    /// A folder could not be created.
    case cannotCreate(path: String, reason: String)
    /// File protection or the backup exclusion could not be set.
    case cannotProtect(path: String, reason: String)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .noAppGroupContainer(let group):
            "the app group \(group) has no container; add it to the App Groups entitlement of the app "
                + "(and its extensions) or pass appGroup: nil"
        case .noApplicationSupport(let reason):
            "the system gave no Application Support directory (\(reason)); pass an explicit databasePath"
        case .noHome:
            "neither XDG_DATA_HOME nor HOME is set to an absolute path; set one or pass an explicit databasePath"
        case .cannotCreate(let path, let reason):
            "cannot create the folder \(path) for the event store (\(reason)); check its parent's permissions "
                + "or pass another databasePath"
        case .cannotProtect(let path, let reason):
            "cannot set file protection or the backup exclusion on \(path) (\(reason))"
        }
    }
}
