import PaywallCore
import PaywallSQLite

/// A report filter naming a value the store has never seen (a misspelled placement or offering):
/// the value, what kind of value it is, and the known values nearest to it.
public struct UnknownFilterValue: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the filter names, e.g. `placement` or `offering`.
    public var kind: String
    /// The value given.
    public var value: String
    /// The known values nearest to it (``NearestNames``), nearest first; empty when the store has none.
    public var closest: [String]
    /// Whether ``closest`` are near enough to be what was meant (a misspelling), rather than just the nearest.
    public var likelyTypo: Bool
    /// How many values of this kind the store knows.
    public var knownCount: Int

    /// Checks `values` against `known` (compared by exact scalars, as the filters compare); returns the
    /// first unknown one with the known values nearest to it, or `nil` when every value is known.
    public static func first(
        of values: [String], kind: String, known: [String], suggestions: Int = 3
    ) -> UnknownFilterValue? {
        let exact = Set(known.map(ExactText.init))
        guard let unknown = values.first(where: { !exact.contains(ExactText($0)) }) else { return nil }
        // The likely misspellings when there are any; otherwise the nearest few, so the answer is never empty.
        let typos = NearestNames.closest(
            to: unknown, among: known, limit: suggestions, within: NearestNames.typoDistance(for: unknown))
        return UnknownFilterValue(
            kind: kind, value: unknown,
            closest: typos.isEmpty ? NearestNames.closest(to: unknown, among: known, limit: suggestions) : typos,
            likelyTypo: !typos.isEmpty, knownCount: exact.count)
    }

    /// `no placement 'onbaording' in this store; did you mean onboarding? (6 placements known)`.
    public var description: String {
        let plural = kind + "s"
        guard !closest.isEmpty else {
            return "no \(kind) '\(value)' in this store: it holds no \(plural) yet, so the report would be empty"
        }
        let list = closest.joined(separator: ", ")
        if likelyTypo {
            return "no \(kind) '\(value)' in this store; did you mean \(closest.joined(separator: " or "))? "
                + "(\(knownCount) \(knownCount == 1 ? kind : plural) known)"
        }
        return "no \(kind) '\(value)' in this store; the known \(plural) closest to it: \(list)"
            + (knownCount > closest.count ? " (of \(knownCount))" : "")
    }
}

extension FunnelReport {
    /// Every placement the rollups know (any presentation's placement, over all history). Call after
    /// ``refreshRollups()`` so the newest events count.
    public func knownPlacements() throws -> [String] {
        try ReportError.wrap {
            try connection.withDatabase { db in
                try db.all("SELECT placement FROM report_placements ORDER BY placement") { $0.string(at: 0) ?? "" }
            }
        }
    }

    /// Whether some presentation's first impression has `offering`, compared byte for byte as the
    /// offering comparison compares it.
    public func knowsOffering(_ offering: String) throws -> Bool {
        try ReportError.wrap {
            try connection.withDatabase { db in
                try db.int64(
                    "SELECT EXISTS (SELECT 1 FROM report_presentations WHERE offering = ?1)", [.text(offering)]) == 1
            }
        }
    }

    /// Every app version the rollups know (any presentation's first event's `app_version`, none left out).
    public func knownAppVersions() throws -> [String] {
        try ReportError.wrap {
            try connection.withDatabase { db in
                try db.all(
                    "SELECT DISTINCT app_version FROM report_presentations WHERE app_version IS NOT NULL ORDER BY 1"
                ) { $0.string(at: 0) ?? "" }
            }
        }
    }

    /// Every offering the rollups know (any presentation's first impression's `offering_id`).
    public func knownOfferings() throws -> [String] {
        try ReportError.wrap {
            try connection.withDatabase { db in
                try db.all(
                    "SELECT DISTINCT offering FROM report_presentations WHERE offering IS NOT NULL ORDER BY offering"
                ) { $0.string(at: 0) ?? "" }
            }
        }
    }

    /// Refuses a placement filter or a control that names a value the store does not know, with the
    /// nearest known ones, so a misspelling is not mistaken for an empty report or the default control.
    /// Values that are known change nothing. Runs after the rollups are refreshed, when
    /// ``refusesUnknownFilterValues`` is on.
    ///
    /// - Throws: ``ReportError/unknownValue(_:)``.
    func checkFilters(placements: [String]?) throws {
        guard refusesUnknownFilterValues else { return }
        // "" (a first event that does not say) is always a known app version: the filter then keeps
        // the presentations of catalog version 1 events.
        if let versions = contextFilter.appVersions?.filter({ !$0.isEmpty }), !versions.isEmpty,
            let unknown = UnknownFilterValue.first(of: versions, kind: "app version", known: try knownAppVersions())
        {
            throw ReportError.unknownValue(unknown)
        }
        if let placements, !placements.isEmpty,
            let unknown = UnknownFilterValue.first(of: placements, kind: "placement", known: try knownPlacements())
        {
            throw ReportError.unknownValue(unknown)
        }
        if let control, !(try knowsOffering(control)),
            let unknown = UnknownFilterValue.first(of: [control], kind: "offering", known: try knownOfferings())
        {
            throw ReportError.unknownValue(unknown)
        }
    }
}
