/// Finds every problem in a decoded catalog: unknown types, duplicates, rules naming missing
/// properties, bad bounds, bad names. A pure function, so each rule is table-tested.
public enum CatalogChecker {
    /// Envelope fields the generated Swift code is bound to; a catalog must define them.
    public static let requiredEnvelopeFields = [EnvelopeField.id, .name, .occurredAt, .userID, .catalogVersion].map(
        \.rawValue)

    /// Every problem in `catalog`, in document order; empty when the catalog is sound.
    public static func problems(in catalog: Catalog) -> [CatalogProblem] {
        var problems: [CatalogProblem] = []
        if catalog.catalogVersion < 1 {
            problems.append(.init("catalog_version", "must be 1 or more, found \(catalog.catalogVersion)"))
        }
        problems += definitionProblems(catalog.envelope, section: "envelope")
        problems += versionProblems(catalog)
        let envelopeNames = Set(catalog.envelope.map(\.name))
        for field in requiredEnvelopeFields where !envelopeNames.contains(field) {
            problems.append(.init("envelope", "missing the field \"\(field)\", which every event needs"))
        }
        problems += definitionProblems(catalog.properties, section: "properties")
        for property in catalog.properties where envelopeNames.contains(property.name) {
            problems.append(.init("properties[\(property.name)]", "has the name of an envelope field; rename it"))
        }
        if catalog.events.isEmpty { problems.append(.init("events", "the catalog defines no event")) }
        var seenEvents = Set<String>()
        for event in catalog.events {
            if !seenEvents.insert(event.name).inserted {
                problems.append(.init("events[\(event.name)]", "duplicate event name; each event is defined once"))
            }
            problems += eventProblems(event, catalog: catalog)
        }
        return problems
    }

    static func definitionProblems(_ definitions: [PropertySpec], section: String) -> [CatalogProblem] {
        var problems: [CatalogProblem] = []
        var seen = Set<String>()
        for spec in definitions {
            let here = "\(section)[\(spec.name)]"
            if !isSnakeCase(spec.name) {
                problems.append(.init(here, "name must be snake_case (a-z, 0-9, _; starting with a letter)"))
            }
            if !seen.insert(spec.name).inserted {
                problems.append(.init(here, "duplicate property; each property is defined once"))
            }
            problems += boundProblems(spec, at: here)
        }
        return problems
    }

    /// `values_since` on enums only, naming their values, with versions from 2 to the catalog's;
    /// `since` on optional envelope fields only, with a version from 2 to the catalog's; and the envelope's `catalog_version` accepting every version up to the catalog's.
    static func versionProblems(_ catalog: Catalog) -> [CatalogProblem] {
        var problems: [CatalogProblem] = []
        for spec in catalog.envelope + catalog.properties {
            guard let since = spec.valuesSince else { continue }
            let here = "\(catalog.envelope.contains(spec) ? "envelope" : "properties")[\(spec.name)]"
            guard spec.kind == .enum else {
                problems.append(.init(here, "\"values_since\" applies to enums only, not to \(spec.type)"))
                continue
            }
            for (value, version) in since.sorted(by: { $0.key < $1.key }) {
                if !(spec.values ?? []).contains(value) {
                    problems.append(.init(here, "values_since names \"\(value)\", which is not one of its values"))
                }
                if version < 2 || version > catalog.catalogVersion {
                    problems.append(
                        .init(
                            here,
                            "values_since gives \"\(value)\" version \(version); use a version from 2 to the "
                                + "catalog's \(catalog.catalogVersion) (values of version 1 are not listed)"))
                }
            }
        }
        for spec in catalog.properties where spec.since != nil {
            problems.append(
                .init(
                    "properties[\(spec.name)]",
                    "\"since\" applies to envelope fields only; an event's properties have the event's version"))
        }
        for spec in catalog.envelope {
            guard let since = spec.since else { continue }
            let here = "envelope[\(spec.name)]"
            if spec.required == true {
                problems.append(
                    .init(here, "a required field cannot have \"since\": events of older versions lack it"))
            }
            if since < 2 || since > catalog.catalogVersion {
                problems.append(
                    .init(
                        here,
                        "\"since\" is \(since); use a version from 2 to the catalog's \(catalog.catalogVersion) "
                            + "(fields of version 1 have no \"since\")"))
            }
        }
        if let field = catalog.envelope.first(where: { $0.name == "catalog_version" }),
            let high = field.max, Int(exactly: high) != catalog.catalogVersion || (field.min ?? 1) != 1
        {
            problems.append(
                .init(
                    "envelope[catalog_version]",
                    "must accept every version from 1 to the catalog's \(catalog.catalogVersion) "
                        + "(min 1, max \(catalog.catalogVersion)): events of older versions stay valid"))
        }
        return problems
    }

