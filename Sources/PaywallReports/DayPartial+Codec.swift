import Foundation

/// The stored form of a ``DayPartial`` (the `partial` BLOB of `report_day_partials`): little-endian
/// fixed-width fields after a format byte (arrays of plain values are copied as they lie in memory;
/// every platform Swift runs this package on is little-endian). It is derived data: a blob this program cannot read is
/// recomputed from the rollups, never trusted.
extension DayPartial {
    /// The format written by ``encoded()``; bump it when the layout changes.
    static let format: UInt8 = 6

    /// The partial as bytes.
    func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.bytes.reserveCapacity(estimatedSize)
        out.bytes.append(Self.format)
        out.count(groups.count)
        for placement in groups.keys.sorted() {
            let s = groups[placement]!
            out.int(Int64(placement))
            out.counts(s)
        }
        out.count(products.count)
        for product in products {
            out.int(Int64(product.placement))
            out.count(product.product.utf8.count)
            out.bytes.append(contentsOf: product.product.utf8)
            out.int(product.count)
        }
        out.count(firsts.runs.count)
        for run in firsts.runs {
            out.uint32(run.placement)
            out.int(run.base)
            out.count(run.entries.count)
            out.raw(run.entries)
        }
        out.count(purchases.count)
        for purchase in purchases {
            out.uint32(purchase.user)
            out.int(purchase.at)
        }
        out.count(offerings.count)
        for offering in offerings {
            out.int(Int64(offering.placement))
            out.count(offering.offering.utf8.count)
            out.bytes.append(contentsOf: offering.offering.utf8)
            out.int(offering.impressions)
            out.count(offering.customers.count)
            out.raw(offering.customers)
            out.count(offering.converted.count)
            out.raw(offering.converted)
        }
        out.count(segments.count)
        for segment in segments {
            out.int(Int64(segment.placement))
            out.text(segment.platform)
            out.text(segment.appVersion)
            out.group(segment.stats)
        }
        return out.bytes
    }

    /// About the size of ``encoded()`` (its arrays), so the bytes are allocated once.
    private var estimatedSize: Int {
        let groupBytes = 128 * groups.count
        let segmentBytes = segments.reduce(0) { $0 + 160 + 4 * $1.stats.viewers.count + 8 * $1.stats.openS.count }
        let offeringBytes = offerings.reduce(0) { $0 + 64 + 4 * ($1.customers.count + $1.converted.count) }
        return 64 + groupBytes + segmentBytes + offeringBytes + 48 * products.count
            + 16 * firsts.runs.count + 8 * firsts.count + 12 * purchases.count
    }

    /// Reads ``encoded()`` bytes; `nil` for another format or damaged bytes.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        var input = ByteReader(bytes: bytes)
        guard input.byte() == Self.format else { return nil }
        var partial = DayPartial()
        guard let groupCount = input.count() else { return nil }
        for _ in 0..<groupCount {
            guard let placement = input.int(), let s = input.counts() else { return nil }
            partial.groups[Int(placement)] = s
        }
        guard let productCount = input.count() else { return nil }
        for _ in 0..<productCount {
            guard let placement = input.int(), let length = input.count(), let name = input.string(length),
                let count = input.int()
            else { return nil }
            partial.products.append(ProductCount(placement: Int(placement), product: name, count: count))
        }
        guard let runCount = input.count() else { return nil }
        var runs: [PackedFirsts.Run] = []
        for _ in 0..<runCount {
            guard let placement = input.uint32(), let base = input.int(), let entryCount = input.count(),
                let entries = input.raw(entryCount, of: UInt64.self)
            else { return nil }
            runs.append(PackedFirsts.Run(placement: placement, base: base, entries: entries))
        }
        guard let firsts = PackedFirsts(runs: runs) else { return nil }
        partial.firsts = firsts
        guard let purchaseCount = input.count() else { return nil }
        partial.purchases.reserveCapacity(purchaseCount)
        for _ in 0..<purchaseCount {
            guard let user = input.uint32(), let at = input.int() else { return nil }
            partial.purchases.append(Purchase(user: user, at: at))
        }
        guard let offeringCount = input.count() else { return nil }
        for _ in 0..<offeringCount {
            guard let placement = input.int(), let length = input.count(), let name = input.string(length),
                let impressions = input.int(), let customerCount = input.count(),
                let customers = input.raw(customerCount, of: UInt32.self), let convertedCount = input.count(),
                let converted = input.raw(convertedCount, of: UInt32.self)
            else { return nil }
            partial.offerings.append(
                OfferingCount(
                    placement: Int(placement), offering: name, impressions: impressions,
                    customers: customers, converted: converted))
        }
        guard let segmentCount = input.count() else { return nil }
        for _ in 0..<segmentCount {
            guard let placement = input.int(), let platform = input.text(), let appVersion = input.text(),
                let stats = input.group()
            else { return nil }
            partial.segments.append(
                SegmentGroup(placement: Int(placement), platform: platform, appVersion: appVersion, stats: stats))
        }
        guard input.atEnd else { return nil }
        self = partial
    }
}

