import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallSimulation
import PaywallStore
import RevenueCatForwarder

/// One install: opens the facade, records presentations until the stop file appears, then only
/// commits and uploads (and forwards) until it is killed.
struct FleetInstall: Sendable {
    /// Who sends this install's impressions to RevenueCat.
    enum Party: String, Sendable {
        /// The install itself (a closure standing for RevenueCat's SDK, which accepts every impression).
        case device
        /// The collector.
        case collector
    }

    let databasePath: String
    let endpoint: URL
    let party: Party
    let seed: UInt64
    let stopFile: String
    let writeKey: String

    static let placements = ["onboarding", "settings", "feature_gate", "winback"]
    static let offerings = ["default", "trial_7d", "annual_discount"]
    static let products = ["pro_monthly", "pro_annual"]

    /// The facade's settings, as an app sets them, with short intervals (a test fleet). The collector's
    /// `X-Paywall-Forwarding` side follows `forwarding`: `device` with the closure, `collector` when off.
    /// The byte budget is large so that device retention deletes nothing during a run: the checks compare
    /// the central store with every event each install's file holds.
    func configuration() -> PaywallAnalytics.Configuration {
        PaywallAnalytics.Configuration(
            databasePath: databasePath,
            forwarding: party == .device ? .closure({ _ in }) : .off,
            forwardingInterval: .seconds(1),
            retryPolicy: RetryPolicy(base: .milliseconds(100), cap: .seconds(1)),
            flushPolicy: FlushPolicy(batchSize: 200, capacity: 100_000, interval: .milliseconds(500)),
            impressionMode: .appReported,
            collector: .init(endpoint: endpoint, writeKey: writeKey, uploadInterval: .seconds(1), byteBudget: 1 << 40))
    }

    func run() async -> Never {
        let analytics: PaywallAnalytics
        do {
            analytics = try PaywallAnalytics(configuration: configuration()) { message in
                Self.say("diagnostic: \(message)", to: FileHandle.standardError)
            }
        } catch {
            Self.say(
                "cannot open the install's store \(databasePath): \(error); check the path and its folder",
                to: FileHandle.standardError)
            exit(74)
        }
        if case .off(let reason) = analytics.uploadStatus {
            Self.say("uploading is off: \(reason)", to: FileHandle.standardError)
            exit(78)
        }
        Self.say("started")
        let parent = getppid()
        var random = SeededGenerator(seed: seed)
        var presentations = 0
        while !FileManager.default.fileExists(atPath: stopFile) {
            Self.exitWhenOrphaned(parent)
            record(presentations, into: analytics, random: &random)
            presentations += 1
            if presentations % 8 == 0 { await flush(analytics) }
            if presentations % 40 == 0 {
                await analytics.suspend(budget: .seconds(2))  // the app goes to the background and back
                analytics.resume()
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 10...80, using: &random)))
        }
        // Quiet: everything recorded is committed; from now on the install only uploads and forwards.
        while true {
            do {
                try await analytics.flush()
                break
            } catch {
                Self.say("the final commit failed, retrying: \(error)", to: FileHandle.standardError)
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        Self.say("quiet")
        while true {
            Self.exitWhenOrphaned(parent)
            await flush(analytics)
            try? await Task.sleep(for: .milliseconds(300))
        }
    }

    /// One presentation, as a paywall screen drives the tracker: shown, maybe a plan selected and a
    /// purchase started, then bought, restored or dismissed.
    func record(_ index: Int, into analytics: PaywallAnalytics, random: inout SeededGenerator) {
        let paywall: Presentation
        do {
            paywall = try analytics.tracker.open(
                source: Self.placements.randomElement(using: &random)!,
                offeringID: Self.offerings.randomElement(using: &random),
                placementID: Bool.random(using: &random) ? "placement_main" : nil,
                userID: "fleet-user-\(seed)-\(index % 50)")
        } catch {
            Self.say("the tracker refused a presentation: \(error)", to: FileHandle.standardError)
            return
        }
        paywall.appeared()
        paywall.reportImpression()
        let product = Self.products.randomElement(using: &random)!
        let roll = Int.random(in: 0..<100, using: &random)
        if roll < 40 { paywall.selectPlan(product) }
        if roll < 20 { paywall.startPurchase(product) }
        switch roll {
        case 0..<12: paywall.close(.purchased(product: product))
        case 12..<15: paywall.close(.restored)
        case 15..<60: paywall.close(.dismissed(via: .closeButton))
        default: paywall.close(.dismissed(via: .continueFree))
        }
    }

    /// `flush()` (commit, then forwarding and uploading); a failure is said and retried later.
    func flush(_ analytics: PaywallAnalytics) async {
        do { try await analytics.flush() } catch {
            Self.say("flush failed (the events stay buffered): \(error)", to: FileHandle.standardError)
        }
    }

    /// Exits once the driver that started this install is gone (a fleet stopped by force leaves no install behind).
    static func exitWhenOrphaned(_ parent: pid_t) {
        if getppid() != parent { exit(0) }
    }

    /// One line, written at once (unbuffered: the driver reads it while the process runs).
    static func say(_ text: String, to handle: FileHandle = FileHandle.standardOutput) {
        handle.write(Data((text + "\n").utf8))
    }
}
