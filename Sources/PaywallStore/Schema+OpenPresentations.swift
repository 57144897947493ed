import PaywallSQLite

extension Schema {
    /// `store/open-presentations`: the state of every presentation a tracker has open
    /// (``PresentationJournalTable``), so that the next start closes what a killed process left open.
    /// One row per `pw_id`: its owner (the process id and a token of the tracker's journal), what the
    /// close of an abandoned presentation needs (placement, customer, visible seconds as of
    /// `checkpoint_at`, the plan last selected), and the impression and close the tracker emitted as
    /// NDJSON lines (so whichever did not reach the events table is written once on recovery). A row
    /// is deleted once its close is durable in `events`.
    static let openPresentations = Migration(
        "open-presentations",
        sql: """
            CREATE TABLE open_presentations (
              pw_id TEXT PRIMARY KEY NOT NULL,
              owner_pid INTEGER NOT NULL, owner_token TEXT NOT NULL,
              user_id TEXT NOT NULL, session_id TEXT, source TEXT NOT NULL,
              offering_id TEXT, placement_id TEXT, last_product TEXT,
              visible_s REAL NOT NULL, checkpoint_at INTEGER NOT NULL,
              impression TEXT, close TEXT
            ) STRICT, WITHOUT ROWID;
            """)
}
