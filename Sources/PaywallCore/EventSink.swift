/// Something that accepts events: the batching recorder, or an in-memory sink in tests.
///
/// `record` never throws and never waits for disk; a sink that can fail reports failures
/// through its own diagnostics hook.
public protocol EventSink: Sendable {
    /// Accepts one event. Returns immediately.
    func record(_ event: EventRecord)
}
