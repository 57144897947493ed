import Foundation
import PaywallCore

extension CollectorAnswer {
    /// The answer as the collector sends it, byte for byte:
    /// `{"accepted":N,"duplicates":N,"quarantined":N,` then `"suppressed":N,` only when above 0, then
    /// `"rejected":[{"line":K,"reasons":["…",…]},…]`, then `,"rejected_omitted":N` only when above 0,
    /// then `}`, without spaces, strings escaped as
    /// `JSONString` escapes them (RFC 8259; non-ASCII kept as UTF-8; `/` not escaped).
    ///
    /// Written by hand, in this one place, rather than with `JSONEncoder`: `JSONEncoder` does not keep
    /// the order in which keys are encoded (on this toolchain it changes from one run to the next) and
    /// escapes `/` as `\/`, so it cannot give these bytes. PaywallWireTests check that `JSONDecoder`
    /// reads this text back into the same answer as the `Codable` conformance, and that the bytes are
    /// the ones the collector wrote before the answer had a type.
    public var json: String {
        var out = "{\"accepted\":\(accepted),\"duplicates\":\(duplicates),\"quarantined\":\(quarantined),"
        if suppressed > 0 { out += "\"suppressed\":\(suppressed)," }
        out += "\"rejected\":["
        for (index, rejection) in rejected.enumerated() {
            if index > 0 { out += "," }
            out += "{\"line\":\(rejection.line),\"reasons\":["
            for (position, reason) in rejection.reasons.enumerated() {
                if position > 0 { out += "," }
                JSONString.append(reason, to: &out)
            }
            out += "]}"
        }
        out += "]"
        if rejectedOmitted > 0 { out += ",\"rejected_omitted\":\(rejectedOmitted)" }
        return out + "}"
    }

    /// The counts of a 2xx answer's body as the uploader takes them, `nil` when it takes none:
    ///
    /// - the body must be one JSON object (JSONSerialization's reading: UTF-8, -16 or -32, the whole
    ///   body valid JSON);
    /// - `accepted`, `duplicates` and `quarantined` must be integers of 0 or more (a number with a
    ///   zero fraction, such as `2.0` or `2e1`, counts as one; `true` and `false` as 1 and 0; a number
    ///   past `Int` refuses the answer);
    /// - `suppressed` is 0 when absent or not an integer, and refuses the answer when below 0;
    /// - `rejected` and any other key are not read;
    /// - counts whose sum passes `Int.max` refuse the answer (no batch has that many lines).
    ///
    /// These are the uploader's rules from before the wire contract had a type, kept as they were
    /// (JSONSerialization, not `JSONDecoder`, which on this toolchain takes some answers these rules
    /// refuse, such as one with an invalid value under a key it does not read, and refuses some they
    /// take), with one difference: a sum past `Int.max` used to stop the process.
    public static func counts(in body: Data) -> EventCounts? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let accepted = object["accepted"] as? Int, let duplicates = object["duplicates"] as? Int,
            let quarantined = object["quarantined"] as? Int,
            accepted >= 0, duplicates >= 0, quarantined >= 0
        else { return nil }
        let suppressed = object["suppressed"] as? Int ?? 0
        guard suppressed >= 0 else { return nil }
        var sum = 0
        for count in [accepted, duplicates, quarantined, suppressed] {
            let (next, overflow) = sum.addingReportingOverflow(count)
            if overflow { return nil }
            sum = next
        }
        return EventCounts(accepted: accepted, duplicates: duplicates, quarantined: quarantined, suppressed: suppressed)
    }
}
