import PaywallCore
import Testing

struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(input: String, digest: String) {
        #expect(SHA256.hex(SHA256.digest(input.utf8)) == digest)
    }

    @Test func aMillionAsFedInUnevenPiecesMatchesTheStandardVector() {
        // Given one million "a" fed in pieces of 1, 63, 64, 65, … bytes
        var hash = SHA256()
        var left = 1_000_000
        var size = 1
        while left > 0 {
            let piece = [UInt8](repeating: UInt8(ascii: "a"), count: min(size, left))
            hash.update(piece)
            left -= piece.count
            size = size * 7 % 1000 + 1
        }
        // Then the digest is FIPS 180-2's
        #expect(SHA256.hex(hash.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func everyLengthAroundTheBlockBoundaryHashesTheSameWholeAndSplit() {
        for length in 50...130 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            for cut in [0, 1, length / 2, length - 1, length] {
                var hash = SHA256()
                hash.update(Array(bytes[..<cut]))
                hash.update(Array(bytes[cut...]))
                #expect(hash.finalize() == SHA256.digest(bytes), "length \(length) cut \(cut)")
            }
        }
    }
}
