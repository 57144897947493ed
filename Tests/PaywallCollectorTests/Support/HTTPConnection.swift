import Foundation

/// A response as read off the wire.
struct HTTPReply: Sendable {
    var status: Int
    /// Header names lowercased.
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as a JSON object.
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
}

/// A raw TCP connection to 127.0.0.1 speaking HTTP by hand, so tests control every byte: HTTP/1.0,
/// pipelining, chunked bodies, `Expect: 100-continue`, slow senders.
final class HTTPConnection: @unchecked Sendable {
    let descriptor: Int32
    private var buffer: [UInt8] = []

    init(port: Int, receiveTimeout: Int = 60) throws {
        // Connected before `descriptor` is stored: an initializer that throws once every stored
        // property is set runs `deinit`, which would close the descriptor a second time, and by
        // then another thread may have been given the same number (a launch of a child then fails
        // with "Bad file descriptor" when its pipe is closed under it).
        // Close-on-exec, so that no child started meanwhile inherits the connection.
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [NSLocalizedDescriptionKey: "socket failed: \(String(cString: strerror(errno)))"])
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else {
            let message = String(cString: strerror(errno))
            Foundation.close(descriptor)
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "connect failed: \(message)"])
        }
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { Foundation.close(descriptor) }

    func close() { shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Writes all of `bytes`; `false` when the peer has closed.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Foundation.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        if count < 0 {
            throw CocoaError(
                .fileReadUnknown,
                userInfo: [NSLocalizedDescriptionKey: "recv failed: \(String(cString: strerror(errno)))"])
        }
        if count == 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    /// Bytes received and not yet read as a response (after ``waitForClose()``: everything else the
    /// server sent on this connection).
    var unread: [UInt8] { buffer }

    /// Whether the server closed the connection: reads until end of stream (or the receive timeout).
    func waitForClose() -> Bool {
        while true {
            guard let more = try? fill() else { return false }
            if !more { return true }
        }
    }

    /// Reads one response (Content-Length or chunked body, or to the end for a body-less close).
    func readResponse() throws -> HTTPReply {
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = buffer.indices.dropLast(3).first {
                buffer[$0] == 13 && buffer[$0 + 1] == 10 && buffer[$0 + 2] == 13 && buffer[$0 + 3] == 10
            }
            if headerEnd == nil, try !fill() {
                throw CocoaError(
                    .fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "connection closed before a response"])
            }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self).components(separatedBy: "\r\n")
        buffer.removeFirst(headerEnd! + 4)
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        if status == 100 { return HTTPReply(status: status, headers: headers, body: []) }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while buffer.count < length { if try !fill() { break } }
        let body = Array(buffer.prefix(length))
        buffer.removeFirst(min(length, buffer.count))
        return HTTPReply(status: status, headers: headers, body: body)
    }
}

/// Builds request bytes.
enum HTTPRequestText {
    static func make(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: [UInt8] = [],
        version: String = "HTTP/1.1", contentLength: Bool = true
    ) -> [UInt8] {
        var text = "\(method) \(path) \(version)\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        if contentLength, !body.isEmpty || method == "POST" { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return Array(text.utf8) + body
    }
}
