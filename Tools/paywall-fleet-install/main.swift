// One app install of the fleet test (not shipped to users): the PaywallAnalytics facade used as an
// app uses it. It records presentations through the tracker into its own store and uploads them to
// the collector (after every flush, and periodically); `paywall-fleet` starts twenty of these,
// SIGKILLs them at random and restarts them.
//
//   paywall-fleet-install DB ENDPOINT device|collector SEED STOPFILE
//
//   DB         the install's own store
//   ENDPOINT   the collector's base URL (http://127.0.0.1:PORT)
//   device     the install forwards its impressions to RevenueCat itself (here: to a closure that
//              accepts them, as RevenueCat's SDK would); `collector`: the collector does
//   SEED       random choices of this run
//   STOPFILE   once this file exists, nothing more is recorded: the install commits, prints
//              "quiet", and keeps uploading and forwarding until it is killed
//
// The write key comes from PAYWALL_COLLECTOR_KEY, never from an argument. Prints "started" once the
// store is open, and "quiet" as above; diagnostics go to standard error.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 6, let endpoint = URL(string: arguments[2]), let seed = UInt64(arguments[4]),
    let party = FleetInstall.Party(rawValue: arguments[3])
else {
    FileHandle.standardError.write(
        Data(
            """
            usage: paywall-fleet-install DB ENDPOINT device|collector SEED STOPFILE (the write key in PAYWALL_COLLECTOR_KEY)

            """.utf8))
    exit(64)
}
let install = FleetInstall(
    databasePath: arguments[1], endpoint: endpoint, party: party, seed: seed,
    stopFile: arguments[5],
    writeKey: ProcessInfo.processInfo.environment["PAYWALL_COLLECTOR_KEY"] ?? "")
await install.run()
