import Foundation

/// Builds the partials of the presentations a nightly job's own rollup refresh added
/// (``Rollup/Additions``), one per day they start on, on a thread of its own from the moment it is
/// made. The nightly job starts it right after the refresh, so the builds run beside the
/// subscription state update (one core each), and the partials update takes them for its additive
/// days instead of building them itself (``NightlyPartials/update(_:plan:keepPartials:prebuilt:)``).
///
/// A build is the update's own call (``DayPartial/build(_:startingIn:)``), so the partial is the
/// same; a day the plan rescans instead, or a run that stops early, leaves its build unused. The
/// thread only computes (no database, no files) and ends on its own.
///
/// Design note (speed): at 10M events the new day's build took about 50 ms of the nightly's main
/// thread, while the second core, after reading the first stored partials ahead
/// (``BackgroundPartialsLoad``), waited for the merge; here it is done before the update asks.
final class AdditivePartialsBuild: @unchecked Sendable {
    // `built` is written by the thread before it signals `done`, and read only after `wait()`.
    private let done = DispatchSemaphore(value: 0)
    private var built: [Int64: DayPartial] = [:]
    private var finished = false

    /// Starts building the partials of `additions` per day of `calendar`.
    init(_ additions: Rollup.Additions, calendar: DayCalendar) {
        let thread = Thread { [self] in
            defer { done.signal() }
            var built: [Int64: DayPartial] = [:]
            for day in Self.days(of: additions.folds, calendar) {
                built[day.startMs] = DayPartial.build(additions, startingIn: day)
            }
            self.built = built
        }
        thread.name = "PaywallReports.Nightly.additions"
        thread.start()
    }

    /// The partial of the added presentations that start on the day beginning at `startMs`, once
    /// built, handed over (asked again: `nil`); `nil` when none starts on it.
    func takePartial(startingAt startMs: Int64) -> DayPartial? {
        wait()
        return built.removeValue(forKey: startMs)
    }

    /// Waits for the builds to end.
    func wait() {
        guard !finished else { return }
        done.wait()
        finished = true
    }

    /// The days `folds` start on, each once. The calendar is asked only for a fold outside every day
    /// found so far: with time-ordered ids the folds come day by day, and a fold's day is a
    /// Foundation calendar computation.
    static func days(of folds: FoldRuns, _ calendar: DayCalendar) -> [ReportDay] {
        var days: [ReportDay] = []
        var current: ReportDay?
        for fold in folds {
            if let day = current, fold.firstAt >= day.startMs, fold.firstAt < day.endMs { continue }
            if let known = days.first(where: { fold.firstAt >= $0.startMs && fold.firstAt < $0.endMs }) {
                current = known
                continue
            }
            let date = calendar.date(containing: fold.firstAt)
            guard let day = try? calendar.days(from: date, through: date).first else { continue }
            days.append(day)
            current = day
        }
        return days
    }
}

extension DayPartial {
    /// The partial of the presentations in `additions` that start in `day`.
    static func build(_ additions: Rollup.Additions, startingIn day: ReportDay) -> DayPartial {
        build(
            additions.folds.lazy.filter { $0.firstAt >= day.startMs && $0.firstAt < day.endMs },
            texts: additions.texts)
    }
}
