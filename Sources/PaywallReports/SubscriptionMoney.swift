import Foundation
import PaywallCore

/// What the attributed subscriptions of one (day, placement, offering) add up to: the unit the
/// revenue report, the offering comparison's money and the page's revenue trends are summed from.
/// Every field is a sum or a multiset, so cells add up in any order to the same values.
struct MoneyCell: Equatable {
    /// Paid starts and trial starts.
    var paid: Int64 = 0, trials: Int64 = 0
    /// Trials converted (a `RENEWAL` with `is_trial_conversion`).
    var conversions: Int64 = 0
    /// Refunds, and the revenue and proceeds sums, in micro-dollars.
    var refunds: Int64 = 0, revenue: Int64 = 0, proceeds: Int64 = 0
    /// The expiration times of the trials not converted that have one (a multiset): a trial is
    /// pending while its expiration is after the run's as-of time, which moves every run.
    var openTrials: [Int64] = []
    /// Per customer key: the revenue of their subscriptions here and how many there are.
    var customers: [Int64: CustomerMoney] = [:]

    /// One customer's subscriptions in a cell.
    struct CustomerMoney: Equatable {
        var revenue: Int64
        var subscriptions: Int64
    }

    /// What one subscription contributes.
    struct Contribution: Equatable {
        var customer: Int64
        var trial: Bool
        var converted: Bool
        var expirationAt: Int64?
        var refunds: Int64
        var revenue: Int64
        var proceeds: Int64
    }

    /// Whether nothing is left (every subscription removed).
    var isEmpty: Bool { paid == 0 && trials == 0 && customers.isEmpty }

    /// Adds one subscription.
    mutating func add(_ c: Contribution) {
        if c.trial {
            trials += 1
            if c.converted {
                conversions += 1
            } else if let expiration = c.expirationAt {
                openTrials.append(expiration)
            }
        } else {
            paid += 1
        }
        refunds += c.refunds
        revenue += c.revenue
        proceeds += c.proceeds
        customers[c.customer, default: CustomerMoney(revenue: 0, subscriptions: 0)].revenue += c.revenue
        customers[c.customer]!.subscriptions += 1
    }

    /// Takes one subscription back out (exactly what ``add(_:)`` put in); `false` when it was not in.
    mutating func remove(_ c: Contribution) -> Bool {
        guard var customer = customers[c.customer], customer.subscriptions > 0 else { return false }
        if c.trial {
            trials -= 1
            if c.converted {
                conversions -= 1
            } else if let expiration = c.expirationAt {
                guard let index = openTrials.firstIndex(of: expiration) else { return false }
                openTrials.swapAt(index, openTrials.count - 1)
                openTrials.removeLast()
            }
        } else {
            paid -= 1
        }
        refunds -= c.refunds
        revenue -= c.revenue
        proceeds -= c.proceeds
        customer.revenue -= c.revenue
        customer.subscriptions -= 1
        customers[c.customer] = customer.subscriptions == 0 ? nil : customer
        return true
    }

    /// Adds another cell.
    mutating func add(_ other: MoneyCell) {
        paid += other.paid
        trials += other.trials
        conversions += other.conversions
        refunds += other.refunds
        revenue += other.revenue
        proceeds += other.proceeds
        openTrials += other.openTrials
        for (customer, money) in other.customers {
            customers[customer, default: CustomerMoney(revenue: 0, subscriptions: 0)].revenue += money.revenue
            customers[customer]!.subscriptions += money.subscriptions
        }
    }

    /// Trials still pending at `asOf`.
    func pending(asOf: Int64) -> Int64 { Int64(openTrials.lazy.filter { $0 > asOf }.count) }
}

/// The subscription side of one report over its days: the money cells of each day, data quality's
/// subscription counts per day and the run's as-of time. A range report builds it from a full
/// ``SubscriptionAttribution``; the nightly job reads it from its ``SubscriptionState``. The two are
/// the same for the same store (the nightly equivalence tests hold it).
struct MoneyByDay {
    /// One cell of one day.
    struct Entry {
        var placement: String
        var offering: String
        var cell: MoneyCell
    }

    /// The report's days.
    let days: [ReportDay]
    /// Per day (index into ``days``): its cells.
    var cells: [[Entry]]
    /// Per day: production, unattributed and sandbox subscription events by their stamp.
    var stampCounts: [[Int64]]
    /// The run's as-of time.
    var asOf: Int64

    /// Empty days.
    init(days: [ReportDay], asOf: Int64) {
        self.days = days
        cells = [[Entry]](repeating: [], count: days.count)
        stampCounts = [[Int64]](repeating: [0, 0, 0], count: days.count)
        self.asOf = asOf
    }

