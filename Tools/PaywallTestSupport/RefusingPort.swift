import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses every connection for as long as this value lives: a socket
/// bound to it that never listens, so the kernel answers a connect with a reset, and no other test
/// (nor a stand-in started meanwhile) can take the port. A port that was merely closed, or a
/// stopped stand-in's, can be handed to the next server that asks for a free port, and a request
/// meant to be refused then reaches that server.
public final class RefusingPort: @unchecked Sendable {
    // @unchecked Sendable: `descriptor` is set once in `init` and only closed in `deinit`.
    private let descriptor: Int32
    /// The port number.
    public let port: UInt16

    /// Binds a new socket to a free port on 127.0.0.1, without listening.
    public init() throws {
        #if canImport(Glibc)
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { throw POSIXError(.EBADF) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        descriptor = socket
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
}
