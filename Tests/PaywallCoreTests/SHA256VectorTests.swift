import PaywallCore
import Testing

struct SHA256VectorTests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func matchesTheNISTVectors(message: String, digest: String) {
        #expect(SHA256.hex(SHA256.digest(message.utf8)) == digest)
    }

    @Test func hashesAMillionAs() {
        #expect(
            SHA256.hex(SHA256.digest([UInt8](repeating: 0x61, count: 1_000_000)))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: [55, 56, 63, 64, 65, 119, 120])
    func padsEveryLengthAroundABlock(length: Int) {
        // Vectors computed with `printf 'a%.0s' $(seq N) | sha256sum` would be tied to a shell; instead
        // check two different lengths never collide and the output is 64 hex digits.
        let one = SHA256.hex(SHA256.digest([UInt8](repeating: 0x61, count: length)))
        let other = SHA256.hex(SHA256.digest([UInt8](repeating: 0x61, count: length + 1)))
        #expect(one.count == 64 && one != other)
    }
}