    /// From a full attribution: each attributed subscription in its presentation's day, each stamp
    /// in its day.
    init(attribution: SubscriptionAttribution, days: [ReportDay]) {
        self.init(days: days, asOf: attribution.asOf)
        struct Key: Hashable {
            var placement: ExactText
            var offering: ExactText
        }
        var byDay = [[Key: MoneyCell]](repeating: [:], count: days.count)
        for s in attribution.subscriptions {
            guard let day = dayIndex(s.firstAt) else { continue }
            byDay[day][Key(placement: ExactText(s.placement), offering: ExactText(s.offering)), default: MoneyCell()]
                .add(
                    MoneyCell.Contribution(
                        customer: s.customer, trial: s.trial, converted: s.converted, expirationAt: s.expirationAt,
                        refunds: s.refunds, revenue: s.revenueMicros, proceeds: s.proceedsMicros))
        }
        for (day, cells) in byDay.enumerated() {
            self.cells[day] = cells.map {
                Entry(placement: $0.key.placement.text, offering: $0.key.offering.text, cell: $0.value)
            }
        }
        for (kind, stamps) in [attribution.productionStamps, attribution.unattributedStamps, attribution.sandboxStamps]
            .enumerated()
        {
            for stamp in stamps { if let day = dayIndex(stamp) { stampCounts[day][kind] += 1 } }
        }
    }

    /// The day (index into `days`) an instant falls on; `nil` outside the range.
    func dayIndex(_ ms: Int64) -> Int? {
        var (low, high) = (0, days.count)
        while low < high {
            let mid = (low + high) / 2
            if days[mid].endMs <= ms { low = mid + 1 } else { high = mid }
        }
        return low < days.count && days[low].startMs <= ms ? low : nil
    }
}

/// One day's money cells as the nightly job stores them (`report_money_days`), keyed by placement
/// key and offering bytes.
struct DayMoney: Equatable {
    /// A cell's key.
    struct Key: Hashable {
        var placementKey: Int64
        var offering: ExactText
    }

    var cells: [Key: MoneyCell] = [:]

    /// The stored form's first byte.
    static let format: UInt8 = 1

    /// The stored form: cells in key order (a cell's open trials and customers in the order the
    /// cell holds them: sorting a day's hundred thousand customers on every write cost more than
    /// the rest of the update).
    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.bytes.append(Self.format)
        writer.count(cells.count)
        for key in cells.keys.sorted(by: { ($0.placementKey, $0.offering) < ($1.placementKey, $1.offering) }) {
            let cell = cells[key]!
            writer.int(key.placementKey)
            writer.text(key.offering.text)
            for value in [cell.paid, cell.trials, cell.conversions, cell.refunds, cell.revenue, cell.proceeds] {
                writer.int(value)
            }
            writer.count(cell.openTrials.count)
            writer.raw(cell.openTrials)
            writer.count(cell.customers.count)
            for (customer, money) in cell.customers {
                writer.int(customer)
                writer.int(money.revenue)
                writer.int(money.subscriptions)
            }
        }
        return writer.bytes
    }

    /// Reads what ``encoded()`` wrote; `nil` for anything else.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        var reader = ByteReader(bytes: bytes)
        guard reader.byte() == Self.format, let count = reader.count() else { return nil }
        for _ in 0..<count {
            guard let placement = reader.int(), let offering = reader.text() else { return nil }
            var cell = MoneyCell()
            guard let paid = reader.int(), let trials = reader.int(), let conversions = reader.int(),
                let refunds = reader.int(), let revenue = reader.int(), let proceeds = reader.int(),
                let open = reader.count(), let openTrials = reader.raw(open, of: Int64.self),
                let customers = reader.count()
            else { return nil }
            (cell.paid, cell.trials, cell.conversions, cell.refunds, cell.revenue, cell.proceeds) = (
                paid, trials, conversions, refunds, revenue, proceeds
            )
            cell.openTrials = openTrials
            cell.customers.reserveCapacity(customers)
            for _ in 0..<customers {
                guard let customer = reader.int(), let revenue = reader.int(), let subscriptions = reader.int() else {
                    return nil
                }
                cell.customers[customer] = MoneyCell.CustomerMoney(revenue: revenue, subscriptions: subscriptions)
            }
            cells[Key(placementKey: placement, offering: ExactText(offering))] = cell
        }
        guard reader.atEnd else { return nil }
    }

    /// No cells.
    init() {}
}
