import PaywallCore

/// The offering comparison's accumulators for one report range (funnels.md "Offering comparison"):
/// per (placement, offering) the presentations with an impression, and the distinct customers and
/// converted customers as bitsets over the dense customer keys (a customer is counted once per
/// offering however many presentations or days it has, and in every offering it was seen with).
///
/// The customers arrive per report day (a scan's presentations, a day partial's sorted lists) and
/// are kept as that day's lists until ``finish()`` walks the days in order, OR-ing each day's lists
/// into the running bitsets and counting after each day: the bitsets end as the range's (the
/// comparison's counts), and each day the offering was seen gets a ``Point`` of the counts so far
/// (the page's offering trends). Design note: the walk does the bitset inserts the merge did
/// before, once, in day order instead of merge order (the background load and the rescanned days
/// arrive out of order), so the trends cost the nightly job no read and no second pass; keeping the
/// lists until the walk holds a partial's offering arrays a little longer (they are shared, not
/// copied) and, in a scan, one customer key per presentation with an impression.
struct OfferingTallies {
    /// One (placement, offering)'s counts.
    struct Tally {
        var placement: Int
        var offering: Int
        var impressions: Int64 = 0
        /// The range's customers and converted customers (complete after ``OfferingTallies/finish()``).
        var customers = CustomerBits()
        var converted = CustomerBits()
        /// Per report day, until ``OfferingTallies/finish()``: the customers seen and converted that
        /// day (a scan's with repeats, a partial's sorted and distinct).
        var dayCustomers: [[UInt32]] = []
        var dayConverted: [[UInt32]] = []
        /// After ``OfferingTallies/finish()``: one point per day the offering was seen, in day order.
        var points: [Point] = []
    }

    /// The counts from the range's first day through the end of day `day` (an index into the
    /// report's days): the distinct customers who saw the offering on those days, and those of
    /// them with a `purchased` close on one of those presentations.
    struct Point: Equatable {
        var day: Int
        var customers: Int64
        var converted: Int64
    }

    /// Customer keys below this get their bitset words up front (the store's largest key + 1).
    var customerCount = 0
    /// The number of report days (the day indexes ``add(_:_:day:)`` and ``add(_:day:)`` take).
    var dayCount = 0
    /// The offering names by the index the tallies hold (set only by a scan that looked them up
    /// elsewhere, ``PresentationScan/scanOnTwoThreads(_:)``).
    var names = OfferingNames()
    /// Every tally, in order of first appearance.
    private(set) var tallies: [Tally] = []
    private var slots: [Int: Int] = [:]  // placement << 32 | offering index → index into tallies

    /// The tally of `placement` and offering index `offering`, created when missing.
    private mutating func slot(placement: Int, offering: Int) -> Int {
        let key = placement << 32 | offering
        if let slot = slots[key] { return slot }
        let words = (customerCount + 63) / 64
        tallies.append(
            Tally(
                placement: placement, offering: offering,
                customers: CustomerBits(words: words), converted: CustomerBits(words: words),
                dayCustomers: Array(repeating: [], count: dayCount),
                dayConverted: Array(repeating: [], count: dayCount)))
        slots[key] = tallies.count - 1
        return tallies.count - 1
    }

    /// Adds one presentation that has an impression, whose first event is on report day `day`.
    mutating func add<Details: PresentationDetails>(
        _ p: PresentationScan.ScannedPresentation, _ details: Details, day: Int
    ) {
        add(p, offering: details.withOffering { names.index(bytes: $0) }, day: day)
    }

    /// ``add(_:_:day:)`` with the offering's index in ``names`` already looked up (by the reading
    /// thread of ``PresentationScan/scanOnTwoThreads(_:)``, which keeps the names meanwhile).
    mutating func add(_ p: PresentationScan.ScannedPresentation, offering: Int, day: Int) {
        let slot = slot(placement: p.placement, offering: offering)
        tallies[slot].impressions += 1
        reserve(day: day, slot: slot)
        tallies[slot].dayCustomers[day].append(p.user)
        if p.result == .purchased { tallies[slot].dayConverted[day].append(p.user) }
    }

    /// Adds a day partial's counts (customers already distinct within the day) for report day `day`.
    /// The partial's lists are kept as they are (shared, not copied) until ``finish()``.
    mutating func add(_ count: DayPartial.OfferingCount, day: Int) {
        let slot = slot(placement: count.placement, offering: names.index(count.offering))
        tallies[slot].impressions += count.impressions
        reserve(day: day, slot: slot)
        Self.keep(count.customers, in: &tallies[slot].dayCustomers[day])
        Self.keep(count.converted, in: &tallies[slot].dayConverted[day])
    }

