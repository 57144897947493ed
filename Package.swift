// swift-tools-version:6.0
import PackageDescription

/// Upcoming features enabled for every target, in one place (swift-log does the same).
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

var package = Package(
    name: "PaywallAnalytics",
    platforms: [.iOS(.v16), .macOS(.v13), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "PaywallCore", targets: ["PaywallCore"]),
        .library(name: "PaywallStore", targets: ["PaywallStore"]),
        .library(name: "RevenueCatForwarder", targets: ["RevenueCatForwarder"]),
        .library(name: "PaywallReports", targets: ["PaywallReports"]),
        .library(name: "PaywallAnalytics", targets: ["PaywallAnalytics"]),
        .library(name: "PaywallCollector", targets: ["PaywallCollector"]),
        .library(name: "PaywallUploader", targets: ["PaywallUploader"]),
        .library(name: "PaywallSubscriptions", targets: ["PaywallSubscriptions"]),
        .executable(name: "paywall-analytics", targets: ["paywall-analytics"]),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "PaywallLock"),
        .target(name: "PaywallGzip", dependencies: ["CZlib"]),
        .target(name: "PaywallCore", dependencies: ["PaywallLock"], exclude: ["Validation/FAST-PATH.md"]),
        // What only the CLI, the reports and the tools use, out of PaywallCore (which every app links):
        // the staged output files, and the catalog's code and docs generators (the CLI's `catalog`).
        .target(name: "PaywallOutput", dependencies: ["PaywallLock"]),
        .testTarget(name: "PaywallOutputTests", dependencies: ["PaywallOutput", "PaywallTestSupport"]),
        .target(name: "PaywallCatalogTools", dependencies: ["PaywallCore"], path: "Tools/PaywallCatalogTools"),
        .target(
            name: "PaywallCollector",
            dependencies: ["PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallStore", "PaywallWire", "CMicroHTTPD",
                           "PaywallGzip"]
        ),
        .testTarget(
            name: "PaywallCollectorTests",
            dependencies: ["PaywallCollector", "PaywallCore", "PaywallStore", "PaywallSQLite", "PaywallLock", "PaywallWire",
                           "PaywallTestSupport", "PaywallGzip", "paywall-analytics"]
        ),
        .target(name: "PaywallSQLite", dependencies: ["PaywallLock", "CSQLite"]),
        // RevenueCat's subscription events (webhook bodies) stored beside the paywall events: tables,
        // extraction, ingest with dedupe, quarantine and suppression, and their erasure.
        .target(name: "PaywallSubscriptions", dependencies: ["PaywallCore", "PaywallSQLite", "PaywallStore"]),
        .testTarget(
            name: "PaywallSubscriptionsTests",
            dependencies: ["PaywallSubscriptions", "PaywallCore", "PaywallSQLite", "PaywallStore", "PaywallTestSupport"]
        ),
        .target(name: "PaywallStore", dependencies: ["PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallWire", "PaywallOutput"],
                exclude: ["IMPORT-FAST-PATH.md"]),
        // The collector's `/v1/events` contract, written once for both ends (the path, the header names, the
        // answer and the counts of one write, EventCounts), and the package's one HTTPHeader and HTTPResponse.
        .target(name: "PaywallWire", dependencies: ["PaywallCore"]),
        .testTarget(name: "PaywallWireTests", dependencies: ["PaywallWire", "PaywallCore"]),
        // The delivery machinery written once for every destination (engine, loop, transport, retry rules,
        // key redaction); RevenueCatForwarder and PaywallUploader are its two adapters.
        .target(name: "PaywallDelivery", dependencies: ["PaywallLock", "PaywallCore", "PaywallWire"]),
        .testTarget(name: "PaywallDeliveryTests", dependencies: ["PaywallDelivery", "PaywallLock", "PaywallWire", "PaywallTestSupport"]),
        .target(name: "RevenueCatForwarder", dependencies: ["PaywallCore", "PaywallDelivery", "PaywallWire"]),
        .target(name: "CSystemMemory"),
        .target(name: "CFixedPoint"),
        .target(
            name: "PaywallReports",
            dependencies: [
                "PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallStore", "CSystemMemory", "CFixedPoint",
                "PaywallOutput",
            ],
            exclude: ["NIGHTLY.md"]
        ),
        .target(
            name: "PaywallTestSupport", dependencies: ["PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallSimulation", "PaywallStore"],
            path: "Tools/PaywallTestSupport"
        ),
        .target(name: "PaywallSimulation", dependencies: ["PaywallLock", "PaywallCore"]),
        .target(
            name: "PaywallUploader", dependencies: ["PaywallLock", "PaywallCore", "PaywallDelivery", "PaywallWire", "PaywallGzip"]
        ),
        // PrivacyInfo.xcprivacy: Apple's privacy manifest for the app side (no tracking; the data it
        // stores; the required-reason APIs it calls). A plain resource, so Linux builds it too.
        .target(name: "PaywallAnalytics",
                dependencies: ["PaywallLock", "PaywallCore", "PaywallStore", "RevenueCatForwarder", "PaywallUploader"],
                resources: [.copy("PrivacyInfo.xcprivacy")]),
        .executableTarget(
            name: "embedding-example",
            dependencies: ["PaywallAnalytics", "PaywallCore", "PaywallStore"],
            path: "Examples/EmbeddingExample"
        ),
        .executableTarget(
            name: "paywall-analytics",
            dependencies: ["PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallStore", "RevenueCatForwarder", "PaywallReports",
                           "PaywallSimulation", "PaywallCollector", "PaywallUploader", "PaywallOutput", "PaywallCatalogTools",
                           "PaywallSubscriptions"]
        ),
        .testTarget(name: "PaywallLockTests", dependencies: ["PaywallLock"]),
        .testTarget(
            name: "PaywallUploaderTests",
            dependencies: ["PaywallUploader", "RevenueCatForwarder", "PaywallCore", "PaywallStore", "PaywallSQLite", "PaywallLock",
                           "PaywallAnalytics", "PaywallTestSupport", "PaywallGzip", "paywall-analytics"]
        ),
        .testTarget(
            name: "PaywallCoreTests", dependencies: ["PaywallCore", "PaywallTestSupport", "PaywallSimulation", "PaywallCatalogTools"]
        ),
        .testTarget(
            name: "PaywallReportsTests",
            dependencies: ["PaywallReports", "PaywallStore", "PaywallSQLite", "PaywallCore", "PaywallTestSupport", "PaywallSimulation",
                           "PaywallCatalogTools", "PaywallSubscriptions", "PaywallLock"],
            exclude: ["Golden", "scripts"]
        ),
        .testTarget(name: "PaywallSimulationTests", dependencies: ["PaywallSimulation", "PaywallCore"]),
        .testTarget(
            name: "RevenueCatForwarderTests",
            dependencies: ["PaywallLock", "RevenueCatForwarder", "PaywallCore", "PaywallTestSupport", "PaywallSimulation"],
            exclude: ["Golden"]
        ),
        .testTarget(
            name: "PaywallAnalyticsTests",
            dependencies: ["PaywallLock", "PaywallAnalytics", "PaywallCore", "PaywallSQLite", "PaywallStore", "RevenueCatForwarder",
                           "PaywallTestSupport", "PaywallSimulation", "recorder-crash-helper"]
        ),
        .testTarget(
            name: "CLITests",
            dependencies: ["PaywallCore", "PaywallSQLite", "PaywallStore", "PaywallReports", "RevenueCatForwarder",
                           "PaywallCollector", "PaywallTestSupport", "paywall-analytics", "embedding-example",
                           "paywall-bench"],
            exclude: ["scripts"]
        ),
        .testTarget(name: "PaywallSQLiteTests", dependencies: ["PaywallLock", "PaywallSQLite", "PaywallTestSupport"]),
        .testTarget(
            name: "PaywallStoreTests",
            dependencies: ["PaywallLock", "PaywallStore", "PaywallCore", "PaywallSQLite", "PaywallWire", "PaywallTestSupport",
                           "PaywallSimulation", "recorder-crash-helper"]
        ),
        .executableTarget(
            name: "recorder-crash-helper",
            dependencies: ["PaywallStore", "PaywallCore", "PaywallSQLite", "PaywallAnalytics", "PaywallSimulation"],
            path: "Tools/recorder-crash-helper"
        ),
        .executableTarget(
            name: "paywall-bench",
            dependencies: ["PaywallLock", "PaywallCore", "PaywallStore", "RevenueCatForwarder", "PaywallTestSupport",
                           "PaywallSQLite", "PaywallReports", "PaywallCollector", "PaywallGzip", "PaywallUploader",
                           "PaywallSimulation", "PaywallSubscriptions"],
            path: "Tools/paywall-bench",
            exclude: ["targets.json"]
        ),
        .executableTarget(
            name: "forwarder-crash-helper", dependencies: ["PaywallStore", "PaywallCore", "RevenueCatForwarder"],
            path: "Tools/forwarder-crash-helper"
        ),
        .testTarget(
            name: "SecurityTests",
            dependencies: ["PaywallCore", "PaywallSubscriptions", "PaywallTestSupport", "paywall-analytics", "recorder-crash-helper"]
        ),
        .executableTarget(
            name: "paywall-soak",
            dependencies: [
                "PaywallLock", "PaywallCore", "PaywallStore", "PaywallSQLite", "PaywallTestSupport", "PaywallSimulation",
                "PaywallReports",
            ],
            path: "Tools/paywall-soak"
        ),
        .executableTarget(
            name: "paywall-fleet-install",
            dependencies: ["PaywallAnalytics", "PaywallCore", "PaywallStore", "RevenueCatForwarder", "PaywallSimulation"],
            path: "Tools/paywall-fleet-install"
        ),
        .executableTarget(
            name: "paywall-fleet",
            dependencies: ["PaywallLock", "PaywallCore", "PaywallSQLite", "PaywallTestSupport", "PaywallSimulation"],
            path: "Tools/paywall-fleet"
        ),
        .testTarget(
            name: "FleetTests",
            dependencies: ["PaywallSQLite", "PaywallTestSupport", "paywall-fleet", "paywall-fleet-install", "paywall-analytics"]
        ),
        .testTarget(
            name: "SQLiteOutboxTests",
            dependencies: ["PaywallLock", "PaywallStore", "PaywallCore", "PaywallSQLite", "RevenueCatForwarder", "PaywallTestSupport",
                           "PaywallReports", "PaywallSimulation", "forwarder-crash-helper"]
        ),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strictSettings
}
