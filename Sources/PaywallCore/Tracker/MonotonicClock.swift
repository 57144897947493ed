/// A monotonic time line measured from an origin, made from any `Clock<Duration>`, so that
/// deadlines can be fixed when they are set (not when a task gets around to sleeping).
struct MonotonicClock: Sendable {
    /// Time elapsed since the origin.
    let elapsed: @Sendable () -> Duration
    /// Sleeps until `elapsed()` reaches the given value (returns at once if it has).
    let sleepUntil: @Sendable (Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleepUntil = { deadline in try await clock.sleep(until: origin.advanced(by: deadline), tolerance: nil) }
    }
}
