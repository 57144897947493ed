import Foundation
import PaywallCatalogTools
import PaywallCore
import PaywallTestSupport
import Testing

struct CatalogTests {
    static let root = Golden.packageRoot()
    static func read(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    @Test func theCheckedInSwiftCodeMatchesTheCatalog() throws {
        let json = try Self.read("catalog/catalog.json")
        let catalog = try Catalog.load(from: Data(json.utf8))
        let generated = CatalogSwiftGenerator.generate(catalog: catalog, json: json)
        let checkedIn = try Self.read(CatalogSwiftGenerator.outputPath)
        let diff = Golden.diff(expected: checkedIn, actual: generated)
        #expect(
            diff == nil, "generated code is stale; run `swift run paywall-analytics catalog generate`:\n\(diff ?? "")")
    }

    @Test func theCheckedInReferenceMatchesTheCatalog() throws {
        let catalog = try Catalog.load(from: Data(Self.read("catalog/catalog.json").utf8))
        let diff = Golden.diff(
            expected: try Self.read(CatalogDocsGenerator.outputPath),
            actual: CatalogDocsGenerator.generate(catalog: catalog))
        #expect(
            diff == nil, "catalog/README.md is stale; run `swift run paywall-analytics catalog docs`:\n\(diff ?? "")")
    }

    @Test func everyExampleLineInTheReferenceIsValid() throws {
        let reference = try Self.read(CatalogDocsGenerator.outputPath)
        let examples = reference.components(separatedBy: "```json\n").dropFirst().compactMap {
            $0.components(separatedBy: "\n").first
        }
        #expect(examples.count == Catalog.bundled.events.count)
        let validator = EventValidator()
        for line in examples {
            guard case .valid = validator.validate(line: line) else {
                Issue.record("example does not validate: \(line)")
                continue
            }
        }
    }

    @Test func theEmbeddedCatalogIsTheShippedOne() throws {
        let shipped = try Catalog.load(from: Data(Self.read("catalog/catalog.json").utf8))
        #expect(Catalog.bundled == shipped)
        #expect(Catalog.bundled.events.map(\.name) == EventName.allCases.map(\.rawValue))
    }

    @Test func theShippedCatalogHasEveryRuleOfTheSpec() throws {
        let catalog = Catalog.bundled
        let closed = try #require(catalog.event(named: "paywall_closed"))
        #expect(closed.rules.map(\.kind).sorted() == ["exactly_when", "required_when"])
        #expect(catalog.property(named: "source")?.maxLength == 64)
        #expect(catalog.property(named: "open_s")?.max == 86_400)
        #expect(catalog.property(named: "result")?.values == ["purchased", "restored", "dismissed"])
        let shown = try #require(catalog.event(named: "paywall_shown"))
        #expect(shown.properties.filter(\.required).map(\.name) == ["pw_id", "source"])
    }

    /// Applies `edit` to the shipped catalog's JSON object and returns the problems found.
    static func problems(after edit: (inout [String: Any]) -> Void) throws -> [String] {
        var object = try #require(
            JSONSerialization.jsonObject(with: Data(read("catalog/catalog.json").utf8)) as? [String: Any])
        edit(&object)
        let data = try JSONSerialization.data(withJSONObject: object)
        do {
            _ = try Catalog.load(from: data)
            return []
        } catch .invalid(let problems) {
            return problems.map(\.description)
        } catch {
            return [error.description]
        }
    }

    static func editEvent(_ object: inout [String: Any], _ index: Int, _ edit: (inout [String: Any]) -> Void) {
        var events = object["events"] as! [[String: Any]]
        edit(&events[index])
        object["events"] = events
    }

    static func editProperty(_ object: inout [String: Any], _ name: String, _ edit: (inout [String: Any]) -> Void) {
        var properties = object["properties"] as! [[String: Any]]
        let index = properties.firstIndex { $0["name"] as? String == name }!
        edit(&properties[index])
        object["properties"] = properties
    }

    @Test func eachKindOfProblemIsNamed() throws {
        #expect(try Self.problems { _ in }.isEmpty)
        #expect(
            try Self.problems { Self.editProperty(&$0, "source") { $0["type"] = "text" } }
                .contains { $0.contains("properties[source]") && $0.contains("unknown type \"text\"") })
        #expect(
            try Self.problems { object in
                var events = object["events"] as! [[String: Any]]
                events.append(events[0])
                object["events"] = events
            }.contains { $0.contains("events[paywall_shown]: duplicate event name") })
        #expect(
            try Self.problems { object in
                var properties = object["properties"] as! [[String: Any]]
                properties.append(properties[0])
                object["properties"] = properties
            }.contains { $0.contains("properties[pw_id]: duplicate property") })
        #expect(
            try Self.problems {
                Self.editEvent(&$0, 0) { event in
                    var uses = event["properties"] as! [[String: Any]]
                    uses.append(uses[0])
                    event["properties"] = uses
                }
            }.contains { $0.contains("duplicate property in this event") })
        #expect(
            try Self.problems {
                Self.editEvent(&$0, 3) { event in
                    var rules = event["rules"] as! [[String: Any]]
                    rules[0]["when_property"] = "outcome"
                    event["rules"] = rules
                }
            }.contains {
                $0.contains("events[paywall_closed].rules[0]")
                    && $0.contains("\"outcome\", which this event does not have")
            })
        #expect(
            try Self.problems {
                Self.editEvent(&$0, 1) { event in
                    event["properties"] =
                        (event["properties"] as! [[String: Any]]) + [["name": "discount", "required": false]]
                }
            }.contains { $0.contains("not defined in \"properties\"") })
        #expect(
            try Self.problems {
                Self.editProperty(&$0, "open_s") {
                    $0["min"] = 10
                    $0["max"] = 1
                }
            }
            .contains { $0.contains("min 10") && $0.contains("greater than max 1") })
        #expect(
            try Self.problems { Self.editProperty(&$0, "source") { $0["min_length"] = 70 } }
                .contains { $0.contains("min_length 70 is greater than max_length 64") })
        #expect(
            try Self.problems { Self.editProperty(&$0, "source") { $0["max"] = 3 } }
                .contains { $0.contains("min/max apply to numbers") })
        #expect(
            try Self.problems { Self.editProperty(&$0, "result") { $0["values"] = [] } }
                .contains { $0.contains("non-empty \"values\"") })
        #expect(
            try Self.problems {
                Self.editEvent(&$0, 3) { event in
                    var rules = event["rules"] as! [[String: Any]]
                    rules[0]["kind"] = "implies"
                    event["rules"] = rules
                }
            }.contains { $0.contains("unknown rule kind \"implies\"") })
        #expect(
            try Self.problems {
                Self.editEvent(&$0, 3) { event in
                    var rules = event["rules"] as! [[String: Any]]
                    rules[1]["when_values"] = ["bought"]
                    event["rules"] = rules
                }
            }.contains { $0.contains("\"bought\" is not an allowed value of result") })
        #expect(
            try Self.problems { Self.editEvent(&$0, 0) { $0["name"] = "Paywall Shown" } }
                .contains { $0.contains("snake_case") })
    }

    @Test func valueVersionsAreChecked() throws {
        // A value of a version the catalog does not have yet, or of version 1 (never listed).
        #expect(
            try Self.problems { Self.editProperty(&$0, "via") { $0["values_since"] = ["gesture": 3] } }
                .contains { $0.contains("values_since gives \"gesture\" version 3") })
        #expect(
            try Self.problems { Self.editProperty(&$0, "via") { $0["values_since"] = ["auto": 1] } }
                .contains { $0.contains("version 1 are not listed") })
        // A value that is not one of the enum's, and values_since on a non-enum.
        #expect(
            try Self.problems { Self.editProperty(&$0, "via") { $0["values_since"] = ["swipe": 2] } }
                .contains { $0.contains("names \"swipe\", which is not one of its values") })
        #expect(
            try Self.problems { Self.editProperty(&$0, "source") { $0["values_since"] = ["a": 2] } }
                .contains { $0.contains("applies to enums only") })
        // The envelope must keep accepting every older version.
        #expect(
            try Self.problems { object in
                var envelope = object["envelope"] as! [[String: Any]]
                let index = envelope.firstIndex { $0["name"] as? String == "catalog_version" }!
                envelope[index]["min"] = 2
                object["envelope"] = envelope
            }.contains { $0.contains("must accept every version from 1 to the catalog's 2") })
        // A max no Int can hold, or not a whole number, is that problem too, not a trap (found by the
        // catalog fuzzer: 1e300 stopped the process converting it)
        for high in [1e300, -1e300, 2.5] {
            #expect(
                try Self.problems { object in
                    var envelope = object["envelope"] as! [[String: Any]]
                    let index = envelope.firstIndex { $0["name"] as? String == "catalog_version" }!
                    envelope[index]["max"] = high
                    object["envelope"] = envelope
                }.contains { $0.contains("must accept every version from 1 to the catalog's 2") }, "max \(high)")
        }
    }

    @Test func fieldVersionsAreChecked() throws {
        func editEnvelope(_ object: inout [String: Any], _ name: String, _ edit: (inout [String: Any]) -> Void) {
            var envelope = object["envelope"] as! [[String: Any]]
            let index = envelope.firstIndex { $0["name"] as? String == name }!
            edit(&envelope[index])
            object["envelope"] = envelope
        }
        // A field of a version the catalog does not have yet, or of version 1
        #expect(
            try Self.problems { editEnvelope(&$0, "app_version") { $0["since"] = 3 } }
                .contains { $0.contains("envelope[app_version]") && $0.contains("\"since\" is 3") })
        #expect(
            try Self.problems { editEnvelope(&$0, "locale") { $0["since"] = 1 } }
                .contains { $0.contains("fields of version 1 have no \"since\"") })
        // A required field cannot be newer than the events that lack it
        #expect(
            try Self.problems { editEnvelope(&$0, "platform") { $0["required"] = true } }
                .contains { $0.contains("a required field cannot have \"since\"") })
        // An event property has its event's version
        #expect(
            try Self.problems { Self.editProperty(&$0, "product") { $0["since"] = 2 } }
                .contains { $0.contains("applies to envelope fields only") })
    }

    @Test func theShippedCatalogMarksTheContextFieldsOfVersionTwo() {
        let envelope = Catalog.bundled.envelope
        for field in EventContext.fields {
            let spec = envelope.first { $0.name == field.rawValue }
            #expect(spec?.since == 2 && spec?.required == false, "\(field)")
        }
        #expect(envelope.filter { $0.since != nil }.count == EventContext.fields.count)
        #expect(envelope.first { $0.name == "platform" }?.values == DevicePlatform.allCases.map(\.rawValue))
    }

    @Test func theShippedCatalogMarksTheValuesOfVersionTwo() {
        let via = Catalog.bundled.property(named: "via")
        #expect(Catalog.bundled.catalogVersion == 2)
        #expect(via?.version(introducing: "gesture") == 2)
        #expect(via?.version(introducing: "abandoned") == 2)
        #expect(via?.version(introducing: "close_button") == 1)
    }

    @Test func severalProblemsAreAllReported() throws {
        let found = try Self.problems { object in
            Self.editProperty(&object, "source") { $0["type"] = "text" }
            Self.editProperty(&object, "open_s") {
                $0["min"] = 5
                $0["max"] = 1
            }
        }
        #expect(found.count == 2)
    }

    @Test func malformedJSONIsUnreadableWithWhere() {
        let error = #expect(throws: CatalogError.self) { try Catalog.load(from: Data("{\"catalog_version\": 1,".utf8)) }
        #expect({ if case .unreadable = error { true } else { false } }(), "\(String(describing: error))")
        do {
            _ = try Catalog.load(
                from: Data(#"{"catalog_version":1,"description":"x","envelope":[],"properties":[]}"#.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("missing key \"events\""))
        }
    }

    @Test func theGeneratorEscapesKeywordsAndDerivesNames() throws {
        var catalog = Catalog.bundled
        catalog.properties[5].values = ["default", "in_app"]
        catalog.events[3].rules = []
        let code = CatalogSwiftGenerator.generate(catalog: catalog, json: "{}")
        #expect(code.contains("case `default` = \"default\""))
        #expect(code.contains("case inApp = \"in_app\""))
        #expect(code.contains("public var pwID: UUID"))
        #expect(code.contains("public struct PaywallPurchaseStarted: CatalogEvent"))
    }
}
