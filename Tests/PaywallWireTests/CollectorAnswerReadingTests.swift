import Foundation
import PaywallWire
import Testing

/// The uploader takes the counts of exactly the answers it took before the answer had a type, and
/// refuses the rest: `CollectorAnswer.counts(in:)` against the uploader's reading from before.
struct CollectorAnswerReadingTests {
    /// The uploader's reading of a 2xx answer as it was before `CollectorAnswer` (CollectorDestination),
    /// kept here as the reference. Its sum could overflow (and stop the process) in the caller; the
    /// cases below that this reference reads all add up within `Int`.
    static func before(_ body: Data) -> EventCounts? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
            let accepted = object["accepted"] as? Int, let duplicates = object["duplicates"] as? Int,
            let quarantined = object["quarantined"] as? Int,
            accepted >= 0, duplicates >= 0, quarantined >= 0
        else { return nil }
        let suppressed = object["suppressed"] as? Int ?? 0
        guard suppressed >= 0 else { return nil }
        return EventCounts(accepted: accepted, duplicates: duplicates, quarantined: quarantined, suppressed: suppressed)
    }

    static let counts = #""duplicates":0,"quarantined":0"#

    /// Answers a collector, a proxy or a broken server might send.
    static let bodies: [String] = [
        #"{"accepted":1,\#(counts)}"#,
        #"{"accepted":1,\#(counts),"rejected":[]}"#,
        #"{"accepted":1,\#(counts),"rejected":"not a list"}"#,
        #"{"accepted":1,\#(counts),"rejected":[{"line":"x"}],"extra":{"a":[1,2,{}]}}"#,
        #"  {"accepted":1 ,"duplicates" : 0 ,"quarantined":0}  "#,
        "\u{FEFF}{\"accepted\":1,\(counts)}",
        #"{"accepted":1,\#(counts),}"#,
        #"{"accepted":1,"accepted":2,\#(counts)}"#,
        #"{"\u0061ccepted":1,\#(counts)}"#,
        #"{"accepted":1,\#(counts),"\u0061ccepted":5}"#,
        // numbers
        #"{"accepted":1.0,\#(counts)}"#,
        #"{"accepted":1.5,\#(counts)}"#,
        #"{"accepted":1e2,\#(counts)}"#,
        #"{"accepted":1E+2,\#(counts)}"#,
        #"{"accepted":100e-2,\#(counts)}"#,
        #"{"accepted":1.000000000000000000001,\#(counts)}"#,
        #"{"accepted":-0,\#(counts)}"#,
        #"{"accepted":-0.0,\#(counts)}"#,
        #"{"accepted":-1,\#(counts)}"#,
        #"{"accepted":01,\#(counts)}"#,
        #"{"accepted":9007199254740993,\#(counts)}"#,
        #"{"accepted":9223372036854775807,\#(counts)}"#,
        #"{"accepted":9223372036854775807.0,\#(counts)}"#,
        #"{"accepted":9223372036854775808,\#(counts)}"#,
        #"{"accepted":-9223372036854775808,\#(counts)}"#,
        #"{"accepted":99999999999999999999,\#(counts)}"#,
        #"{"accepted":4611686018427387904e1,\#(counts)}"#,
        #"{"accepted":1e400,\#(counts)}"#,
        // other types
        #"{"accepted":true,\#(counts)}"#,
        #"{"accepted":false,\#(counts)}"#,
        #"{"accepted":"1",\#(counts)}"#,
        #"{"accepted":null,\#(counts)}"#,
        #"{"accepted":[1],\#(counts)}"#,
        // suppressed
        #"{"accepted":1,\#(counts),"suppressed":2}"#,
        #"{"accepted":1,\#(counts),"suppressed":"x"}"#,
        #"{"accepted":1,\#(counts),"suppressed":1.5}"#,
        #"{"accepted":1,\#(counts),"suppressed":true}"#,
        #"{"accepted":1,\#(counts),"suppressed":null}"#,
        #"{"accepted":1,\#(counts),"suppressed":-1}"#,
        #"{"accepted":1,\#(counts),"suppressed":99999999999999999999}"#,
        // missing keys, other shapes
        #"{"accepted":1,"duplicates":0}"#,
        #"{"duplicates":0,"quarantined":0}"#,
        "{}",
        "",
        "null",
        "1",
        #""accepted""#,
        #"[{"accepted":1,\#(counts)}]"#,
        #"{"error":"the collector is shutting down; retry on a new connection"}"#,
        "<html><body>502 Bad Gateway</body></html>",
        // invalid JSON around valid counts
        #"{"accepted":1,\#(counts)} trailing"#,
        #"{"accepted":1,\#(counts)"#,
        #"{"accepted":1,\#(counts),"x":NaN}"#,
        #"{"accepted":1,\#(counts),"x":-}"#,
        #"{"accepted":1,\#(counts),"x":1.}"#,
        #"{"accepted":1,\#(counts),"x":.5}"#,
        #"{"accepted":1,\#(counts),"x":+5}"#,
        #"{"accepted":1,\#(counts),"x":1e}"#,
        #"{"accepted":1,\#(counts),"x":"\ud800"}"#,
        #"{"accepted":1,\#(counts),"x":"\u0000"}"#,
        "{\"accepted\":1,\(counts),\"x\":\"tab\tinside\"}",
        "{\"accepted\":1,\(counts),\"x\":\"line\nbreak\"}",
    ]

    @Test(arguments: bodies)
    func everyAnswerIsTakenOrRefusedAsBefore(body: String) {
        #expect(CollectorAnswer.counts(in: Data(body.utf8)) == Self.before(Data(body.utf8)))
    }

    @Test func otherEncodingsAndBadBytesAreTakenOrRefusedAsBefore() throws {
        let text = #"{"accepted":1,"duplicates":2,"quarantined":3,"suppressed":4}"#
        var badUTF8 = Data(#"{"accepted":1,"duplicates":0,"quarantined":0,"x":""#.utf8)
        badUTF8.append(contentsOf: [0xFF, 0xFE])
        badUTF8.append(contentsOf: Data(#""}"#.utf8))
        let bodies = [
            try #require(text.data(using: .utf16)), try #require(text.data(using: .utf16LittleEndian)),
            try #require(text.data(using: .utf16BigEndian)), try #require(text.data(using: .utf32)), badUTF8,
            Data([0x00]), Data([0xEF, 0xBB, 0xBF]),
        ]
        for body in bodies {
            #expect(CollectorAnswer.counts(in: body) == Self.before(body), "\(Array(body.prefix(8)))")
        }
    }

    @Test func deeplyNestedAndHugeAnswersAreTakenOrRefusedAsBefore() {
        // Nesting under a key the uploader does not read, around the reader's depth limit
        for depth in [1, 100, 500, 511, 512, 513, 1_000, 10_000] {
            let body = Data(
                (#"{"accepted":1,\#(Self.counts),"x":"# + String(repeating: "[", count: depth)
                    + String(repeating: "]", count: depth) + "}").utf8)
            #expect(CollectorAnswer.counts(in: body) == Self.before(body), "depth \(depth)")
        }
        // A 4 MB answer: 50,000 rejections of 80 bytes
        let rejections = Array(
            repeating: #"{"line":1,"reasons":["a reason of forty bytes, give or take."]}"#, count: 50_000)
        let huge = Data(
            (#"{"accepted":0,"duplicates":0,"quarantined":50000,"rejected":["# + rejections.joined(separator: ",")
                + "]}")
                .utf8)
        #expect(CollectorAnswer.counts(in: huge) == EventCounts(accepted: 0, quarantined: 50_000))
        #expect(Self.before(huge) == EventCounts(accepted: 0, quarantined: 50_000))
    }

    @Test(arguments: [
        #"{"accepted":9223372036854775807,"duplicates":1,"quarantined":0}"#,
        #"{"accepted":4611686018427387904,"duplicates":4611686018427387904,"quarantined":0}"#,
        #"{"accepted":1,"duplicates":0,"quarantined":0,"suppressed":9223372036854775807}"#,
        #"{"accepted":3074457345618258603,"duplicates":3074457345618258603,"quarantined":3074457345618258603}"#,
    ])
    func countsWhoseSumPassesIntAreRefused(body: String) {
        // Each count alone is an Int the reference reads; their sum is not (it used to stop the process)
        #expect(Self.before(Data(body.utf8)) != nil)
        #expect(CollectorAnswer.counts(in: Data(body.utf8)) == nil)
    }

    @Test func theLargestSumThatFitsIsTaken() {
        let body = #"{"accepted":9223372036854775806,"duplicates":1,"quarantined":0}"#
        #expect(CollectorAnswer.counts(in: Data(body.utf8))?.total == Int.max)
    }

    @Test func theRulesTheUploaderReliesOn() {
        func read(_ text: String) -> EventCounts? { CollectorAnswer.counts(in: Data(text.utf8)) }
        // What a collector sends is taken whole
        #expect(
            read(#"{"accepted":2,"duplicates":1,"quarantined":1,"suppressed":3,"rejected":[]}"#)
                == EventCounts(accepted: 2, duplicates: 1, quarantined: 1, suppressed: 3))
        // A missing, negative or non-numeric count refuses the answer
        #expect(read(#"{"accepted":2,"duplicates":1}"#) == nil)
        #expect(read(#"{"accepted":-2,"duplicates":1,"quarantined":0}"#) == nil)
        #expect(read(#"{"accepted":"2","duplicates":1,"quarantined":0}"#) == nil)
        #expect(read(#"{"accepted":1,"duplicates":0,"quarantined":0,"suppressed":-1}"#) == nil)
        // A count past Int refuses it; a suppressed that is no integer counts as 0
        #expect(read(#"{"accepted":99999999999999999999,"duplicates":0,"quarantined":0}"#) == nil)
        #expect(read(#"{"accepted":1,"duplicates":0,"quarantined":0,"suppressed":"x"}"#) == EventCounts(accepted: 1))
        // Anything that is not one JSON object refuses it
        #expect(read("not json") == nil && read("[]") == nil && read("") == nil)
    }
}
