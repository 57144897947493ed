import Foundation
import PaywallLock

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the stand-in answers one request.
public indirect enum StandInResponse: Sendable, Equatable {
    /// A complete response with this status, body and extra headers.
    case status(Int, body: String = "{}", headers: [String: String] = [:])
    /// `response`, after waiting `delay` (longer than the client timeout makes it a timeout).
    case delayed(Duration, StandInResponse)
    /// Close the connection without answering.
    case hangUp
    /// Send a status line and headers promising a longer body, part of the body, then close.
    case closeMidResponse
    /// Send bytes that are not an HTTP response, then close.
    case malformed

    /// `200 {}`.
    public static let accepted = StandInResponse.status(200)

    /// A response with a `Retry-After` header.
    public static func retryAfter(_ value: String, status: Int = 429) -> StandInResponse {
        .status(status, body: "{\"code\":7638,\"message\":\"rate limited\"}", headers: ["Retry-After": value])
    }

    /// Whether this response, once sent, tells the client the request succeeded.
    var isCompleteSuccess: Bool {
        switch self {
        case .status(let code, _, _): (200..<300).contains(code)
        case .delayed(_, let inner): inner.isCompleteSuccess
        default: false
        }
    }
}

/// A minimal HTTP/1.1 server on 127.0.0.1 with an ephemeral port: one thread accepts, one
/// thread per connection serves requests with keep-alive. POSIX sockets only.
///
/// All mutable state is in `state` (a `Lock`); the handler runs on connection threads.
final class LoopbackHTTPServer: Sendable {
    /// The port the server listens on.
    let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (ReceivedHTTPRequest) -> StandInResponse
    private let state = Lock((stopped: false, connections: Set<Int32>()))
    private let traffic = Lock((connections: 0, bytes: 0))

    /// Connections accepted and bytes received so far, whatever they held (parsed or not).
    var received: (connections: Int, bytes: Int) { traffic.withLock { ($0.connections, $0.bytes) } }

    /// Binds and starts accepting.
    /// - Throws: ``StandInError`` when a socket call fails.
    init(handler: @escaping @Sendable (ReceivedHTTPRequest) -> StandInResponse) throws {
        self.handler = handler
        #if canImport(Darwin)
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw StandInError.socket(call: "socket", errno: errno) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        #if canImport(Darwin)
            address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 128) == 0 else {
            let code = errno
            close(fd)
            throw StandInError.socket(call: "bind/listen", errno: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.listener = fd
        self.port = UInt16(bigEndian: address.sin_port)
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "stand-in-accept"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting, closes every connection and wakes delayed responses.
    func stop() {
        let connections = state.withLock { state -> Set<Int32>? in
            if state.stopped { return nil }
            state.stopped = true
            return state.connections
        }
        guard let connections else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR && !isStopped { continue }
                break
            }
            let admitted = state.withLock { state -> Bool in
                if state.stopped { return false }
                state.connections.insert(fd)
                return true
            }
            guard admitted else {
                close(fd)
                break
            }
            traffic.withLock { $0.connections += 1 }
            var yes: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
                setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            let thread = Thread { [self] in serve(fd) }
            thread.name = "stand-in-connection"
            thread.start()
        }
        close(listener)
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLock { _ = $0.connections.remove(fd) }
            close(fd)
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var continueSent = false
        while true {
            switch HTTPRequestParser.parse(buffer) {
            case .invalid:
                _ = write(Self.render(.status(400, body: "{\"message\":\"bad request\"}")).bytes, to: fd)
                return
            case .complete(let request, let consumed):
                buffer.removeFirst(consumed)
                continueSent = false
                let response = handler(request)
                guard respond(response, to: fd) else { return }
                if request.header("Connection")?.lowercased() == "close" { return }
                continue
            case .incomplete:
                // libcurl (URLSession on Linux) sends `Expect: 100-continue` for bodies over 1 KiB
                // and waits for this interim response before sending the body.
                if !continueSent, HTTPRequestParser.expectsContinue(buffer) {
                    continueSent = true
                    guard write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), to: fd) else { return }
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                traffic.withLock { $0.bytes += count }
                buffer.append(contentsOf: chunk[0..<count])
            }
        }
    }

    /// Sends `response`; returns whether the connection stays usable.
    private func respond(_ response: StandInResponse, to fd: Int32) -> Bool {
        if case .delayed(let delay, let inner) = response {
            let deadline = ContinuousClock.now.advanced(by: delay)
            while ContinuousClock.now < deadline, !isStopped { Thread.sleep(forTimeInterval: 0.005) }
            if isStopped { return false }
            return respond(inner, to: fd)
        }
        let rendered = Self.render(response)
        return write(rendered.bytes, to: fd) && rendered.keepOpen
    }

    static func render(_ response: StandInResponse) -> (bytes: [UInt8], keepOpen: Bool) {
        switch response {
        case .status(let code, let body, let headers):
            let bodyBytes = Array(body.utf8)
            var head =
                "HTTP/1.1 \(code) \(reasonPhrase(code))\r\nContent-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
            head += "\r\n"
            return (Array(head.utf8) + bodyBytes, true)
        case .closeMidResponse:
            return (
                Array(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n{\"events\":".utf8),
                false
            )
        case .malformed:
            return (Array("THIS IS NOT HTTP\r\n\u{1}\u{2}garbage\r\n\r\n".utf8), false)
        case .hangUp, .delayed:
            return ([], false)
        }
    }

    private func write(_ bytes: [UInt8], to fd: Int32) -> Bool {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, flags) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    private static func reasonPhrase(_ code: Int) -> String {
        switch code {
        case 200: "OK"
        case 201: "Created"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 413: "Payload Too Large"
        case 422: "Unprocessable Entity"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

/// A failure to start the stand-in.
public enum StandInError: Error, Sendable, CustomStringConvertible {
    /// A socket call failed with `errno`.
    case socket(call: String, errno: Int32)

    /// What failed and what to do.
    public var description: String {
        switch self {
        case .socket(let call, let code):
            "the RevenueCat stand-in could not listen on 127.0.0.1 (\(call) failed: \(String(cString: strerror(code)))); check that loopback networking is available"
        }
    }
}
