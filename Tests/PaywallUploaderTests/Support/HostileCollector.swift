import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A collector stand-in on 127.0.0.1 that answers each upload the way a hostile or broken
/// endpoint would, written on a raw socket so every byte and its timing are the test's: counts
/// that overflow, an answer of 2 GiB, an endless chunked answer, one byte a second, escape
/// sequences. It counts what it received and sent.
final class HostileCollector: @unchecked Sendable {
    /// How to answer.
    enum Mode: Sendable {
        /// 200 with counts whose sum passes `Int.max`.
        case overflow
        /// 200 announcing 2 GiB, then spaces for as long as the client reads.
        case huge
        /// 200 chunked, 64 KiB chunks for as long as the client reads, never ended.
        case endless
        /// A correct-looking 200 answer sent one byte a second.
        case trickle
        /// 503 whose body holds terminal escape sequences.
        case escapes
        /// The first request accepted (counts of its plain body's lines), every later one 401.
        case acceptOnceThenRefuse
    }

    // @unchecked Sendable: the counters are read and written under `lock`; `listener` and `mode`
    // are constants.
    let mode: Mode
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var sentBytes = 0
    private var requestLines: [String] = []
    private var stopped = false

    /// The body `escapes` sends.
    static let escapeBody =
        "{\"error\":\"\u{1B}]0;PWNED\u{07}\u{1B}[31mred\u{1B}[0m \u{1B}[2K\u{1B}[1A fake: uploaded 1000\r\u{9B}2J\u{202E}\"}"

    init(mode: Mode) throws {
        self.mode = mode
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot listen"])
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    var endpoint: String { "http://127.0.0.1:\(port)" }

    /// Bytes written to clients so far.
    var sent: Int { lock.withLock { sentBytes } }

    /// The request lines received (`POST /v1/events HTTP/1.1`).
    var requests: [String] { lock.withLock { requestLines } }

    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let thread = Thread { [self] in serve(client) }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        while let (requestLine, body) = readRequest(client) {
            let number = lock.withLock {
                requestLines.append(requestLine)
                return requestLines.count
            }
            if mode == .acceptOnceThenRefuse {
                let answer =
                    number == 1
                    ? "{\"accepted\":\(body.filter { $0 == 0x0A }.count),\"duplicates\":0,\"quarantined\":0}"
                    : "{\"error\":\"the write key is unknown or revoked\"}"
                let status = number == 1 ? "200 OK" : "401 Unauthorized"
                guard write(client, "HTTP/1.1 \(status)\r\nContent-Length: \(answer.utf8.count)\r\n\r\n\(answer)")
                else { return }
                continue
            }
            answer(client)
            return
        }
    }

    private func answer(_ client: Int32) {
        switch mode {
        case .overflow:
            let body = "{\"accepted\":9223372036854775807,\"duplicates\":1,\"quarantined\":0}"
            _ = write(
                client,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
        case .huge:
            guard
                write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2147483648\r\n\r\n")
            else { return }
            let spaces = String(repeating: " ", count: 65_536)
            while write(client, spaces) {}
        case .endless:
            guard
                write(client, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            else { return }
            let chunk = "10000\r\n" + String(repeating: " ", count: 65_536) + "\r\n"
            while write(client, chunk) {}
        case .trickle:
            let body = "{\"accepted\":1,\"duplicates\":0,\"quarantined\":0," + String(repeating: " ", count: 200) + "}"
            guard
                write(
                    client,
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            else { return }
            for byte in body {
                if !write(client, String(byte)) { return }
                sleep(1)
            }
        case .escapes:
            let body = Self.escapeBody
            _ = write(
                client,
                "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            )
        case .acceptOnceThenRefuse:
            break
        }
    }

    /// Reads one request's head and its Content-Length body; returns the request line and the body.
    private func readRequest(_ client: Int32) -> (String, [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let end = buffer.indices.dropLast(3).first(where: {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                let lines = head.components(separatedBy: "\r\n")
                let length =
                    lines.first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
                while buffer.count < end + 4 + length {
                    let count = recv(client, &chunk, chunk.count, 0)
                    if count <= 0 { return nil }
                    buffer += chunk[0..<count]
                }
                guard let first = lines.first else { return nil }
                return (first, Array(buffer[(end + 4)..<(end + 4 + length)]))
            }
            let count = recv(client, &chunk, chunk.count, 0)
            if count <= 0 { return nil }
            buffer += chunk[0..<count]
        }
    }

    /// Writes all of `text`; false once the client is gone.
    private func write(_ client: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
            lock.withLock { sentBytes += written }
        }
        return true
    }
}
