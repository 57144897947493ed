// The embedding sample of docs/app.md, compiled by every `swift build` so it cannot rot.
// Run it: swift run embedding-example /tmp/example.sqlite
// (without an argument the store goes where an app keeps it: DatabaseLocation.applicationSupport(),
// ~/.local/share/PaywallAnalytics on Linux).
import Foundation
import PaywallAnalytics
import PaywallCore
import PaywallStore

let path = try CommandLine.arguments.dropFirst().first ?? DatabaseLocation.applicationSupport()
let analytics = try PaywallAnalytics(configuration: .init(databasePath: path)) { message in
    FileHandle.standardError.write(Data("paywall-analytics: \(message)\n".utf8))
}

// One presentation: the app goes to the background and back, the paywall stays past the dwell
// time, a plan is selected, then bought. No call needs `try`: misuse goes to the diagnostics.
let paywall = try analytics.tracker.open(source: "onboarding", offeringID: "default", userID: "user_42")
paywall.appeared()
try await Task.sleep(for: .milliseconds(300))
await analytics.suspend()       // background: hidden, committed, forwarded within 5 s; 0.3 s is no dwell
analytics.resume()              // foreground: on screen again, the dwell starts over
try await Task.sleep(for: .milliseconds(1_100))   // on screen past the 1 s dwell: paywall_shown
paywall.selectPlan("pro_annual")
paywall.startPurchase("pro_annual")
paywall.close(.purchased(product: "pro_annual"))

try await analytics.flush()      // durable on disk, then forwarded to RevenueCat if a key is set
try await analytics.shutdown()
print("recorded \(analytics.recorder.committedCount) events into \(path)")
