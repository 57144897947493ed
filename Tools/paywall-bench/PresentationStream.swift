import PaywallCore

/// The benchmarks' one event generator: realistic presentations in time order (UUIDv7 ids), a
/// chunk at a time: shown, sometimes a plan and a purchase, then closed. ``BenchSupport/events(_:)``
/// takes one chunk; `paywall-bench import` streams many (10M events never sit in memory at once).
struct PresentationStream {
    var generator = SystemRandomNumberGenerator()
    var time: Int64 = 1_764_400_000_000
    var carry: [EventRecord] = []
    let sources = ["onboarding", "settings", "paywall_gate", "home_banner"]

    mutating func next(_ count: Int) -> [EventRecord] {
        var events = carry
        events.reserveCapacity(count + 4)
        while events.count < count {
            let pwID = UUIDv7.make(milliseconds: time, using: &generator)
            let source = sources[Int.random(in: 0..<sources.count, using: &generator)]
            let user = "user-\(Int.random(in: 0..<50_000, using: &generator))"
            func add(_ name: EventName, _ properties: EventProperties) {
                time += Int64.random(in: 1...400, using: &generator)
                events.append(
                    EventRecord(
                        id: UUIDv7.make(milliseconds: time, using: &generator), name: name, occurredAt: time,
                        userID: user, sessionID: pwID, properties: properties))
            }
            add(.paywallShown, EventProperties(pwID: pwID, source: source, offeringID: "default"))
            let buys = Int.random(in: 0..<4, using: &generator) == 0
            if buys {
                add(.paywallPlanSelected, EventProperties(pwID: pwID, source: source, product: "annual"))
                add(.paywallPurchaseStarted, EventProperties(pwID: pwID, source: source, product: "annual"))
            }
            add(
                .paywallClosed,
                EventProperties(
                    pwID: pwID, source: source, product: buys ? "annual" : nil,
                    result: buys ? .purchased : .dismissed, via: buys ? .auto : .closeButton,
                    openS: Double(Int.random(in: 1...600, using: &generator)) / 10))
        }
        carry = Array(events[count...])
        return Array(events.prefix(count))
    }
}
