import PaywallSQLite

extension Schema {
    /// `report_delivery_buckets.by_device`: of a bucket's deliveries, those the app install forwarded
    /// itself (`deliveries.by_device = 1`), kept exact by the same triggers, so `data_quality.csv`
    /// shows `impressions_forwarded_by_device` without scanning `deliveries`. The triggers are
    /// replaced (an upsert of a delivery that changes `by_device` moves its count too) and the column
    /// is filled from the existing deliveries.
    static let deliveryBucketsByDevice = Migration(
        "delivery-buckets-by-device",
        sql: """
            ALTER TABLE report_delivery_buckets ADD COLUMN by_device INTEGER NOT NULL DEFAULT 0;
            UPDATE report_delivery_buckets SET by_device = coalesce(
              (SELECT count(*) FROM deliveries AS d
               WHERE d.by_device = 1 AND d.occurred_at / 900000 = report_delivery_buckets.bucket), 0)
            WHERE bucket IN (SELECT DISTINCT occurred_at / 900000 FROM deliveries WHERE by_device = 1);
            DROP TRIGGER deliveries_count_insert;
            DROP TRIGGER deliveries_count_delete;
            DROP TRIGGER deliveries_count_update;
            CREATE TRIGGER deliveries_count_insert AFTER INSERT ON deliveries BEGIN
              INSERT INTO report_delivery_buckets (bucket, delivered, by_device)
                VALUES (new.occurred_at / 900000, 1, new.by_device)
                ON CONFLICT(bucket) DO UPDATE SET delivered = delivered + 1, by_device = by_device + excluded.by_device;
            END;
            CREATE TRIGGER deliveries_count_delete AFTER DELETE ON deliveries BEGIN
              UPDATE report_delivery_buckets SET delivered = delivered - 1, by_device = by_device - old.by_device
                WHERE bucket = old.occurred_at / 900000;
            END;
            CREATE TRIGGER deliveries_count_update AFTER UPDATE OF occurred_at, by_device ON deliveries BEGIN
              UPDATE report_delivery_buckets SET delivered = delivered - 1, by_device = by_device - old.by_device
                WHERE bucket = old.occurred_at / 900000;
              INSERT INTO report_delivery_buckets (bucket, delivered, by_device)
                VALUES (new.occurred_at / 900000, 1, new.by_device)
                ON CONFLICT(bucket) DO UPDATE SET delivered = delivered + 1, by_device = by_device + excluded.by_device;
            END;
            """)
}
