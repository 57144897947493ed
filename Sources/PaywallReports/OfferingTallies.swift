import PaywallCore

/// The offering comparison's accumulators for one report range (funnels.md "Offering comparison"):
/// per (placement, offering) the presentations with an impression, and the distinct customers and
/// converted customers as bitsets over the dense customer keys (a customer is counted once per
/// offering however many presentations or days it has, and in every offering it was seen with).
struct OfferingTallies {
    /// One (placement, offering)'s counts.
    struct Tally {
        var placement: Int
        var offering: Int
        var impressions: Int64 = 0
        var customers = CustomerBits()
        var converted = CustomerBits()
    }

    /// Customer keys below this get their bitset words up front (the store's largest key + 1).
    var customerCount = 0
    /// The offering names by the index the tallies hold.
    private(set) var names = OfferingNames()
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
                customers: CustomerBits(words: words), converted: CustomerBits(words: words)))
        slots[key] = tallies.count - 1
        return tallies.count - 1
    }

    /// Adds one presentation that has an impression.
    mutating func add<Details: PresentationDetails>(_ p: PresentationScan.ScannedPresentation, _ details: Details) {
        let offering = details.withOffering { names.index(bytes: $0) }
        let slot = slot(placement: p.placement, offering: offering)
        tallies[slot].impressions += 1
        tallies[slot].customers.insert(p.user)
        if p.result == .purchased { tallies[slot].converted.insert(p.user) }
    }

    /// Adds a day partial's counts (customers already distinct within the day).
    mutating func add(_ count: DayPartial.OfferingCount) {
        let slot = slot(placement: count.placement, offering: names.index(count.offering))
        tallies[slot].impressions += count.impressions
        tallies[slot].customers.insert(sorted: count.customers)
        tallies[slot].converted.insert(sorted: count.converted)
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

    /// Inserts a list of keys (a day partial's), sizing the words once for its largest (found, not
    /// taken from the end: a stored list is derived data, never trusted to be sorted).
    mutating func insert(sorted users: [UInt32]) {
        guard let largest = users.max() else { return }
        let needed = Int(largest >> 6) + 1
        if needed > words.count { words += repeatElement(0, count: needed - words.count) }
        words.withUnsafeMutableBufferPointer { words in
            users.withUnsafeBufferPointer { users in
                for user in users { words[Int(user >> 6)] |= 1 << UInt64(user & 63) }
            }
        }
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
