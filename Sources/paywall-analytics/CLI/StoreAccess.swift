import Foundation
import PaywallCollector
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions

/// Opening the events database for a command, and mapping storage failures to exit codes.
enum StoreAccess {
    /// The migrations of every module keeping tables in the store, after the store's own (register a
    /// new module's ``MigrationGroup`` here; ``Migrator`` refuses a file a newer program migrated).
    static let modules: [MigrationGroup] = [
        ReportSchema.migrations, Collector.migrations, SubscriptionSchema.migrations,
    ]

    /// Opens (creating if needed, with mode 0600) and migrates the store at `path`.
    /// - Parameter readOnly: how the command can do with a store this user cannot write: `.read`
    ///   opens it read-only (stats, exports that only read), `.refuse(why)` refuses it with 73
    ///   before anything is opened, so nothing is left beside it.
    static func open(_ path: String, create: Bool, readOnly: ReadOnlyUse, now: Now = .system) throws(CLIError)
        -> EventStore
    {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            let example = URL(fileURLWithPath: path).appendingPathComponent("events.sqlite").path
            throw CLIError(
                create ? .cannotCreateOutput : .missingInput,
                "\(path) is a directory, not a database file; pass the database file's path with --db, e.g. \(example)."
            )
        }
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw CLIError(
                .missingInput,
                "no events database at \(path). Record or import events first (`\(Tool.name) import FILE`), or pass --db PATH."
            )
        }
        if FileManager.default.fileExists(atPath: path), !isWritable(path) {
            return try openReadOnly(path, use: readOnly, now: now)
        }
        if create {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError(
                    .cannotCreateOutput,
                    "cannot create the folder \(folder.path) for the database: \(error.localizedDescription). Choose another place with --db PATH."
                )
            }
        }
        do {
            return EventStore(connection: try Schema.open(path: path, registering: modules), now: now)
        } catch {
            throw map(error)
        }
    }

    /// The exit code and message for a storage failure (the message never holds bound values), from
    /// the one table (``CLIError/init(_:otherwise:)``).
    static func map(_ error: any Error) -> CLIError { CLIError(error) }
}
