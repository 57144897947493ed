import Foundation
import PaywallCore
import PaywallStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The events of `paywall-bench import`, generated and written in chunks (10M events never sit in
/// memory at once) by ``PresentationStream``, the generator of ``BenchSupport/events(_:)``, with their
/// UUIDv7 ids or, for the random-id run, fresh UUIDv4 ids. The CSV carries the same rows plus `seq` (file order).
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
