import Foundation
import PaywallCore
import PaywallStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The events of `paywall-bench import`, generated and written in chunks (10M events never sit in
/// memory at once): the same presentations as ``BenchSupport/events(_:)``, with their UUIDv7 ids or,
/// for the random-id run, fresh UUIDv4 ids. The CSV carries the same rows plus `seq` (file order).
enum ImportBenchData {
    static func write(count: Int, randomIDs: Bool, ndjson: URL, csv: URL) throws {
        FileManager.default.createFile(atPath: ndjson.path, contents: nil)
        FileManager.default.createFile(atPath: csv.path, contents: nil)
        let lines = try FileHandle(forWritingTo: ndjson)
        let rows = try FileHandle(forWritingTo: csv)
        defer {
            try? lines.close()
            try? rows.close()
        }
        var stream = PresentationStream()
        var written = 0
        while written < count {
            let chunk = stream.next(min(100_000, count - written))
            var lineData = Data()
            var rowData = Data()
            lineData.reserveCapacity(chunk.count * 330)
            rowData.reserveCapacity(chunk.count * 260)
            for var event in chunk {
                if randomIDs { event.id = UUID() }
                written += 1
                lineData.append(contentsOf: NDJSONLine.encode(event).utf8)
                lineData.append(0x0A)
                rowData.append(contentsOf: csvLine(event, seq: written).utf8)
                rowData.append(0x0A)
            }
            try lines.write(contentsOf: lineData)
            try rows.write(contentsOf: rowData)
        }
    }

    static func csvLine(_ event: EventRecord, seq: Int) -> String {
        let p = event.properties
        func field(_ text: String?) -> String {
            guard let text else { return "" }
            return text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" })
                ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        return [
            event.id.uuidString, event.name.rawValue, String(event.occurredAt), String(event.occurredAt),
            field(event.userID),
            event.sessionID?.uuidString ?? "", String(event.catalogVersion), p.pwID.uuidString, field(p.source),
            field(p.offeringID), field(p.placementID), field(p.product), p.result?.rawValue ?? "",
            p.via?.rawValue ?? "",
            p.openS.map { "\($0)" } ?? "", String(seq),
        ].joined(separator: ",")
    }
}

/// Presentations in time order, a chunk at a time: shown, sometimes a plan and a purchase, then closed.
struct PresentationStream {
    var generator = SystemRandomNumberGenerator()
    var time: Int64 = 1_764_400_000_000
    var carry: [EventRecord] = []
    let sources = ["onboarding", "settings", "paywall_gate", "home_banner"]

    mutating func next(_ count: Int) -> [EventRecord] {
        var events = carry
        events.reserveCapacity(count + 4)
        while events.count < count {
            let pwID = UUIDv7.make(milliseconds: time, using: &generator)
            let source = sources[Int.random(in: 0..<sources.count, using: &generator)]
            let user = "user-\(Int.random(in: 0..<50_000, using: &generator))"
            func add(_ name: EventName, _ properties: EventProperties) {
                time += Int64.random(in: 1...400, using: &generator)
                events.append(
                    EventRecord(
                        id: UUIDv7.make(milliseconds: time, using: &generator), name: name, occurredAt: time,
                        userID: user, sessionID: pwID, properties: properties))
            }
            add(.paywallShown, EventProperties(pwID: pwID, source: source, offeringID: "default"))
            let buys = Int.random(in: 0..<4, using: &generator) == 0
            if buys {
                add(.paywallPlanSelected, EventProperties(pwID: pwID, source: source, product: "annual"))
                add(.paywallPurchaseStarted, EventProperties(pwID: pwID, source: source, product: "annual"))
            }
            add(
                .paywallClosed,
                EventProperties(
                    pwID: pwID, source: source, product: buys ? "annual" : nil,
                    result: buys ? .purchased : .dismissed, via: buys ? .auto : .closeButton,
                    openS: Double(Int.random(in: 1...600, using: &generator)) / 10))
        }
        carry = Array(events[count...])
        return Array(events.prefix(count))
    }
}

extension BenchSupport {
    /// This process's peak resident memory, KiB: `VmHWM` on Linux (unlike `ru_maxrss`, it does not
    /// inherit the parent's peak across fork and exec), `ru_maxrss` elsewhere.
    static func peakResidentKiB() -> Int {
        #if os(Linux)
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        #else
            var usage = rusage()
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss / 1024)  // bytes on Darwin
        #endif
    }
}
