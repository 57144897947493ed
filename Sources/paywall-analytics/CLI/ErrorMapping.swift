import PaywallCollector
import PaywallCore
import PaywallOutput
import PaywallReports
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import RevenueCatForwarder

/// The one table from the libraries' errors and outcomes to the tool's exit codes (``ExitCode``) and
/// its messages with the command line's advice.
///
/// Libraries throw typed errors with plain messages that name no flag; only here does a message
/// gain `--db`, `--out` or `--days`. A command lets a library error through (or passes it to
/// ``CLIError/init(_:)``); a new library error type gets one `case` in ``CLIError/init(_:)`` and
/// its exit codes in an `ExitCode` initializer below.
extension CLIError {
    /// The exit code and message for any error a command lets through; `otherwise` words an error
    /// no row of the table knows (exit 70).
    init(_ error: any Error, otherwise: (any Error) -> String = { "\($0)" }) {
        switch error {
        case let error as CLIError:
            self = error
        case let error as StorageError:
            self.init(ExitCode(error.kind), Self.message(error))
        case let error as ReportError:
            let code = ExitCode(error)
            self.init(code, Self.message(error), showsUsage: code == .usage)
        case let error as ImportError:
            self.init(ExitCode(error.kind), Self.message(error))
        case let error as SQLiteInputError:
            self.init(.badInput, error.description + ".")
        case let error as StoredEventError:
            self.init(
                .badInput,
                error.description + ". Fix or delete that row of the events table (or restore the database from "
                    + "a backup), then run the command again.")
        case let error as CollectorError:
            switch error {
            case .noWriteKeys: self.init(.usage, Self.message(error))
            case .anotherCollector: self.init(.temporaryFailure, Self.message(error))
            case .lockFile: self.init(.cannotCreateOutput, Self.message(error))
            case .serverStart: self.init(.internalError, Self.message(error))
            }
        case let error as ListenSocket.Failure:
            let code = ExitCode(error)
            self.init(code, Self.message(error), showsUsage: code == .usage)
        case let error as OutputFileError:
            self.init(
                ExitCode(error.kind), "cannot write \(error.description). Check that the folder exists and is writable."
            )
        default:
            self.init(.internalError, otherwise(error))
        }
    }

    /// A storage failure's message: the library's diagnosis and, where the fix is another
    /// database, the advice naming `--db`.
    static func message(_ error: StorageError) -> String {
        switch error.kind {
        case .readOnly:
            return error.diagnosis + ". Make the file and its directory writable by this user, or choose another "
                + "database with --db."
        case .corrupt:
            return error.diagnosis + ". Point --db at a PaywallAnalytics database, or restore this one from a backup; "
                + "the file was not modified."
        case .foreignDatabase:
            return error.description
                + " Choose another database with --db PATH (or leave --db out for the default store)."
        case .schemaTooNew:
            return error.diagnosis + ". Upgrade \(Tool.name) to read this database; the file was left untouched."
        case .constraint:
            return error.description + " This is a bug in \(Tool.name); please report it with this message."
        case .full:
            return error.diagnosis + ". Free disk space (or raise the size limit), then run the command again; "
                + "nothing of the failed write was kept."
        default:
            return error.description
        }
    }

    /// An import's failure; a file that is no store gets the tool's name in its advice.
    static func message(_ error: ImportError) -> String {
        error.kind == .notAStore
            ? error.description + " Import NDJSON, or a database created by \(Tool.name)."
            : error.description
    }

    /// The collector's failure, with the flag or the command that fixes it.
    static func message(_ error: CollectorError) -> String {
        switch error {
        case .serverStart:
            return "the HTTP server could not start (libmicrohttpd refused its options or ran out of resources); "
                + "check the open-file limit (ulimit -n) against --max-connections"
        case .noWriteKeys:
            return "the store has no write key and no webhook secret, so every request would be refused; create one "
                + "with `\(Tool.name) keys add NAME` and give it to the app's uploader (or `keys add NAME --webhook` "
                + "for RevenueCat's webhooks)"
        case .anotherCollector, .lockFile:
            return error.description
        }
    }

    /// A listening socket's failure, with the flag that picks another address.
    static func message(_ error: ListenSocket.Failure) -> String {
        switch error {
        case .addressInUse, .refused: return error.description + " with --listen"
        case .badAddress, .unresolved: return error.description
        }
    }

