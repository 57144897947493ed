import Foundation
import PaywallCore
import PaywallReports
import PaywallSQLite
import PaywallStore

/// Opening the events database for a command, and mapping storage failures to exit codes.
enum StoreAccess {
    /// The migrations of every module keeping tables in the store, after the store's own (register a
    /// new module's ``MigrationGroup`` here; ``Migrator`` refuses a file a newer program migrated).
    static let modules: [MigrationGroup] = [ReportSchema.migrations]

    /// Opens (creating if needed, with mode 0600) and migrates the store at `path`.
    static func open(_ path: String, create: Bool, now: Now = .system) throws(CLIError) -> EventStore {
        if !create, !FileManager.default.fileExists(atPath: path) {
            throw CLIError(.missingInput, "no events database at \(path). Record or import events first (`\(Tool.name) import FILE`), or pass --db PATH.")
        }
        if create {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIError(.cannotCreateOutput, "cannot create the folder \(folder.path) for the database: \(error.localizedDescription). Choose another place with --db PATH.")
            }
        }
        do {
            return EventStore(connection: try Schema.open(path: path, registering: modules), now: now)
        } catch {
            throw map(error)
        }
    }

    /// The exit code and message for a storage failure (the message never holds bound values).
    static func map(_ error: any Error) -> CLIError {
        guard let error = error as? StorageError else {
            if let error = error as? CLIError { return error }
            return CLIError(.internalError, "\(error)")
        }
        let code = ExitCode(rawValue: error.exitCode) ?? .internalError
        return CLIError(code, error.description)
    }
}
