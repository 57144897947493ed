import PaywallCore
import PaywallStore
import RevenueCatForwarder

extension PaywallAnalytics {
    /// Whether the install is opted out (``optOut()``); remembered in the store across restarts.
    public var isOptedOut: Bool { consent.isOptedOut }

    /// `record` calls (through the tracker or directly) made while opted out since this instance
    /// started: nothing of them was kept. They are not drops (``Recorder/droppedCount``).
    public var optedOutCalls: Int { recorder.optedOutCount }

    /// The customer withdrew consent. From now on, and after a restart, nothing is recorded
    /// (calls are counted in ``optedOutCalls``), uploaded or forwarded; the tracker keeps working, so
    /// the app's code needs no branch. Then it deletes what this install had not sent yet — impressions
    /// waiting for RevenueCat, and events not uploaded to a collector (with no collector configured:
    /// every event except impressions already delivered or dead-lettered) — with nothing left behind in the files
    /// (see ``OptOutErasure``). Calling it again deletes nothing more and is harmless.
    ///
    /// ```swift
    /// Button("Stop sharing analytics") { Task { try await analytics.optOut() } }
    /// ```
    ///
    /// - Returns: what was deleted per table.
    /// - Throws: `StorageError` when the choice or the deletion could not be written (the choice is
    ///   written first: once it is, nothing more is recorded or sent even if the deletion failed; call
    ///   again to retry it).
    @discardableResult
    public func optOut() async throws -> ErasureReport {
        let store = recorder.store
        try Consent.setOptedOut(true, store)
        consent.set(true)
        recorder.setOptedOut(true)
        journal.setEnabled(false)
        // What was recorded before the call is committed, then deleted with the rest of what was not sent.
        try await recorder.flush()
        // Events a collector acknowledged left the device; the rest (after the upload cursor, or every
        // event when this install never uploaded) is deleted. Upload passes check `consent` first
        // (`GatedUploader`); one already sending when the choice was made may still complete.
        let uploadedThrough = uploading == nil ? nil : try store.stats().uploadedThroughSeq
        return try OptOutErasure(store: store).erasePending(uploadedThrough: uploadedThrough)
    }

    /// The customer gave consent again: recording, uploading and forwarding resume (remembered across
    /// restarts). Nothing deleted by ``optOut()`` comes back.
    ///
    /// - Throws: `StorageError` when the choice could not be written (then nothing changed).
    public func optIn() throws {
        try Consent.setOptedOut(false, recorder.store)
        consent.set(false)
        recorder.setOptedOut(false)
        journal.setEnabled(true)
        forwarding?.trigger()
        uploading?.trigger()
    }
}