extension ByteWriter {
    /// A group's 14 counts, then its viewers and its `open_s` values.
    mutating func group(_ s: PresentationScan.GroupStats) {
        counts(s)
        count(s.viewers.count)
        raw(s.viewers)
        count(s.openS.count)
        raw(s.openS)
    }

    /// A group's 14 counts only (a placement's group: its lists are its segments').
    mutating func counts(_ s: PresentationScan.GroupStats) {
        int(s.presentations)
        int(s.impressions)
        int(s.dwellBounces)
        int(s.planSelected)
        int(s.purchaseStarted)
        int(s.purchased)
        int(s.restored)
        int(s.dismissedCloseButton)
        int(s.dismissedContinueFree)
        int(s.unclosed)
        int(s.bounces)
        int(s.cancellations)
        int(s.dismissedGesture)
        int(s.abandoned)
    }

    /// A text: its UTF-8 length, then its bytes.
    mutating func text(_ value: String) {
        count(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
}

extension ByteReader {
    /// Reads what ``ByteWriter/group(_:)`` wrote.
    mutating func group() -> PresentationScan.GroupStats? {
        guard var s = counts() else { return nil }
        guard let viewers = count(), let viewerValues = raw(viewers, of: UInt32.self) else { return nil }
        s.viewers = viewerValues
        guard let opens = count(), let openValues = raw(opens, of: Double.self) else { return nil }
        s.openS = openValues
        return s
    }

    /// Reads what ``ByteWriter/counts(_:)`` wrote.
    mutating func counts() -> PresentationScan.GroupStats? {
        var s = PresentationScan.GroupStats()
        guard offset + 14 * 8 <= bytes.count else { return nil }  // the 14 counts, in the order written
        s.presentations = int()!
        s.impressions = int()!
        s.dwellBounces = int()!
        s.planSelected = int()!
        s.purchaseStarted = int()!
        s.purchased = int()!
        s.restored = int()!
        s.dismissedCloseButton = int()!
        s.dismissedContinueFree = int()!
        s.unclosed = int()!
        s.bounces = int()!
        s.cancellations = int()!
        s.dismissedGesture = int()!
        s.abandoned = int()!
        return s
    }

    /// Reads what ``ByteWriter/text(_:)`` wrote.
    mutating func text() -> String? {
        guard let length = count() else { return nil }
        return string(length)
    }
}

/// Appends little-endian integers to a byte array.
struct ByteWriter {
    var bytes: [UInt8] = []

    /// Appends the memory of `values` as it is (plain fixed-width values on a little-endian machine).
    mutating func raw<T: BitwiseCopyable>(_ values: [T]) {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func uint32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func count(_ value: Int) { uint32(UInt32(value)) }
}

/// Reads what ``ByteWriter`` wrote; every read returns `nil` past the end.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    var atEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int() -> Int64? {
        guard offset + 8 <= bytes.count else { return nil }
        defer { offset += 8 }
        return Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Int64.self))
    }

    mutating func uint32() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func count() -> Int? { uint32().map(Int.init) }

    /// Reads `count` values written by ``ByteWriter/raw(_:)``.
    mutating func raw<T: BitwiseCopyable>(_ count: Int, of type: T.Type) -> [T]? {
        let length = count * MemoryLayout<T>.stride
        guard count >= 0, offset + length <= bytes.count else { return nil }
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]))
            initialized = count
        }
        offset += length
        return values
    }

    mutating func string(_ length: Int) -> String? {
        guard length >= 0, offset + length <= bytes.count else { return nil }
        defer { offset += length }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
    }
}
