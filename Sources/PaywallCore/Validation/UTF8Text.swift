/// UTF-8 validation that works on every supported platform: `String(validating:as:)` where the
/// system has it (iOS 18, macOS 15 and later, Linux), a decode-and-compare elsewhere.
public enum UTF8Text {
    /// The text `bytes` encode, or `nil` when they are not valid UTF-8.
    public static func string<Bytes: Collection>(validating bytes: Bytes) -> String? where Bytes.Element == UInt8 {
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            return String(validating: bytes, as: UTF8.self)  // floors: ok
        }
        return stringByRoundTrip(validating: bytes)
    }

    /// The fallback below iOS 18 / macOS 15 (public so that tests on any system run it):
    /// decoding repairs invalid sequences with U+FFFD, so the bytes were valid exactly when the
    /// repaired text encodes back to them.
    public static func stringByRoundTrip<Bytes: Collection>(validating bytes: Bytes) -> String?
    where Bytes.Element == UInt8 {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.utf8.elementsEqual(bytes) ? text : nil
    }
}
