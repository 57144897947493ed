import Foundation
import PaywallAnalytics
import PaywallTestSupport
import Testing

/// The privacy manifest parses as a property list, is the one in the resource bundle, declares no
/// tracking and the data the library stores, and declares exactly the required-reason API families
/// that the app-side sources call.
struct PrivacyManifestTests {
    static let root = Golden.packageRoot()
    static let source = root.appendingPathComponent("Sources/PaywallAnalytics/PrivacyInfo.xcprivacy")

    static func plist(_ url: URL) throws -> [String: Any] {
        let data = try Data(contentsOf: url)
        let object = try PropertyListSerialization.propertyList(from: data, format: nil)
        return try #require(object as? [String: Any])
    }

    /// The source folders linked into an app: every module but the server's and the tools'.
    static let appModules = [
        "PaywallAnalytics", "PaywallCore", "PaywallStore", "PaywallSQLite", "PaywallOutput", "PaywallLock",
        "RevenueCatForwarder", "PaywallUploader", "PaywallDelivery", "PaywallWire", "PaywallGzip", "CSQLite",
        "CZlib",
    ]

    /// Required-reason API families and the calls that put a module in them (Apple's list).
    static let families: [String: String] = [
        "NSPrivacyAccessedAPICategoryFileTimestamp":
            #"\b(f|l)?stat\(|fstatat\(|getattrlist|creationDate|modificationDate|contentModificationDateKey"#,
        "NSPrivacyAccessedAPICategoryDiskSpace":
            #"volumeAvailableCapacity|systemFreeSize|systemSize|\bstatv?fs\("#,
        "NSPrivacyAccessedAPICategorySystemBootTime": #"systemUptime|mach_absolute_time"#,
        "NSPrivacyAccessedAPICategoryUserDefaults": #"UserDefaults"#,
    ]

    /// The families the app-side sources use.
    static func familiesUsed() throws -> Set<String> {
        var used = Set<String>()
        for module in appModules {
            let folder = root.appendingPathComponent("Sources/\(module)")
            let files =
                FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { ["swift", "h", "c"].contains($0.pathExtension) } ?? []
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for (family, pattern) in families where text.range(of: pattern, options: .regularExpression) != nil {
                    used.insert(family)
                }
            }
        }
        return used
    }

    @Test func theManifestParsesAndIsTheOneInTheResourceBundle() throws {
        let bundled = try #require(PaywallAnalytics.privacyManifestURL, "the resource bundle has no manifest")
        #expect(try Data(contentsOf: bundled) == Data(contentsOf: Self.source))
        #expect(try !Self.plist(bundled).isEmpty)
    }

    @Test func noTrackingAndTheDataTheLibraryStores() throws {
        let manifest = try Self.plist(Self.source)
        #expect(manifest["NSPrivacyTracking"] as? Bool == false)
        #expect((manifest["NSPrivacyTrackingDomains"] as? [String]) == [])
        let collected = try #require(manifest["NSPrivacyCollectedDataTypes"] as? [[String: Any]])
        let types = collected.compactMap { $0["NSPrivacyCollectedDataType"] as? String }
        #expect(
            Set(types) == [
                "NSPrivacyCollectedDataTypeUserID", "NSPrivacyCollectedDataTypeProductInteraction",
                "NSPrivacyCollectedDataTypePurchaseHistory",
            ])
        for entry in collected {
            #expect(entry["NSPrivacyCollectedDataTypeTracking"] as? Bool == false)
            #expect(entry["NSPrivacyCollectedDataTypeLinked"] as? Bool == true)
            #expect(
                (entry["NSPrivacyCollectedDataTypePurposes"] as? [String]) == [
                    "NSPrivacyCollectedDataTypePurposeAnalytics"
                ])
        }
    }

    @Test func theRequiredReasonAPIsAreExactlyThoseTheSourcesCall() throws {
        let manifest = try Self.plist(Self.source)
        let accessed = try #require(manifest["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        let declared = Set(accessed.compactMap { $0["NSPrivacyAccessedAPIType"] as? String })
        let used = try Self.familiesUsed()
        #expect(used.contains("NSPrivacyAccessedAPICategoryFileTimestamp"), "the scan finds the stat calls")
        #expect(declared == used)
        for entry in accessed {
            let reasons = entry["NSPrivacyAccessedAPITypeReasons"] as? [String] ?? []
            #expect(!reasons.isEmpty, "\(entry) gives no reason")
        }
        // C617.1: metadata of files inside the app container (the library's own database and WAL).
        let timestamps = accessed.first {
            $0["NSPrivacyAccessedAPIType"] as? String == "NSPrivacyAccessedAPICategoryFileTimestamp"
        }
        #expect(timestamps?["NSPrivacyAccessedAPITypeReasons"] as? [String] == ["C617.1"])
    }
}
