import Foundation

/// A seeded, reproducible random number generator (SplitMix64): the same seed gives the same
/// population on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `true` with probability `p`.
    public mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }

    /// A uniform value in `range`.
    public mutating func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &self) }

    /// An exponentially distributed value with the given mean.
    public mutating func exponential(mean: Double) -> Double {
        -mean * log1p(-Double.random(in: 0..<1, using: &self))
    }

    /// One of `items`, chosen with the given weights.
    public mutating func weighted<T>(_ items: [(T, Double)]) -> T {
        let total = items.reduce(0) { $0 + $1.1 }
        var pick = Double.random(in: 0..<total, using: &self)
        for (item, weight) in items {
            if pick < weight { return item }
            pick -= weight
        }
        return items[items.count - 1].0
    }
}
