import Foundation
import PaywallCore
import PaywallSQLite
import PaywallStore
import PaywallSubscriptions
import PaywallTestSupport
import Testing

@testable import PaywallReports

private let minute: Int64 = 60_000
private let hour = ReportFixture.hour
private let day = 24 * ReportFixture.hour

/// Guards the nightly job's subscription money against a full recompute: over seeded random rounds
/// of paywall and subscription events (new, late, out of order, erased), every nightly run's files
/// must equal, byte for byte, both a range report over the nightly's window (another code path)
/// and a first nightly run on a copy of a store that received the same events and never reported.
///
/// Each round changes the subscription side in every way an incremental nightly would have to
/// follow: new attributed and unattributed starts, renewals (trial conversions, late ones), refunds,
/// a late start that becomes a subscription's start (earlier purchase, or the same purchase time
/// and a smaller id), late presentations that take a purchase (the buyer's own, or of a customer
/// the purchase names only as its original id or an alias), late earlier events and late
/// impressions of stored presentations, sandbox, `TEST`, transactionless, future and unstamped
/// events; between rounds the clock moves by hours or days (trials go from pending to lapsed, days
/// leave the window), some rounds bring nothing, one brings only paywall events and one only
/// subscription events (the others arrive a round late), a buyer and an alias are forgotten
/// (`forget --user`'s erasure), a range report folds the new events first, and the window or the
/// time zone changes. Every round also checks that the window holds attributed starts and money and
/// that no output names a forgotten customer, so the comparison cannot pass on empty files.
///
/// The page of a run that found nothing new is not compared (``thePageOfARunWithNothingNewFollowsItsWindow()``
/// is that known issue).
struct NightlySubscriptionEquivalenceTests {