    static func boundProblems(_ spec: PropertySpec, at here: String) -> [CatalogProblem] {
        guard let kind = spec.kind else {
            let known = PropertyType.allCases.map(\.rawValue).joined(separator: ", ")
            return [.init(here, "unknown type \"\(spec.type)\"; use one of \(known)")]
        }
        var problems: [CatalogProblem] = []
        let isText = kind == .string
        let isNumeric = kind == .number || kind == .integer
        if !isText, spec.minLength != nil || spec.maxLength != nil || spec.maxBytes != nil {
            problems.append(
                .init(here, "min_length/max_length/max_bytes apply to strings only, not to \(kind.rawValue)"))
        }
        if !isNumeric, spec.min != nil || spec.max != nil {
            problems.append(.init(here, "min/max apply to numbers and integers only, not to \(kind.rawValue)"))
        }
        if let low = spec.minLength, low < 0 { problems.append(.init(here, "min_length must not be negative")) }
        if let high = spec.maxLength, high < 1 { problems.append(.init(here, "max_length must be at least 1")) }
        if let low = spec.minLength, let high = spec.maxLength, low > high {
            problems.append(.init(here, "min_length \(low) is greater than max_length \(high)"))
        }
        if let cap = spec.maxBytes, cap < 1 { problems.append(.init(here, "max_bytes must be at least 1")) }
        if let cap = spec.maxBytes, let high = spec.maxLength, cap < high {
            problems.append(
                .init(
                    here,
                    "max_bytes \(cap) is less than max_length \(high); max_length counts Unicode "
                        + "scalars, each 1 to 4 bytes, so max_bytes must be at least max_length"))
        }
        if let cap = spec.maxBytes, let low = spec.minLength, cap < low {
            problems.append(.init(here, "max_bytes \(cap) is less than min_length \(low); no string could be valid"))
        }
        for bound in [spec.min, spec.max].compactMap({ $0 }) where !bound.isFinite {
            problems.append(.init(here, "bounds must be finite numbers"))
        }
        if let low = spec.min, let high = spec.max, low > high {
            problems.append(.init(here, "min \(low) is greater than max \(high)"))
        }
        if kind == .enum {
            let values = spec.values ?? []
            if values.isEmpty { problems.append(.init(here, "an enum needs a non-empty \"values\" list")) }
            if Set(values).count != values.count { problems.append(.init(here, "duplicate value in \"values\"")) }
            for value in values where !isSnakeCase(value) {
                problems.append(.init(here, "enum value \"\(value)\" must be snake_case"))
            }
        } else if spec.values != nil {
            problems.append(.init(here, "\"values\" applies to enums only, not to \(kind.rawValue)"))
        }
        return problems
    }

    static func eventProblems(_ event: EventSpec, catalog: Catalog) -> [CatalogProblem] {
        let here = "events[\(event.name)]"
        var problems: [CatalogProblem] = []
        if !isSnakeCase(event.name) { problems.append(.init(here, "name must be snake_case")) }
        if event.version < 1 { problems.append(.init(here, "version must be 1 or more")) }
        var used = Set<String>()
        for use in event.properties {
            if !used.insert(use.name).inserted {
                problems.append(.init("\(here).properties[\(use.name)]", "duplicate property in this event"))
            }
            if catalog.property(named: use.name) == nil {
                problems.append(
                    .init(
                        "\(here).properties[\(use.name)]",
                        "names a property that is not defined in \"properties\"; define it there"))
            }
        }
        for (index, rule) in event.rules.enumerated() {
            problems += ruleProblems(rule, at: "\(here).rules[\(index)]", used: used, catalog: catalog)
        }
        return problems
    }

    static func ruleProblems(_ rule: RuleSpec, at here: String, used: Set<String>, catalog: Catalog) -> [CatalogProblem]
    {
        var problems: [CatalogProblem] = []
        guard let kind = rule.ruleKind else {
            let known = RuleKind.allCases.map(\.rawValue).joined(separator: ", ")
            return [.init(here, "unknown rule kind \"\(rule.kind)\"; use one of \(known)")]
        }
        for name in [rule.property, rule.whenProperty] where !used.contains(name) {
            problems.append(.init(here, "names the property \"\(name)\", which this event does not have"))
        }
        if rule.whenValues.isEmpty { problems.append(.init(here, "when_values must not be empty")) }
        problems += valueProblems(rule.whenValues, of: rule.whenProperty, at: here, catalog: catalog)
        switch kind {
        case .exactlyWhen:
            if (rule.values ?? []).isEmpty { problems.append(.init(here, "exactly_when needs a non-empty \"values\"")) }
            problems += valueProblems(rule.values ?? [], of: rule.property, at: here, catalog: catalog)
        case .requiredWhen:
            if rule.values != nil { problems.append(.init(here, "required_when takes no \"values\"")) }
        }
        return problems
    }

    static func valueProblems(_ values: [String], of name: String, at here: String, catalog: Catalog)
        -> [CatalogProblem]
    {
        guard let spec = catalog.property(named: name), spec.kind == .enum, let allowed = spec.values else { return [] }
        return values.filter { !allowed.contains($0) }.map {
            .init(here, "\"\($0)\" is not an allowed value of \(name) (\(allowed.joined(separator: ", ")))")
        }
    }

    static func isSnakeCase(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    }
}
