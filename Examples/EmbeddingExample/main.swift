// The README's embedding sample, compiled by every `swift build` so it cannot rot.
// Run it: swift run embedding-example /tmp/example.sqlite
import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallStore

let path = CommandLine.arguments.dropFirst().first ?? NSTemporaryDirectory() + "paywall-example.sqlite"
let analytics = try PaywallAnalytics(configuration: .init(databasePath: path)) { message in
    FileHandle.standardError.write(Data("paywall-analytics: \(message)\n".utf8))
}

// One presentation: shown for longer than the dwell time, a plan selected, then bought.
let paywall = try analytics.tracker.open(source: "onboarding", offeringID: "default", userID: "user_42")
try paywall.appeared()
try await Task.sleep(for: .milliseconds(1_100))   // on screen past the 1 s dwell: paywall_shown
try paywall.selectPlan("pro_annual")
try paywall.startPurchase("pro_annual")
try paywall.close(.purchased(product: "pro_annual"))

try await analytics.flush()      // durable on disk, then forwarded to RevenueCat if a key is set
try await analytics.shutdown()
print("recorded \(analytics.recorder.committedCount) events into \(path)")