    /// Room for day `day` in the tally's day lists (they are sized by ``dayCount`` when created).
    private mutating func reserve(day: Int, slot: Int) {
        let missing = day + 1 - tallies[slot].dayCustomers.count
        guard missing > 0 else { return }
        tallies[slot].dayCustomers += repeatElement([], count: missing)
        tallies[slot].dayConverted += repeatElement([], count: missing)
    }

    /// `list` kept for its day: shared when the day has nothing yet (a day's partial comes once).
    private static func keep(_ list: [UInt32], in day: inout [UInt32]) {
        if day.isEmpty { day = list } else { day += list }
    }

    /// Walks every tally's days in order, OR-ing each day's customers into the range's bitsets and
    /// counting after each day the offering was seen (``Tally/points``); frees the day lists. Call
    /// it once, after the last add and before reading the bitsets.
    mutating func finish() {
        for slot in tallies.indices {
            var tally = tallies[slot]
            // `tally` becomes its bitsets' only owner, so the inserts below copy nothing.
            tallies[slot] = Tally(placement: tally.placement, offering: tally.offering)
            var customers: Int64 = 0
            var converted: Int64 = 0
            for day in tally.dayCustomers.indices where !tally.dayCustomers[day].isEmpty {
                customers += tally.customers.insertCounting(tally.dayCustomers[day])
                converted += tally.converted.insertCounting(tally.dayConverted[day])
                tally.points.append(Point(day: day, customers: customers, converted: converted))
            }
            tally.dayCustomers = []
            tally.dayConverted = []
            tallies[slot] = tally
        }
    }
}

/// A set of customer keys as bits.
struct CustomerBits {
    private(set) var words: [UInt64]

    init(words: Int = 0) { self.words = [UInt64](repeating: 0, count: words) }

    mutating func insert(_ user: UInt32) {
        let word = Int(user >> 6)
        if word >= words.count { words += repeatElement(0, count: max(word + 1, words.count * 2) - words.count) }
        words[word] |= 1 << UInt64(user & 63)
    }

    /// Inserts a list of keys (a day's, in any order, repeats allowed), sizing the words once for its
    /// largest (found, not taken from the end: a stored list is derived data, never trusted to be
    /// sorted); returns how many were not in the set before.
    @discardableResult
    mutating func insertCounting(_ users: [UInt32]) -> Int64 {
        guard let largest = users.max() else { return 0 }
        let needed = Int(largest >> 6) + 1
        if needed > words.count { words += repeatElement(0, count: needed - words.count) }
        var added: Int64 = 0
        words.withUnsafeMutableBufferPointer { words in
            users.withUnsafeBufferPointer { users in
                for user in users {
                    let bit: UInt64 = 1 << UInt64(user & 63)
                    let word = words[Int(user >> 6)]
                    added &+= Int64(truncatingIfNeeded: (~word & bit) >> UInt64(user & 63))
                    words[Int(user >> 6)] = word | bit
                }
            }
        }
        return added
    }

    /// The number of customers in the set.
    var count: Int64 { words.reduce(0) { $0 + Int64($1.nonzeroBitCount) } }
}

/// Dense indexes for offering names, looked up from a row's bytes without a `String` per row
/// (a placement has a few offerings; past 16 names a dictionary takes over). Names are told apart
/// by their bytes (code points), never by Swift's canonical equivalence, as SQL tells them apart.
struct OfferingNames {
    private(set) var names: [String] = []
    private var bytes: [[UInt8]] = []
    private var indexes: [[UInt8]: Int] = [:]

    mutating func index(bytes text: UnsafeRawBufferPointer) -> Int {
        if names.count <= 16 {
            for (index, name) in bytes.enumerated() where name.count == text.count && text.elementsEqual(name) {
                return index
            }
            if names.count < 16 { return append(Array(text)) }
        }
        return index(utf8: Array(text))
    }

    mutating func index(_ name: String) -> Int { index(utf8: Array(name.utf8)) }

    private mutating func index(utf8: [UInt8]) -> Int {
        if let index = indexes[utf8] { return index }
        return append(utf8)
    }

    private mutating func append(_ utf8: [UInt8]) -> Int {
        names.append(String(decoding: utf8, as: UTF8.self))
        bytes.append(utf8)
        indexes[utf8] = names.count - 1
        return names.count - 1
    }

    subscript(index: Int) -> String { names[index] }
}
