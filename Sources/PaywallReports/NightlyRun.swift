/// What a nightly run did; written as `run.json` next to the CSV files.
public struct NightlyRun: Sendable, Codable, Equatable {
    /// The dates (in ``timezone``) that received events since the previous run, ascending.
    public var daysRecomputed: [String]
    /// Events folded into the rollups by this run.
    public var eventsRead: Int64
    /// The input watermark after the run: the last events rowid read.
    public var inputWatermark: Int64
    /// Newest `occurred_at` among the stored events (Unix ms), if any.
    public var newestEventAt: Int64?
    /// First and last date of the window written.
    public var windowFrom: String
    /// Last date of the window written.
    public var windowTo: String
    /// The time zone that defines days.
    public var timezone: String
    /// Data rows per CSV file.
    public var rows: [String: Int]
    /// When the run started (Unix ms).
    public var startedAt: Int64
    /// Wall time of the run in milliseconds.
    public var durationMs: Int64
    /// The program version that wrote the files.
    public var version: String
    /// `false` when nothing changed since the previous run, so no file was rewritten.
    public var outputsChanged: Bool
    /// The run's folder under `--out/runs/` (`nil` when nothing was rewritten).
    public var runID: String? = nil

    enum CodingKeys: String, CodingKey {
        case daysRecomputed = "days_recomputed"
        case eventsRead = "events_read"
        case inputWatermark = "input_watermark"
        case newestEventAt = "newest_event_at"
        case windowFrom = "window_from"
        case windowTo = "window_to"
        case timezone, rows
        case startedAt = "started_at"
        case durationMs = "duration_ms"
        case version
        case outputsChanged = "outputs_changed"
        case runID = "run_id"
    }
}