    /// A reports failure's message, with the flags a user changes to fix it.
    static func message(_ error: ReportError) -> String {
        switch error {
        case .invalidRange(let from, let to):
            return "the range starts (\(from)) after it ends (\(to)); give --from on or before --to."
        case .invalidDays(let days):
            return "--days must be a whole number of days, 1 or more (got \(days)); omit it for all history."
        case .daysBeforeHistory(let days, let maximum):
            return "--days \(days) reaches back before 1970-01-01, where reports start; give at most \(maximum) "
                + "(every day since 1970-01-01), or omit --days for all history."
        case .outputBusy(let path):
            return "another report run is writing into \(path) (it holds \(path)/runs/.lock); nothing was written. "
                + "Wait for it to finish and retry, or choose another --out."
        case .notAStore(let path, let missing):
            return "\(path) is not a PaywallAnalytics store (table \(missing) is missing); "
                + "point --db at a database the recorder created."
        case .cannotCreateOutput(let path, let reason):
            return "cannot create output \(path): \(reason); choose a writable location with --out."
        case .storage(let storage):
            return message(storage)
        case .unknownValue(let unknown):
            // The flag that names each kind of value (`app version` → `--app-version`).
            let flag =
                ["offering": "--control"][unknown.kind] ?? "--" + String(unknown.kind.map { $0 == " " ? "-" : $0 })
            return "\(flag) \(unknown.value): \(unknown.description). Values are matched exactly: fix the spelling, "
                + "or leave \(flag) out. Nothing was written."
        case .invalidDate, .dateOutOfRange, .unknownTimeZone, .unsupportedTimeZone, .invalidDuration, .durationOverCap,
            .busy, .io:
            return error.description
        }
    }
}

extension ExitCode {
    /// A storage failure: 75 locked, 74 I/O (full disk, I/O error, no WAL), 73 cannot write or
    /// create the database, 65 a damaged file, a database from a newer version or another
    /// program's database, 70 anything else.
    init(_ kind: StorageError.Kind) {
        switch kind {
        case .busy: self = .temporaryFailure
        case .full, .ioError, .walUnavailable: self = .ioError
        case .readOnly, .cannotOpen: self = .cannotCreateOutput
        case .corrupt, .schemaTooNew, .foreignDatabase: self = .badInput
        case .constraint, .other: self = .internalError
        }
    }

    /// A reports failure: 64 a bad argument, 65 not a store or a filter naming an unknown value, 73 cannot create output, 74 I/O,
    /// 75 another run holds the lease or the folder, a storage failure as ``init(_:)-(StorageError.Kind)``.
    init(_ error: ReportError) {
        switch error {
        case .invalidDate, .dateOutOfRange, .invalidRange, .unknownTimeZone, .unsupportedTimeZone, .invalidDays,
            .daysBeforeHistory, .invalidDuration, .durationOverCap:
            self = .usage
        case .busy, .outputBusy: self = .temporaryFailure
        case .notAStore, .unknownValue: self = .badInput
        case .cannotCreateOutput: self = .cannotCreateOutput
        case .io: self = .ioError
        case .storage(let storage): self.init(storage.kind)
        }
    }

    /// An input the import could not read: 66 missing, 74 unreadable, 65 not a store or a database
    /// read from a stream.
    init(_ kind: ImportError.Kind) {
        switch kind {
        case .missingInput: self = .missingInput
        case .unreadable: self = .ioError
        case .notAStore, .databaseFromStream: self = .badInput
        }
    }

    /// A finished import: 65 (bad input data) when anything was quarantined or in conflict with a
    /// stored event, else 0.
    init(_ result: ImportResult) {
        self = result.refusedAny ? .badInput : .success
    }

    /// An import of webhook bodies (`import --revenuecat`): as an events import, 65 when any line was
    /// quarantined (the good ones are stored), else 0.
    init(_ result: SubscriptionImportResult) {
        self = result.quarantined > 0 ? .badInput : .success
    }

    /// A forwarding pass: 0 when everything due was delivered, 65 when RevenueCat refused any
    /// impression (dead-lettered in this pass; this wins over 69, since a refusal needs a person
    /// and a retry does not fix it), 69 when RevenueCat could not be reached, redirected or asked
    /// to wait, 75 when another pass holds the lease. A missing or malformed key is 64.
    init(_ pass: ForwardingPass) {
        switch pass {
        case .busy: self = .temporaryFailure
        case .completed(let summary) where summary.deadLettered > 0: self = .badInput
        case .completed(let summary): self = summary.revenueCatUnavailable ? .unavailable : .success
        }
    }

    /// An upload pass (`upload`): 0 when everything due was uploaded (or the batch limit was
    /// reached), 69 when the collector could not take the events now (failed, refused the key, or
    /// paused by an earlier failure), 75 when another upload pass holds the lease. A missing or
    /// malformed write key is 64.
    init(_ pass: DeliveryPass) {
        switch pass {
        case .busy: self = .temporaryFailure
        case .completed(let report): self = report.unavailable ? .unavailable : .success
        }
    }

    /// A listening socket that could not be made: 64 an address that cannot be read or resolved,
    /// 75 an address in use (retry later), 74 any other refusal.
    init(_ failure: ListenSocket.Failure) {
        switch failure {
        case .badAddress, .unresolved: self = .usage
        case .addressInUse: self = .temporaryFailure
        case .refused: self = .ioError
        }
    }

    /// An output file that could not be written: 74 when writing failed, else 73.
    init(_ kind: OutputFileError.Kind) {
        self = kind == .io ? .ioError : .cannotCreateOutput
    }
}
