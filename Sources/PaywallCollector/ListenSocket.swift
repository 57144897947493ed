import Foundation

/// The collector's listening socket, bound before the HTTP server starts so that a taken port or a
/// bad address is a clear error, and so the port the system chose for `:0` is known.
public struct ListenSocket: Sendable {
    /// Why the socket could not be made.
    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// `HOST:PORT` could not be read.
        case badAddress(String)
        /// The host name did not resolve.
        case unresolved(String, String)
        /// Another process listens on that address.
        case addressInUse(String)
        /// Any other system refusal (permission for a port below 1024, an address not on this machine…).
        case refused(String, String)

        /// What went wrong and what to do.
        public var description: String {
            switch self {
            case .badAddress(let text):
                return "cannot read the listen address '\(text)'; write HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080"
            case .unresolved(let host, let detail):
                return "cannot resolve the host '\(host)' (\(detail)); use an IP address such as 127.0.0.1"
            case .addressInUse(let address):
                return "\(address) is already in use by another process; stop it or choose another port"
            case .refused(let address, let detail):
                return "cannot listen on \(address): \(detail); choose another address or port"
            }
        }
    }

    /// The socket's file descriptor.
    public let descriptor: Int32
    /// The host as given.
    public let host: String
    /// The port actually bound (the system's choice when 0 was asked).
    public let port: Int
    /// Whether it is an IPv6 socket.
    public let isIPv6: Bool

    /// Splits `HOST:PORT` (`[v6]:PORT` for IPv6).
    public static func parse(_ text: String) throws(Failure) -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":") else { throw .badAddress(text) }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard let port = Int(portText), (0...65_535).contains(port) else { throw .badAddress(text) }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw .badAddress(text) }
        return (host, port)
    }

    /// Resolves, binds and listens on `host`:`port` (non-blocking, close-on-exec, address reuse).
    public static func bind(host: String, port: Int, backlog: Int32 = 1_024) throws(Failure) -> ListenSocket {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .unresolved(host, String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let info = first.pointee
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0 else { throw .refused(address, String(cString: strerror(errno))) }
        var one: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        if Foundation.bind(descriptor, info.ai_addr, info.ai_addrlen) != 0 {
            let code = errno
            close(descriptor)
            if code == EADDRINUSE { throw .addressInUse(address) }
            throw .refused(address, String(cString: strerror(code)))
        }
        guard listen(descriptor, backlog) == 0 else {
            let code = errno
            close(descriptor)
            throw .refused(address, String(cString: strerror(code)))
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let bound = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        var actual = port
        if bound == 0 {
            let family = Int32(storage.ss_family)
            actual = withUnsafePointer(to: &storage) { pointer -> Int in
                if family == AF_INET6 {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        Int(UInt16(bigEndian: $0.pointee.sin6_port))
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin_port))
                }
            }
        }
        return ListenSocket(descriptor: descriptor, host: host, port: actual, isIPv6: info.ai_family == AF_INET6)
    }

    /// `host:port` with the bound port, as logs and the startup line print it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
