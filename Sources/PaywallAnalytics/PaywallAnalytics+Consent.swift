import PaywallCore
import PaywallStore
import RevenueCatForwarder

extension PaywallAnalytics {
    /// Whether the install is opted out (``optOut()``); remembered in the store across restarts.
    public var isOptedOut: Bool { consent.isOptedOut }

    /// `record` calls (through the tracker or directly) made while opted out since this instance
    /// started: nothing of them was kept. They are not drops (``Recorder/droppedCount``).
    public var optedOutCalls: Int { recorder.optedOutCount }

    /// The customer withdrew consent (SPEC §9). From now on, and after a restart, nothing is recorded
    /// (calls are counted in ``optedOutCalls``), uploaded or forwarded; the tracker keeps working, so
    /// the app's code needs no branch. Then it deletes what this install had not sent yet — impressions
    /// waiting for RevenueCat, and events not uploaded to a collector (with no uploader: every event
    /// except impressions already delivered or dead-lettered) — with nothing left behind in the files
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
        // What was recorded before the call is committed, then deleted with the rest of what was not sent.
        try await recorder.flush()
        // The uploader (SPEC §8), once it joins the facade, passes its cursor here and checks `consent`
        // before each pass, as `GatedForwarder` does for forwarding.
        return try OptOutErasure(store: store).erasePending(uploadedThrough: nil)
    }

    /// The customer gave consent again: recording, uploading and forwarding resume (remembered across
    /// restarts). Nothing deleted by ``optOut()`` comes back.
    ///
    /// - Throws: `StorageError` when the choice could not be written (then nothing changed).
    public func optIn() throws {
        try Consent.setOptedOut(false, recorder.store)
        consent.set(false)
        recorder.setOptedOut(false)
        forwarding?.trigger()
    }
}