    /// SplitMix64: a small generator whose output depends on the seed alone.
    struct SplitMix64 {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func between(_ low: Int64, _ high: Int64) -> Int64 { low + Int64(next() % UInt64(high - low + 1)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    /// What the generator remembers of the store, to aim late events at stored rows.
    struct Presentation {
        var pw: Int
        var user: String
        var firstAt: Int64
        var impressionAt: Int64?
        var placement: String
    }

    struct Subscription {
        var transaction: String
        var user: String
        var originalUser: String?
        var aliases: [String]
        var startAt: Int64
        var startID: String
        var trial: Bool
        var price: Int64
        /// The first impression of the presentation it was bought after (`nil`: none meant).
        var after: Int64?
    }

    /// One round's events, and which kinds of change they hold (numbered as in ``Traffic/batch(now:)``).
    struct Batch {
        var paywall: [ReportFixture.Event] = []
        var subscription: [SubscriptionFixture.Event] = []
        var kinds: Set<Int> = []
    }

    /// Random traffic around a moving clock.
    struct Traffic {
        static let placements = ["onboarding", "settings", "=x", "Ünï, \"q\"", "pro upsell"]
        /// Where late presentations that take a stored purchase are shown: not one of the usual
        /// placements, so a purchase that moves there always changes the files.
        static let latePlacements = ["late", "-late"]
        static let offerings: [String?] = ["A", "B", nil, "Ä"]
        static let prices: [Int64] = [4_990_000, 9_990_000, 59_990_000, 1_990_000, 8_485_000]

        var random: SplitMix64
        var customers = (1...14).map { "c\($0)x" }
        var forgotten: [String] = []
        var presentations: [Presentation] = []
        var impressionless: [Int] = []  // indexes into `presentations`
        var subscriptions: [Subscription] = []
        var aliasBuyers: [Int] = []  // indexes into `subscriptions` whose named customers saw nothing yet
        var startless: [String] = []  // transactions with events but no start yet
        var nextEvent = 0x10, nextPW = 1, nextSubscriptionEvent = 1, nextTransaction = 1, nextSolo = 1
        var nextBuyer = 1, nextOrphan = 1
        var sampleTransferSent = false

        init(seed: UInt64) { random = SplitMix64(state: seed) }

        mutating func eventID() -> Int {
            defer { nextEvent += 1 }
            return nextEvent
        }

        /// A subscription event id; `prefix` "m" for ordinary ones, "a" for one that must sort first.
        mutating func subscriptionID(_ prefix: String = "m") -> String {
            defer { nextSubscriptionEvent += 1 }
            let digits = String(nextSubscriptionEvent)
            return prefix + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
        }

        /// A presentation of `user` first seen at `at` (with an impression unless said).
        @discardableResult
        mutating func presentation(
            _ user: String, at: Int64, placement: String? = nil, impression: Bool = true, into batch: inout Batch
        ) -> Presentation {
            let pw = nextPW
            nextPW += 1
            let source = placement ?? random.pick(Self.placements)
            if impression {
                let delivery = random.chance(20) ? "pending" : "delivered"
                batch.paywall.append(
                    ReportFixture.shown(
                        eventID(), at, user, pw, source, delivery: delivery, offering: random.pick(Self.offerings)))
                if random.chance(15) {
                    batch.paywall.append(
                        ReportFixture.shown(
                            eventID(), at + random.between(1000, 60_000), user, pw, source,
                            offering: random.pick(Self.offerings)))
                }
                if random.chance(40) {
                    batch.paywall.append(
                        ReportFixture.step(eventID(), "paywall_plan_selected", at + 2000, user, pw, source, "pro"))
                }
                let started = random.chance(30)
                if started {
                    batch.paywall.append(
                        ReportFixture.step(eventID(), "paywall_purchase_started", at + 3000, user, pw, source, "pro"))
                }
                if random.chance(70) {
                    let (result, via) = random.pick([
                        ("purchased", "auto"), ("dismissed", "close_button"), ("dismissed", "continue_free"),
                        ("dismissed", "gesture"), ("restored", "auto"),
                    ])
                    let open = random.between(4, 90)
                    batch.paywall.append(
                        ReportFixture.closed(
                            eventID(), at + open * 1000, user, pw, source, result, via, Double(open),
                            product: result == "purchased" ? "pro" : nil))
                }
            } else {
                // closed before the dwell time: a presentation without an impression
                batch.paywall.append(
                    ReportFixture.closed(eventID(), at, user, pw, source, "dismissed", "close_button", 0.4))
                impressionless.append(presentations.count)
            }
            let made = Presentation(
                pw: pw, user: user, firstAt: at, impressionAt: impression ? at : nil, placement: source)
            presentations.append(made)
            return made
        }

        /// A new subscription's start (a trial or a paid purchase) at `at`.
        @discardableResult
        mutating func start(
            _ user: String, originalUser: String? = nil, aliases: [String] = [], at: Int64, trial: Bool,
            after: Int64?, transaction: String? = nil, into batch: inout Batch
        ) -> Int {
            let transaction =
                transaction
                ?? {
                    defer { nextTransaction += 1 }
                    return "T\(nextTransaction)"
                }()
            let price = trial ? 0 : random.pick(Self.prices)
            let id = subscriptionID()
            batch.subscription.append(
                SubscriptionFixture.Event(
                    id: id, type: !trial && random.chance(15) ? "NON_RENEWING_PURCHASE" : "INITIAL_PURCHASE",
                    transaction: transaction, at: at, user: user, originalUser: originalUser, aliases: aliases,
                    period: trial ? "TRIAL" : "NORMAL", purchasedAt: at, expirationAt: at + (trial ? 3 : 30) * day,
                    price: price, proceeds: price * 85 / 100))
            subscriptions.append(
                Subscription(
                    transaction: transaction, user: user, originalUser: originalUser, aliases: aliases, startAt: at,
                    startID: id, trial: trial, price: price, after: after))
            return subscriptions.count - 1
        }

        /// A renewal of a stored subscription stamped `at` (`nil`: no stamp).
        mutating func renewal(_ s: Subscription, at: Int64?, conversion: Bool, into batch: inout Batch) {
            let price = random.pick(Self.prices)
            batch.subscription.append(
                SubscriptionFixture.Event(
                    id: subscriptionID(), type: "RENEWAL", transaction: s.transaction, at: at, user: s.user,
                    purchasedAt: at, expirationAt: at.map { $0 + 30 * day }, trialConversion: conversion ? true : nil,
                    price: price, proceeds: price * 7 / 10))
        }

        /// The next round's events, for a clock at `t`. The kinds of change (`Batch/kinds`):
        /// 1 new starts, attributed and not; 2 renewals, trial conversions, late renewals; 3 refunds;
        /// 4 a late start that becomes the start (earlier purchase; same purchase, smaller id);
        /// 5 late presentations that take a stored purchase (the buyer's; an original id's or alias's);
        /// 6 a late earlier event of a stored presentation, a late impression of one that had none;
        /// 7 sandbox, `TEST`, transactionless, future and unstamped events.
        mutating func batch(now t: Int64) -> Batch {
            var b = Batch()
            let stored = subscriptions.indices.filter { !isForgotten(subscriptions[$0]) }
            let storedPresentations = presentations.indices.filter { presentations[$0].impressionAt != nil }
            // 1: new presentations, about half followed by a start within 72 h
            for _ in 0..<random.between(6, 9) {
                let user = random.pick(customers)
                let shownAt = t - random.between(2 * hour, 60 * hour)
                presentation(user, at: shownAt, into: &b)
                if random.chance(55) {
                    let at = min(shownAt + random.between(minute, 70 * hour), t - minute)
                    start(user, at: at, trial: random.chance(45), after: shownAt, into: &b)
                }
            }
            // … one bought up to 5 minutes before the impression (clock skew), one 72 h + 1 ms after it
            let skewed = presentation(random.pick(customers), at: t - random.between(3 * hour, 30 * hour), into: &b)
            start(
                skewed.user, at: skewed.firstAt - random.between(0, 5 * minute), trial: random.chance(50),
                after: skewed.firstAt, into: &b)
            let solo = "solo\(nextSolo)x"
            nextSolo += 1
            let early = presentation(solo, at: t - 80 * hour, into: &b)
            start(solo, at: early.firstAt + 72 * hour + 1, trial: random.chance(50), after: nil, into: &b)
            // … one by a customer with no presentation at all
            start(
                "solo\(nextSolo)x", at: t - random.between(hour, 30 * hour), trial: random.chance(50), after: nil,
                into: &b)
            nextSolo += 1
            // … one by a buyer whose presentations are (later) under its original id or an alias only
            let buyer = nextBuyer
            nextBuyer += 1
            aliasBuyers.append(
                start(
                    "buyer\(buyer)x", originalUser: "anon\(buyer)x", aliases: ["al\(buyer)x"],
                    at: t - random.between(hour, 40 * hour), trial: random.chance(50), after: nil, into: &b))
            // … a presentation without an impression, bought from 10 minutes later (unattributed until
            // its late impression comes: 6)
            let bouncer = random.pick(customers)
            let bounce = presentation(bouncer, at: t - random.between(5 * hour, 50 * hour), impression: false, into: &b)
            start(bouncer, at: bounce.firstAt + 10 * minute, trial: false, after: nil, into: &b)
            // … and a renewal for a subscription whose start comes in a later round (4)
            let orphan = "orphan\(nextOrphan)"
            nextOrphan += 1
            b.subscription.append(
                SubscriptionFixture.Event(
                    id: subscriptionID(), type: "RENEWAL", transaction: orphan, at: t - random.between(hour, 9 * hour),
                    user: random.pick(customers), price: 9_990_000, proceeds: 8_491_500))
            startless.append(orphan)
            b.kinds.insert(1)

            if !stored.isEmpty {
                // 2: renewals (trials converted by some), the oldest subscription's among them
                let oldest = stored.min { subscriptions[$0].startAt < subscriptions[$1].startAt }!
                for index in [oldest] + (0..<random.between(2, 4)).map({ _ in random.pick(stored) }) {
                    let s = subscriptions[index]
                    let at = max(s.startAt + minute, t - random.between(0, 20 * hour))
                    renewal(s, at: at, conversion: s.trial && random.chance(70), into: &b)
                }
                b.kinds.insert(2)
                // 3: a refund, and a cancellation that is not one
                let refunded = subscriptions[random.pick(stored)]
                b.subscription.append(
                    SubscriptionFixture.Event(
                        id: subscriptionID(), type: "CANCELLATION", transaction: refunded.transaction,
                        at: t - random.between(0, 10 * hour), user: refunded.user,
                        price: -max(refunded.price, 4_990_000), proceeds: -max(refunded.price, 4_990_000) * 85 / 100))
                let cancelled = subscriptions[random.pick(stored)]
                b.subscription.append(
                    SubscriptionFixture.Event(
                        id: subscriptionID(), type: "CANCELLATION", transaction: cancelled.transaction,
                        at: t - random.between(0, 10 * hour), user: cancelled.user))
                b.kinds.insert(3)
                // 4: a late start with an earlier purchase time: right after another of the buyer's
                // presentations when there is one, else anywhere (the subscription may lose its presentation)
                let moved = random.pick(stored)
                let s = subscriptions[moved]
                let earlierShown = presentations.filter {
                    $0.user == s.user && ($0.impressionAt ?? .max) < s.startAt - 2 * hour
                }
                let earlierAfter = earlierShown.isEmpty ? nil : random.pick(earlierShown).impressionAt
                let earlierAt =
                    earlierAfter.map { $0 + random.between(minute, hour) }
                    ?? s.startAt - random.between(30 * minute, 50 * hour)
                let earlierID = subscriptionID()
                let earlierTrial = random.chance(50)
                let earlierPrice = earlierTrial ? 0 : random.pick(Self.prices)
                b.subscription.append(
                    SubscriptionFixture.Event(
                        id: earlierID, type: "INITIAL_PURCHASE", transaction: s.transaction, at: earlierAt,
                        user: s.user, originalUser: s.originalUser, aliases: s.aliases,
                        period: earlierTrial ? "TRIAL" : "NORMAL", purchasedAt: earlierAt,
                        expirationAt: earlierAt + 3 * day, price: earlierPrice, proceeds: earlierPrice / 2))
                subscriptions[moved].startAt = earlierAt
                subscriptions[moved].startID = earlierID
                subscriptions[moved].trial = earlierTrial
                subscriptions[moved].after = earlierAfter
                // … and one with the same purchase time and a smaller id (a trial turns paid or back)
                if let tied = stored.first(where: { $0 != moved && subscriptions[$0].startID.hasPrefix("m") }) {
                    let s = subscriptions[tied]
                    let tieID = subscriptionID("a")
                    let price: Int64 = s.trial ? 1_990_000 : 0
                    b.subscription.append(
                        SubscriptionFixture.Event(
                            id: tieID, type: "INITIAL_PURCHASE", transaction: s.transaction, at: s.startAt,
                            user: s.user, originalUser: s.originalUser, aliases: s.aliases,
                            period: s.trial ? "NORMAL" : "TRIAL", purchasedAt: s.startAt,
                            expirationAt: s.startAt + 2 * day, price: price, proceeds: price))
                    subscriptions[tied].startID = tieID
                    subscriptions[tied].trial = !s.trial
                }
                // … and the start of a subscription whose renewal came in an earlier round
                if let orphan = startless.first(where: { $0 != "orphan\(nextOrphan - 1)" }) {
                    startless.removeAll { $0 == orphan }
                    let user = random.pick(customers)
                    let shownAt = t - random.between(30 * hour, 70 * hour)
                    presentation(user, at: shownAt, into: &b)
                    start(
                        user, at: shownAt + random.between(minute, 2 * hour), trial: false, after: shownAt,
                        transaction: orphan, into: &b)
                }
                b.kinds.insert(4)
                // 5: a late presentation of a buyer, later than the one the purchase went to and inside its
                // window; and of a customer a purchase names only as its original id or alias
                let regular = stored.filter { customers.contains(subscriptions[$0].user) }
                if !regular.isEmpty {
                    let s = subscriptions[random.pick(regular)]
                    let latest = s.startAt + 5 * minute
                    let earliest = min(max(s.after ?? .min, s.startAt - 72 * hour) + 1, latest)
                    presentation(
                        s.user, at: random.between(earliest, latest),
                        placement: random.pick(Self.latePlacements), into: &b)
                }
                let soloBuyers = stored.filter { subscriptions[$0].user.hasPrefix("solo") }
                if let index = soloBuyers.last {
                    let s = subscriptions[index]
                    presentation(
                        s.user, at: s.startAt - random.between(0, 24 * hour),
                        placement: random.pick(Self.latePlacements),
                        into: &b)
                }
                if let index = aliasBuyers.first(where: { stored.contains($0) }) {
                    aliasBuyers.removeAll { $0 == index }
                    let s = subscriptions[index]
                    let named = random.pick([s.originalUser!] + s.aliases)
                    presentation(
                        named, at: s.startAt - random.between(minute, 48 * hour),
                        placement: random.pick(Self.latePlacements), into: &b)
                }
                b.kinds.insert(5)
            }
            if !storedPresentations.isEmpty {
                // 6: a late event earlier than a stored presentation's first, at another placement (its
                // day, placement and perhaps its impression and offering change): one a purchase was
                // made after, and any one …
                let boughtFrom = storedPresentations.filter { index in
                    let p = presentations[index]
                    return stored.contains {
                        subscriptions[$0].user == p.user && subscriptions[$0].after == p.impressionAt
                    }
                }
                let targets = [
                    boughtFrom.isEmpty ? random.pick(storedPresentations) : random.pick(boughtFrom),
                    random.pick(storedPresentations),
                ]
                for index in targets where !forgotten.contains(presentations[index].user) {
                    let p = presentations[index]
                    let at = p.firstAt - random.between(minute, 30 * hour)
                    let source = random.pick(Self.placements.filter { $0 != p.placement })
                    switch random.below(3) {
                    case 0:
                        b.paywall.append(
                            ReportFixture.shown(
                                eventID(), at, p.user, p.pw, source, offering: random.pick(Self.offerings)))
                        presentations[index].impressionAt = at
                    case 1:
                        b.paywall.append(
                            ReportFixture.step(eventID(), "paywall_plan_selected", at, p.user, p.pw, source, "pro"))
                    default:
                        b.paywall.append(
                            ReportFixture.closed(eventID(), at, p.user, p.pw, source, "dismissed", "gesture", 1))
                    }
                    presentations[index].firstAt = at
                    presentations[index].placement = source
                }
                // … and a late impression of a presentation that had none
                if let late = impressionless.first(where: { !forgotten.contains(presentations[$0].user) }) {
                    impressionless.removeAll { $0 == late }
                    let p = presentations[late]
                    b.paywall.append(
                        ReportFixture.shown(
                            eventID(), p.firstAt + 500, p.user, p.pw, p.placement, offering: random.pick(Self.offerings)
                        ))
                    presentations[late].impressionAt = p.firstAt + 500
                }
                b.kinds.insert(6)
            }
            // 7: sandbox and TEST events, events without a transaction, stamped after the clock or not at all
            let someone = random.pick(customers)
            b.subscription += [
                SubscriptionFixture.Event(
                    id: subscriptionID(), type: "INITIAL_PURCHASE", transaction: "sandbox\(nextTransaction)",
                    at: t - random.between(hour, 20 * hour), user: someone, environment: "SANDBOX",
                    purchasedAt: t - 20 * hour, price: 9_990_000),
                SubscriptionFixture.Event(
                    id: subscriptionID(), type: "TEST", transaction: nil, at: t - random.between(0, 20 * hour),
                    user: someone),
                SubscriptionFixture.Event(
                    id: subscriptionID(), type: random.pick(["BILLING_ISSUE", "TRANSFER", "SUBSCRIBER_ALIAS"]),
                    transaction: nil, at: t - random.between(0, 20 * hour), user: someone, environment: nil),
            ]
            if let s = stored.first.map({ subscriptions[$0] }) {
                // stamped a day or two after this round's clock (after it, as-of passes it), and unstamped
                renewal(s, at: t + random.between(hour, 2 * day), conversion: false, into: &b)
                renewal(s, at: nil, conversion: false, into: &b)
            }
            if !sampleTransferSent {
                sampleTransferSent = true
                b.subscription.append(
                    SubscriptionFixture.Event(
                        id: subscriptionID(), type: "TRANSFER", transaction: nil, at: 78_767_000_000_000,
                        user: "sample"))
            }
            b.kinds.insert(7)
            return b
        }

        func isForgotten(_ s: Subscription) -> Bool {
            ([s.user] + (s.originalUser.map { [$0] } ?? []) + s.aliases).contains { forgotten.contains($0) }
        }

        /// Picks the customers `forget --user` erases: a buyer with presentations and purchases, and
        /// the original id of an alias buyer; the generator names them nowhere from here on. None of
        /// `keep` (the customers of the newest stored rows: the fixtures insert without the floor the
        /// store's writers keep above erased rowids, so erasing the newest rows would let new events
        /// reuse rowids below the reports' watermark, which the store never does).
        mutating func forgetSome(keep: Set<String>) -> [String] {
            let buyers = subscriptions.filter {
                customers.contains($0.user) && !isForgotten($0) && !keep.contains($0.user)
            }.map(\.user)
            var ids = [buyers.first ?? customers.first { !keep.contains($0) }!]
            if let alias = subscriptions.first(where: {
                $0.originalUser != nil && !isForgotten($0) && !keep.contains($0.user)
                    && !keep.contains($0.originalUser!)
                    && !$0.aliases.contains(where: keep.contains)
            }) {
                ids.append(alias.originalUser!)
            }
            forgotten += ids
            customers.removeAll { ids.contains($0) }
            let gone = Set(subscriptions.indices.filter { isForgotten(subscriptions[$0]) })
            aliasBuyers.removeAll { gone.contains($0) }
            return ids
        }
    }

    /// One round of a scenario: what happens before its nightly run and how that run is called.
    struct Round {
        /// Which of a round's events wait for the next round (they arrive late there).
        enum Held { case none, subscription, paywall }

        var advance: ClosedRange<Int64>
        var empty = false
        var held = Held.none
        var forget = false
        var rangeReportFirst = false
        var days: Int? = 10
        var timezone = "UTC"
    }

    /// Eight rounds; between them the clock moves by hours or days. Round 1 stores only its paywall
    /// events (its subscription events come with round 2's), round 5 only its subscription events.
    static let rounds: [Round] = [
        Round(advance: 0...0),
        Round(advance: (3 * hour)...(10 * hour), held: .subscription),
        Round(advance: (20 * hour)...(30 * hour), rangeReportFirst: true),
        Round(advance: (10 * hour)...(20 * hour), empty: true),
        Round(advance: (4 * day)...(6 * day), forget: true),
        Round(advance: (1 * day)...(2 * day), held: .paywall, days: 4),
        Round(advance: (2 * hour)...(8 * hour), rangeReportFirst: true, days: nil),
        Round(advance: (2 * day)...(4 * day), empty: true),
    ]

    /// The report files compared (every CSV and the page).
    static let files = ReportFile.all.map(\.fileName) + [HTMLReport.fileName]

    static func read(_ folder: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for file in files { out[file] = try String(contentsOfFile: "\(folder)/\(file)", encoding: .utf8) }
        return out
    }

    /// Expects `actual` to equal `expected` file for file, with a diff of each that differs; a file
    /// missing from `actual` is not compared.
    static func expectSame(
        _ actual: [String: String], _ expected: [String: String], _ what: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for file in files where actual[file] != expected[file] && actual[file] != nil {
            Issue.record(
                "\(what): \(file) differs\n\(unifiedDiff(expected: expected[file] ?? "", actual: actual[file] ?? ""))",
                sourceLocation: sourceLocation)
        }
    }

    /// The `revenue_usd` cells of `revenue.csv` that are not zero.
    static func moneyCells(_ revenue: String) -> [String] {
        revenue.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.compactMap { line in
            // the placement may be quoted with commas inside: revenue_usd is the third cell from the end
            let cells = line.components(separatedBy: ",")
            let cell = cells[cells.count - 3]
            return cell == "0.00" ? nil : cell
        }
    }

    /// The attributed starts (paid and trial) over the rows of `revenue.csv`.
    static func attributedStarts(_ revenue: String) -> Int {
        revenue.components(separatedBy: "\r\n").dropFirst().filter { !$0.isEmpty }.reduce(0) { total, line in
            let cells = line.components(separatedBy: ",")
            return total + (Int(cells[cells.count - 9]) ?? 0) + (Int(cells[cells.count - 8]) ?? 0)
        }
    }

    /// Runs `rounds` on one store with seed `seed`; returns, per round, the nightly's files.
    @discardableResult
    static func runScenario(seed: UInt64, rounds: [Round]) throws -> [[String: String]] {
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try SubscriptionFixture.openStore(path: folder.path("store"))
        // the same events, never reported on: a copy of it is a store whose first nightly recomputes all
        let twin = try SubscriptionFixture.openStore(path: folder.path("twin"))
        var traffic = Traffic(seed: seed)
        var now = ReportFixture.day1 + 3 * day + 5 * hour
        var outputs: [[String: String]] = []
        var forgotten: [String] = []
        var roundsWithMoney = 0
        var late = Batch()  // events a round held back
        var random = SplitMix64(state: seed ^ 0xA5A5)
        for (index, round) in rounds.enumerated() {
            now += random.between(round.advance.lowerBound, round.advance.upperBound)
            let what =
                "seed \(seed), round \(index) (now \(now), days \(round.days.map(String.init) ?? "all"), \(round.timezone))"
            if round.forget {
                let newest = Set(
                    try store.all("SELECT user_id FROM events WHERE seq = (SELECT max(seq) FROM events)") {
                        $0.string(at: 0) ?? ""
                    }
                        + store.all(
                            """
                            SELECT customer_key FROM subscription_customer_keys
                            WHERE event_rowid = (SELECT max(rowid) FROM subscription_events)
                            """
                        ) { $0.string(at: 0) ?? "" })
                let ids = traffic.forgetSome(keep: newest)
                forgotten += ids
                for connection in [store, twin] {
                    _ = try UserErasure(
                        store: EventStore(connection: connection, now: .constant(now)),
                        participants: [ReportErasure(), SubscriptionErasure()]
                    ).forget(ids)
                }
            }
            let batch = round.empty ? Batch() : traffic.batch(now: now)
            // every round that brings events holds every kind of change (the first: those needing no stored row)
            #expect(
                batch.kinds == (round.empty ? [] : index == 0 ? [1, 7] : Set(1...7)),
                "\(what): kinds of change \(batch.kinds.sorted())")
            let arriving = Batch(
                paywall: late.paywall + (round.held == .paywall ? [] : batch.paywall),
                subscription: late.subscription + (round.held == .subscription ? [] : batch.subscription))
            late = Batch(
                paywall: round.held == .paywall ? batch.paywall : [],
                subscription: round.held == .subscription ? batch.subscription : [])
            for connection in [store, twin] {
                try ReportFixture.insert(arriving.paywall, into: connection)
                try SubscriptionFixture.insert(arriving.subscription, into: connection)
            }
            if round.rangeReportFirst {
                // a range report folds the new events into the rollups before the nightly run does
                let utc = try DayCalendar(timeZone: "UTC")
                try FunnelReport(connection: store, now: .constant(now)).report(
                    from: utc.date(containing: now - 2 * day), to: utc.date(containing: now),
                    timezone: round.timezone, into: folder.path("interim"))
            }
            let run = try FunnelReport(connection: store, now: .constant(now))
                .nightly(into: folder.path("nightly"), days: round.days, timezone: round.timezone, version: "t")
            let nightly = try read(folder.path("nightly"))
            // The nightly kept its subscription state exact (it never had to rebuild it as inconsistent)
            #expect(
                try store.scalar("SELECT value FROM meta WHERE key = ?", [.text(ReportSchema.subscriptionRepairsKey)])
                    == nil, "\(what): the subscription state was found inconsistent and rebuilt")
            // Oracle 1: a range report over exactly the nightly's window, in its time zone
            try FunnelReport(connection: store, now: .constant(now)).report(
                from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), timezone: round.timezone,
                version: "t", into: folder.path("range"))
            expectSame(nightly, try read(folder.path("range")), "\(what): nightly against the range report")
            // Oracle 2: the first nightly run on a copy of the twin store
            let copy = folder.path("copy-\(index)")
            try twin.execute("VACUUM INTO '\(copy)'")
            let fresh = try SubscriptionFixture.openStore(path: copy)
            let freshRun = try FunnelReport(connection: fresh, now: .constant(now))
                .nightly(into: folder.path("fresh-\(index)"), days: round.days, timezone: round.timezone, version: "t")
            #expect(
                [freshRun.windowFrom, freshRun.windowTo] == [run.windowFrom, run.windowTo],
                "\(what): the windows differ")
            expectSame(nightly, try read(folder.path("fresh-\(index)")), "\(what): nightly against a first nightly")
            // Not vacuous: the window holds attributed starts (and, checked below, money), and erased
            // customers are nowhere
            #expect(attributedStarts(nightly["revenue.csv"] ?? "") > 0, "\(what): no attributed start in the window")
            if !moneyCells(nightly["revenue.csv"] ?? "").isEmpty { roundsWithMoney += 1 }
            for id in forgotten {
                for (file, text) in nightly where text.utf8.contains(id.utf8) {
                    Issue.record("\(what): the forgotten \(id) is in \(file)")
                }
                let runJSON = try String(contentsOfFile: folder.path("nightly/run.json"), encoding: .utf8)
                #expect(!runJSON.contains(id), "\(what): the forgotten \(id) is in run.json")
            }
            outputs.append(nightly)
        }
        #expect(roundsWithMoney >= rounds.count - 1, "seed \(seed): money in only \(roundsWithMoney) rounds")
        return outputs
    }

    @Test(arguments: Array(1...8))
    func everyNightlyRunsMoneyEqualsAFullRecompute(_ seed: Int) throws {
        let outputs = try Self.runScenario(seed: UInt64(seed), rounds: Self.rounds)
        // every round that brought events changed the money files
        for (index, round) in Self.rounds.enumerated().dropFirst() where !round.empty {
            let money = ["revenue.csv", "offering_comparison.csv", "data_quality.csv"]
            #expect(
                money.map { outputs[index][$0] } != money.map { outputs[index - 1][$0] },
                "seed \(seed), round \(index): the money did not change")
        }
    }

    @Test func thePageOfARunWithNothingNewFollowsItsWindow() throws {
        // Given one presentation and a nightly run over the trailing 10 days
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let store = try SubscriptionFixture.openStore(path: folder.path("store"))
        let d1 = ReportFixture.day1
        try ReportFixture.insert([ReportFixture.shown(1, d1 + hour, "c1x", 1, "onboarding")], into: store)
        try FunnelReport(connection: store, now: .constant(d1 + 2 * hour))
            .nightly(into: folder.path("nightly"), days: 10, version: "t")
        // When the next day's run finds no new event (its window moved by a day, its CSVs are the same)
        let run = try FunnelReport(connection: store, now: .constant(d1 + 26 * hour))
            .nightly(into: folder.path("nightly"), days: 10, version: "t")
        try FunnelReport(connection: store, now: .constant(d1 + 26 * hour)).report(
            from: try ReportDate(run.windowFrom), to: try ReportDate(run.windowTo), version: "t",
            into: folder.path("range"))
        let nightly = try Self.read(folder.path("nightly"))
        let range = try Self.read(folder.path("range"))
        for file in ReportFile.all.map(\.fileName) { #expect(nightly[file] == range[file], "\(file)") }
        // Then its page is the range report's (period 2026-10-24 to 2026-11-02, not the previous
        // window's 2026-10-23 to 2026-11-01), and run.json names the new window
        #expect(
            nightly[HTMLReport.fileName] == range[HTMLReport.fileName],
            "\(unifiedDiff(expected: range[HTMLReport.fileName] ?? "", actual: nightly[HTMLReport.fileName] ?? ""))")
        #expect(nightly[HTMLReport.fileName]?.contains("2026-10-24 to 2026-11-02") == true)
        #expect(run.outputsChanged)
        let record = try String(contentsOfFile: folder.path("nightly/run.json"), encoding: .utf8)
        #expect(record.contains("\"window_from\" : \"2026-10-24\""), "\(record)")
    }

    @Test func theNightlyFollowsAChangeOfTimeZoneLikeAFullRecompute() throws {
        var rounds = Array(Self.rounds.prefix(5))
        for (index, zone) in ["UTC", "America/New_York", "America/New_York", "Asia/Kolkata", "UTC"].enumerated() {
            rounds[index].timezone = zone
        }
        try Self.runScenario(seed: 5, rounds: rounds)
    }
}
