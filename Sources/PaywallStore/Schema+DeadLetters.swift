import PaywallSQLite

extension Schema {
    /// Migration 9: `report_dead_buckets` counts, per 15-minute bucket of the impression's
    /// `occurred_at` (`occurred_at / 900000`, as `report_delivery_buckets` does), the distinct event
    /// ids that have at least one open dead letter (`requeued_at IS NULL`) and are a stored
    /// `paywall_shown`; so data quality never scans the dead letters. Buckets that fall to 0 stay
    /// (readers skip them).
    ///
    /// The migration fills it from the existing rows; triggers on `dead_letters` keep it exact for
    /// every insert, delete and update of `event_id` or `requeued_at`. Each trigger asks whether the
    /// event's state "has an open letter" flips with this row — the other letters of the event are
    /// found through `dead_letters_event` — and only then looks the event up by its unique `id`:
    /// - insert of an open letter: +1 when no other open letter of the event exists;
    /// - delete of an open letter: −1 when no open letter of the event is left;
    /// - update (a requeue, a reopening, a changed `event_id`): as a delete of the old row and an
    ///   insert of the new one, −1 for the old event when it was open and none is left, +1 for the
    ///   new event when it is open and was not before (neither, for the same event staying open).
    ///
    /// Events are never updated or deleted, and a dead letter is only written for an impression
    /// taken from the outbox (so stored first); a dead letter written by hand before its event is
    /// stored is not counted when the event arrives later. `INSERT OR REPLACE` on a dead letter's
    /// rowid fires no delete trigger (SQLite's `recursive_triggers` is off) and is not counted
    /// either; the program never does either.
    static let deadLetterBuckets = Migration(
        "dead-letter-buckets",
        sql: """
            CREATE TABLE report_dead_buckets (bucket INTEGER PRIMARY KEY, dead INTEGER NOT NULL) STRICT;
            INSERT INTO report_dead_buckets (bucket, dead)
              SELECT e.occurred_at / 900000, count(*)
              FROM (SELECT DISTINCT event_id FROM dead_letters WHERE requeued_at IS NULL) AS l
              CROSS JOIN events AS e ON e.id = l.event_id AND e.name = 'paywall_shown'
              GROUP BY 1;
            CREATE TRIGGER dead_letters_count_insert AFTER INSERT ON dead_letters
            WHEN new.requeued_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM dead_letters
                              WHERE event_id = new.event_id AND requeued_at IS NULL AND rowid != new.rowid)
            BEGIN
              INSERT INTO report_dead_buckets (bucket, dead)
                SELECT occurred_at / 900000, 1 FROM events WHERE id = new.event_id AND name = 'paywall_shown'
                ON CONFLICT(bucket) DO UPDATE SET dead = dead + 1;
            END;
            CREATE TRIGGER dead_letters_count_delete AFTER DELETE ON dead_letters
            WHEN old.requeued_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM dead_letters WHERE event_id = old.event_id AND requeued_at IS NULL)
            BEGIN
              UPDATE report_dead_buckets SET dead = dead - 1
              WHERE bucket = (SELECT occurred_at / 900000 FROM events WHERE id = old.event_id AND name = 'paywall_shown');
            END;
            CREATE TRIGGER dead_letters_count_close AFTER UPDATE OF event_id, requeued_at ON dead_letters
            WHEN old.requeued_at IS NULL
              AND NOT EXISTS (SELECT 1 FROM dead_letters WHERE event_id = old.event_id AND requeued_at IS NULL)
            BEGIN
              UPDATE report_dead_buckets SET dead = dead - 1
              WHERE bucket = (SELECT occurred_at / 900000 FROM events WHERE id = old.event_id AND name = 'paywall_shown');
            END;
            CREATE TRIGGER dead_letters_count_open AFTER UPDATE OF event_id, requeued_at ON dead_letters
            WHEN new.requeued_at IS NULL
              AND NOT (old.requeued_at IS NULL AND old.event_id = new.event_id)
              AND NOT EXISTS (SELECT 1 FROM dead_letters
                              WHERE event_id = new.event_id AND requeued_at IS NULL AND rowid != new.rowid)
            BEGIN
              INSERT INTO report_dead_buckets (bucket, dead)
                SELECT occurred_at / 900000, 1 FROM events WHERE id = new.event_id AND name = 'paywall_shown'
                ON CONFLICT(bucket) DO UPDATE SET dead = dead + 1;
            END;
            """)
}
