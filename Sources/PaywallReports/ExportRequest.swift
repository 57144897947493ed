/// What `export` writes.
public enum ExportKind: String, Sendable, CaseIterable {
    /// Stored events, one row per id, with the impression's delivery state.
    case events
    /// The per-day funnels: encounter and conversion columns side by side per (date, placement).
    case funnels
    /// Quarantined input, with reasons and the raw payload.
    case quarantine
    /// RevenueCat refusals, with status and reason.
    case deadLetters = "dead-letters"
}

/// How `export events` writes its rows.
public enum ExportFormat: String, Sendable, CaseIterable {
    /// RFC 4180 CSV with a header row (every export).
    case csv
    /// One JSON object per line, exactly as `import` reads it (events only; `null` fields left out).
    case ndjson
}

/// Filters of `export`: all optional; dates are inclusive days in ``timezone``.
public struct ExportFilter: Sendable, Hashable {
    /// First day (by `occurred_at` for events, `quarantined_at`, `dead_at`; the presentation day for funnels).
    public var from: ReportDate?
    /// Last day, inclusive.
    public var to: ReportDate?
    /// Keep these placements (`source`) only; empty: all. Quarantine has no placement and ignores it.
    public var placements: [String]
    /// Keep these event names only (events and dead letters); empty: all.
    public var names: [String]
    /// The IANA zone that defines days (default UTC).
    public var timezone: String
    /// Keep these customers' rows only (`user_id`, byte for byte: an access request); empty: all.
    /// Events and dead letters; the quarantine and funnels ignore it.
    public var users: [String] = []

    /// Creates a filter.
    public init(
        from: ReportDate? = nil, to: ReportDate? = nil, placements: [String] = [], names: [String] = [],
        timezone: String = "UTC"
    ) {
        self.from = from
        self.to = to
        self.placements = placements
        self.names = names
        self.timezone = timezone
    }
}
