/// How long a string is, for the catalog's limits: its count of Unicode scalars (code points) and
/// its count of UTF-8 bytes. Every path counts the same way: the full validator, its fast path and
/// the presentation tracker. Not grapheme clusters (one "character" can hold any number of
/// combining marks, so a 64-character limit would let 800 KB through), not bytes alone (which would
/// make a limit mean 64 letters in English and 21 in Chinese).
///
/// A string's limits in the catalog: `min_length` and `max_length` count Unicode scalars, and
/// `max_bytes` caps the UTF-8 bytes.
///
/// ```swift
/// TextLength("cafe\u{301}")   // scalars 5, bytes 6
/// ```
public struct TextLength: Sendable, Equatable {
    /// Unicode scalars.
    public var scalars: Int
    /// UTF-8 bytes.
    public var bytes: Int

    /// The length of `text`.
    public init(_ text: String) {
        bytes = text.utf8.count
        scalars = text.unicodeScalars.count
    }

    /// The length of valid UTF-8 `bytes` (scalars are the bytes that do not continue a sequence).
    public init(utf8 bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes.count
        var continuations = 0
        for byte in bytes where byte & 0xC0 == 0x80 { continuations += 1 }
        scalars = bytes.count - continuations
    }

    /// Creates a length from its counts.
    public init(scalars: Int, bytes: Int) {
        self.scalars = scalars
        self.bytes = bytes
    }
}

extension PropertySpec {
    /// The limit a string of `length` breaks, as (rule, message), or `nil` when it is within
    /// `min_length`, `max_length` (Unicode scalars) and `max_bytes` (UTF-8 bytes).
    public func lengthProblem(_ length: TextLength) -> (rule: String, message: String)? {
        if let low = minLength, length.scalars < low {
            return (
                "min_length",
                low == 1
                    ? "must not be empty" : "must be at least \(low) Unicode scalars (this one has \(length.scalars))"
            )
        }
        if let high = maxLength, length.scalars > high {
            return ("max_length", "must be at most \(high) Unicode scalars (this one has \(length.scalars))")
        }
        if let cap = maxBytes, length.bytes > cap {
            return ("max_bytes", "must be at most \(cap) bytes of UTF-8 (this one has \(length.bytes))")
        }
        return nil
    }
}
