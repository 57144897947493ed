import Foundation

/// A wall-clock "now" in Unix milliseconds, injected wherever a timestamp is taken.
///
/// ```swift
/// let now = Now.system
/// let fixed = Now.constant(1_764_400_000_000)
/// ```
public struct Now: Sendable {
    /// Returns the current time in Unix milliseconds.
    public let milliseconds: @Sendable () -> Int64

    /// Creates a clock from a closure returning Unix milliseconds.
    public init(_ milliseconds: @escaping @Sendable () -> Int64) {
        self.milliseconds = milliseconds
    }

    /// The system wall clock.
    public static let system = Now { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// A clock that always returns `value`.
    public static func constant(_ value: Int64) -> Now { Now { value } }
}
