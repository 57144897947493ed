import Foundation
import PaywallCore
import PaywallOutput
import PaywallSQLite

/// Every failure of the reports module, with what went wrong and what to do, in plain words that
/// name no command-line flag (the `paywall-analytics` executable maps each case to its exit code
/// and words the advice with its flags).
public enum ReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A date argument is not a valid `YYYY-MM-DD` calendar date.
    case invalidDate(String)
    /// A well-formed date outside the supported years, ``ReportDate/supportedYears`` (1970…9999).
    case dateOutOfRange(String)
    /// `from` is after `to`.
    case invalidRange(from: String, to: String)
    /// The time zone identifier is unknown to this system's time zone database.
    case unknownTimeZone(String)
    /// A day boundary of the zone is not on a 15-minute boundary (only historical zones; none in use today).
    case unsupportedTimeZone(String, date: String)
    /// `--days` is not a whole number of days ≥ 1.
    case invalidDays(Int)
    /// `--days` reaches back before 1970-01-01; `maximum` is the most days that do not.
    case daysBeforeHistory(days: Int, maximum: Int)
    /// A duration argument (`--cohort-window`) is not understood.
    case invalidDuration(String)
    /// A duration argument is well formed but longer than the cohort window's cap of 366 days.
    case durationOverCap(String)
    /// Another nightly run holds the reports lease on this database.
    case busy(holder: String)
    /// Another report run is writing into the same output folder (it holds `runs/.lock`).
    case outputBusy(path: String)
    /// The database lacks the store's tables (not created by PaywallAnalytics, or not migrated).
    case notAStore(path: String, missing: String)
    /// The output folder or file cannot be created or written.
    case cannotCreateOutput(path: String, reason: String)
    /// Reading or writing a file failed mid-way.
    case io(path: String, reason: String)
    /// The database failed.
    case storage(StorageError)
    /// A filter (a placement, the control offering) names a value the store has never seen.
    case unknownValue(UnknownFilterValue)

    /// What went wrong and what to do.
    public var description: String {
        switch self {
        case .invalidDate(let text):
            return "'\(text)' is not a date; write dates as YYYY-MM-DD, e.g. 2026-11-29."
        case .dateOutOfRange(let text):
            return "\(text) is outside the dates reports cover, 1970-01-01 to 9999-12-31 (event times are Unix times); "
                + "give a date in that range."
        case .invalidRange(let from, let to):
            return "the range starts (\(from)) after it ends (\(to)); give a start on or before the end."
        case .unknownTimeZone(let name):
            return "unknown time zone '\(name)'; use an IANA name such as Europe/Berlin or UTC."
        case .unsupportedTimeZone(let name, let date):
            return "time zone '\(name)' starts \(date) at an offset that is not a multiple of 15 minutes, "
                + "which the day rollups cannot split; use a modern zone or UTC."
        case .invalidDays(let days):
            return "the number of days must be a whole number, 1 or more (got \(days)); omit it for all history."
        case .daysBeforeHistory(let days, let maximum):
            return "\(days) days reach back before 1970-01-01, where reports start; give at most \(maximum) "
                + "(every day since 1970-01-01), or none for all history."
        case .invalidDuration(let text):
            return
                "'\(text)' is not a duration; write a positive whole number and a unit, e.g. 3d, 72h, 90m, 30s or 1500ms."
        case .durationOverCap(let text):
            return
                "'\(text)' is over the cohort window's cap of 366 days (366d, 8784h); give a window of at most 366 days."
        case .busy(let holder):
            return "another report run (\(holder)) is in progress on this database; nothing was written. "
                + "Wait for it to finish and retry."
        case .outputBusy(let path):
            return "another report run is writing into \(path) (it holds \(path)/runs/.lock); nothing was written. "
                + "Wait for it to finish and retry, or write into another folder."
        case .notAStore(let path, let missing):
            return "\(path) is not a PaywallAnalytics store (table \(missing) is missing); "
                + "open a database the recorder created."
        case .cannotCreateOutput(let path, let reason):
            return "cannot create output \(path): \(reason); choose a writable location."
        case .io(let path, let reason):
            return "I/O error on \(path): \(reason); check the disk and retry (previous outputs are intact)."
        case .storage(let error):
            return error.description
        case .unknownValue(let unknown):
            return unknown.description + ". Check the spelling; values are matched exactly."
        }
    }
}

extension ReportError {
    /// Runs `body`, wrapping a ``StorageError`` as ``ReportError/storage(_:)``.
    static func wrap<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ReportError { throw error } catch let error as UnreadablePartial {
            throw error  // handled by the nightly job (it rebuilds the partials)
        } catch let error as SubscriptionState.Inconsistent {
            throw error  // handled by the nightly job (it builds the subscription state again)
        } catch let error as StorageError {
            throw ReportError.storage(error)
        } catch {
            throw ReportError.io(path: "", reason: "\(error)")
        }
    }
}

extension ReportError {
    /// The report error for an output file that could not be written (73 or 74).
    init(_ error: OutputFileError) {
        switch error.kind {
        case .cannotCreate: self = .cannotCreateOutput(path: error.path, reason: error.reason)
        case .io: self = .io(path: error.path, reason: error.reason)
        }
    }
}
