import Foundation
import PaywallCore
import Testing

@testable import PaywallStore

/// The import pipeline's validation step: how many threads it uses, and that splitting a batch
/// across threads changes nothing in the outcome or its order.
struct NDJSONPipelineTests {
    let pipeline = NDJSONPipeline(
        validator: EventValidator(), options: ImportOptions(), now: .constant(1_764_400_000_000),
        origin: "test.ndjson")

    /// A batch of lines, one per event: mostly valid, with invalid, blank and `\r`-ended lines mixed in.
    func batch(_ events: [EventRecord]) -> NDJSONPipeline.LineBatch {
        var batch = NDJSONPipeline.LineBatch()
        for (index, event) in events.enumerated() {
            var line = NDJSONLine.encode(event)
            switch index % 10 {
            case 3:
                line = line.replacingOccurrences(
                    of: "\"catalog_version\":\(CatalogInfo.version)", with: "\"catalog_version\":3")
            case 5: line = "  "
            case 7: line += "\r"
            case 8: line = "{\"name\":\"paywall_shown\",}"
            default: break
            }
            batch.lines.append((batch.bytes.count, line.utf8.count, index + 1))
            batch.bytes += line.utf8
        }
        return batch
    }

    @Test func validationLeavesOneCoreToTheCallersInserts() {
        #expect(NDJSONPipeline.validationWorkers(cores: 1, lines: 10_000) == 1)
        #expect(NDJSONPipeline.validationWorkers(cores: 2, lines: 10_000) == 1)
        #expect(NDJSONPipeline.validationWorkers(cores: 8, lines: 10_000) == 7)
        #expect(NDJSONPipeline.validationWorkers(cores: 8, lines: 600) == 2, "small batches are not split thinly")
        #expect(NDJSONPipeline.validationWorkers(cores: 8, lines: 10) == 1)
    }

    @Test func splittingABatchAcrossThreadsKeepsEveryOutcomeInOrder() {
        // Given a batch mixing valid, invalid, blank and CRLF lines
        let events = (0..<3_000).map { Fixtures.event($0) }
        let lines = batch(events)
        // When it is validated on one thread and on three
        let alone = pipeline.validate(lines, workers: 1)
        let split = pipeline.validate(lines, workers: 3)
        // Then both give the same events and quarantine entries, in input order
        #expect(alone.events == split.events)
        #expect(alone.quarantine == split.quarantine)
        #expect(alone.events.count == 2_100, "7 of every 10 lines are valid events")
        #expect(alone.quarantine.count == 600)
        #expect(alone.quarantine.map { $0.line ?? 0 } == alone.quarantine.map { $0.line ?? 0 }.sorted())
        #expect(alone.events == events.indices.filter { [0, 1, 2, 4, 6, 7, 9].contains($0 % 10) }.map { events[$0] })
        #expect(alone.quarantine.first?.reasons == ["catalog_version: must be at most 2 (got \"3\")"])
    }
}
