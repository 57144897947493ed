import CMicroHTTPD
import Foundation
import PaywallLock
import PaywallWire

/// What the server asks of the collector: look at a request's headers, then (when it reads a body)
/// turn the whole body into a response, now or later from another thread.
protocol HTTPRequestHandler: AnyObject, Sendable {
    /// Headers are in; answer now, or read the body (at most `limit` bytes are kept).
    func begin(method: String, path: String, headers: HTTPHeaders) -> HTTPBegin
    /// The body is in (`tooLarge` when it passed the limit; the bytes kept are then dropped);
    /// call `respond` exactly once, on any thread.
    func finish(_ request: HTTPBodyRequest, respond: @escaping @Sendable (HTTPResponse) -> Void)
    /// Called for every response queued (metrics).
    func answered(route: String, status: Int)
    /// Body bytes as they arrive (metrics).
    func received(bytes: Int)
}

/// The handler's answer to a request's headers.
enum HTTPBegin {
    /// Answer at once (the body, if any, is not read).
    case respond(HTTPResponse, route: String)
    /// Read the body, keeping at most `limit` bytes; `context` comes back in ``HTTPBodyRequest``.
    case readBody(limit: Int, route: String, context: any Sendable)
}

/// A request whose body has arrived.
struct HTTPBodyRequest: Sendable {
    /// The handler's context from ``HTTPBegin/readBody(limit:route:context:)``.
    var context: any Sendable
    /// The body bytes as sent.
    var body: [UInt8]
    /// Whether the body was longer than the limit (then `body` is empty).
    var tooLarge: Bool
}

/// Request headers, readable during ``HTTPRequestHandler/begin(method:path:headers:)`` only.
struct HTTPHeaders {
    fileprivate let connection: OpaquePointer

    /// The value of header `name` (case-insensitive), if sent.
    subscript(_ name: String) -> String? {
        cmhd_header(connection, name).map { String(cString: $0) }
    }

    /// Why the request's framing is ambiguous, or nil when it is not: two `Content-Length` headers,
    /// `Transfer-Encoding` with `Content-Length`, two `Transfer-Encoding` headers, a header name
    /// that is not a token (whitespace before the colon), or two of a header the request may send
    /// once (`Content-Type`, `Content-Encoding`, `Authorization`, `X-Paywall-Forwarding`). A front end may frame such a request
    /// differently from this server, which is how one request is smuggled inside another.
    var framingProblem: String? {
        switch cmhd_framing_problem(connection) {
        case CMHD_FRAMING_DUPLICATE_LENGTH: "the request has more than one Content-Length header"
        case CMHD_FRAMING_LENGTH_AND_CHUNKED: "the request has both Transfer-Encoding and Content-Length"
        case CMHD_FRAMING_DUPLICATE_ENCODING: "the request has more than one Transfer-Encoding header"
        case CMHD_FRAMING_DUPLICATE_HEADER:
            "the request has more than one Content-Type, Content-Encoding, Authorization or X-Paywall-Forwarding header"
        case CMHD_FRAMING_BAD_NAME:
            "a header name holds a character a name may not hold (whitespace before the colon, or a control character)"
        default: nil
        }
    }
}

/// libmicrohttpd, driven by its own polling threads (epoll on Linux), with suspend/resume so a
/// request waiting for the group commit holds no thread, and a watchdog that closes a connection
/// whose request takes longer than the timeout to arrive (libmicrohttpd's own timeout is an idle
/// timeout, which a client sending a byte a second never reaches).
// @unchecked Sendable: `daemon` is set once in `init` and cleared in `stop` (called once, after the
// polling threads are told to stop); everything mutable else sits in `connections` (a Lock).
final class HTTPServer: @unchecked Sendable {
    /// One open connection, for the watchdog and the open-connections gauge.
    private struct Tracked {
        var descriptor: Int32
        /// When its current request began to be awaited (connection opened or last response queued).
        var since: UInt64
        /// Suspended, waiting for the commit writer (the client is not the slow one).
        var waiting: Bool
        /// The headers of a request on this connection have arrived (until then the header deadline
        /// applies, from the connection's opening).
        var headersIn = false
    }

    private var daemon: OpaquePointer?
    private let handler: any HTTPRequestHandler
    private let connections = Lock([Int: Tracked]())
    private let requestsInFlight = Lock(0)
    private let timeoutNanoseconds: UInt64
    private let headerTimeoutNanoseconds: UInt64
    private let watchdogStop = Lock(false)
    /// Reads and validates request bodies (as many at once as there are polling threads).
    private let workers = OperationQueue()
    /// Whether the server still runs, and the connections suspended while their body is validated
    /// or committed (libmicrohttpd must have none when it stops: ``stop()`` answers them 503).
    private struct Life {
        var alive = true
        var suspended: [Int: (handle: ConnectionHandle, slot: Slot)] = [:]
    }

    private let life = Lock(Life())
    private let watchdogDone = DispatchSemaphore(value: 0)

    /// Starts serving on `socket` with `limits`; the server owns the socket once this returns (when
    /// it throws, the socket is still the caller's to close).
    ///
    /// - Throws: ``CollectorError/serverStart`` when libmicrohttpd refuses to start.
    init(socket: ListenSocket, limits: CollectorLimits, handler: any HTTPRequestHandler) throws {
        self.handler = handler
        timeoutNanoseconds = UInt64(limits.timeoutSeconds) * 1_000_000_000
        headerTimeoutNanoseconds = UInt64(min(limits.headerTimeoutSeconds, limits.timeoutSeconds)) * 1_000_000_000
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        #if os(Linux)
            flags |= MHD_USE_EPOLL.rawValue | MHD_USE_TURBO.rawValue
        #else
            flags |= MHD_USE_AUTO.rawValue
        #endif
        if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let threads = limits.threads > 0 ? limits.threads : max(2, ProcessInfo.processInfo.activeProcessorCount)
        workers.maxConcurrentOperationCount = threads
        workers.name = "PaywallCollector.validation"
        let context = Unmanaged.passUnretained(self).toOpaque()
        // The watchdog thread is started first, so it exists whenever connections do.
        let watchdog = Thread { [self] in watch() }
        watchdog.name = "PaywallCollector.watchdog"
        watchdog.start()
        daemon = cmhd_start(
            flags, socket.descriptor, UInt32(limits.maxConnections), UInt32(limits.timeoutSeconds),
            UInt32(threads), 64 << 10, accessCallback, context, completedCallback, context,
            notifyCallback, context)
        guard daemon != nil else {
            watchdogStop.withLock { $0 = true }
            watchdogDone.wait()
            throw CollectorError.serverStart
        }
    }

    /// Connections open now.
    var openConnections: Int { connections.withLock { $0.count } }

    /// Requests begun and not yet answered.
    var inFlight: Int { requestsInFlight.withLock { $0 } }

    /// Stops accepting connections (the listening socket is closed); open ones are still served.
    func quiesce() {
        guard let daemon else { return }
        let listener = MHD_quiesce_daemon(daemon)
        if listener >= 0 { close(listener) }
    }

    /// Closes every connection and stops the polling threads. Call once, after ``quiesce()`` and
    /// once no request waits for the writer.
    func stop() {
        guard let daemon else { return }
        // Requests still being validated are answered 503 now (libmicrohttpd refuses to stop with
        // suspended connections); their late answers are dropped.
        let closing = HTTPResponse.error(
            503, "the collector is shutting down; nothing of this request was stored, retry on a new connection",
            headers: [HTTPHeader(CollectorWire.Header.retryAfter, "1"), HTTPHeader("Connection", "close")])
        life.withLock { life in
            life.alive = false
            for (_, entry) in life.suspended {
                entry.slot.response.withLock { $0 = closing }
                MHD_resume_connection(entry.handle.pointer)
            }
            life.suspended.removeAll()
        }
        MHD_stop_daemon(daemon)
        self.daemon = nil
        watchdogStop.withLock { $0 = true }
        watchdogDone.wait()
    }

    // MARK: - Connections

    private func opened(_ connection: OpaquePointer) {
        let descriptor = cmhd_connection_fd(connection)
        let now = DispatchTime.now().uptimeNanoseconds
        connections.withLock {
            $0[Int(bitPattern: connection)] = Tracked(descriptor: descriptor, since: now, waiting: false)
        }
    }

    private func closed(_ connection: OpaquePointer) {
        connections.withLock { _ = $0.removeValue(forKey: Int(bitPattern: connection)) }
    }

    /// Marks a connection as waiting for the writer (or no longer); either way its clock restarts.
    private func setWaiting(_ connection: OpaquePointer, _ waiting: Bool) {
        let now = DispatchTime.now().uptimeNanoseconds
        connections.withLock { table in
            table[Int(bitPattern: connection)]?.waiting = waiting
            table[Int(bitPattern: connection)]?.since = now
        }
    }

    /// The connection's first request has its headers in: the header deadline no longer applies.
    private func headersArrived(_ connection: OpaquePointer) {
        connections.withLock { $0[Int(bitPattern: connection)]?.headersIn = true }
    }

    private func requestDone(_ connection: OpaquePointer) {
        let now = DispatchTime.now().uptimeNanoseconds
        connections.withLock { $0[Int(bitPattern: connection)]?.since = now }
    }

    /// Every half second: shuts down the socket of each connection that has waited longer than the
    /// timeout for its client's request, or, before its first request's headers arrived, longer
    /// than the header deadline (libmicrohttpd then sees the connection end and closes it; the
    /// entry is removed under the same lock before the descriptor is closed, so a reused descriptor
    /// is never hit). The header deadline, well under the request timeout, is what keeps
    /// connections that trickle their headers (slowloris) from holding the connection slots.
    private func watch() {
        while !watchdogStop.withLock({ $0 }) {
            usleep(500_000)
            let now = DispatchTime.now().uptimeNanoseconds
            connections.withLock { table in
                for (key, entry) in table
                where !entry.waiting
                    && now &- entry.since > (entry.headersIn ? timeoutNanoseconds : headerTimeoutNanoseconds)
                {
                    shutdown(entry.descriptor, Int32(SHUT_RDWR))
                    table[key]?.since = now
                }
            }
        }
        watchdogDone.signal()
    }

    // MARK: - Requests

    /// One request's state across libmicrohttpd's calls.
    // @unchecked Sendable: `response` is a Lock; the other fields are touched only by the polling
    // thread that owns the connection (libmicrohttpd calls a connection from one thread at a time).
    fileprivate final class Slot: @unchecked Sendable {
        var route = ""
        var context: (any Sendable)?
        var limit = 0
        var body: [UInt8] = []
        var tooLarge = false
        var dispatched = false
        var finalCallSeen = false
        var answered = false
        let response = Lock<HTTPResponse?>(nil)
    }

    fileprivate func access(
        _ connection: OpaquePointer, _ url: String, _ method: String,
        _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>,
        _ slotPointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = slotPointer.pointee else {
            headersArrived(connection)
            let slot = Slot()
            slotPointer.pointee = Unmanaged.passRetained(slot).toOpaque()
            requestsInFlight.withLock { $0 += 1 }
            switch handler.begin(method: method, path: url, headers: HTTPHeaders(connection: connection)) {
            case .respond(let response, let route):
                slot.route = route
                return queue(response, slot: slot, on: connection)
            case .readBody(let limit, let route, let context):
                slot.route = route
                slot.limit = limit
                slot.context = context
                return MHD_Result.YES
            }
        }
        let slot = Unmanaged<Slot>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            // Only the body of a request whose route reads one counts: bytes sent after an answer, or
            // to a route that takes no body (a body sent to /healthz), are discarded uncounted.
            if !slot.answered, slot.limit > 0 { handler.received(bytes: count) }
            if !slot.answered, !slot.tooLarge, let data = uploadData {
                if slot.body.count + count > slot.limit {
                    slot.tooLarge = true
                    slot.body = []
                } else {
                    data.withMemoryRebound(to: UInt8.self, capacity: count) {
                        slot.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                    }
                }
            }
            uploadSize.pointee = 0
            return MHD_Result.YES
        }
        if slot.answered { return MHD_Result.YES }
        if let response = slot.response.withLock({ $0 }) { return queue(response, slot: slot, on: connection) }
        if !slot.dispatched, !slot.finalCallSeen {
            // Not on the first "final" call (libmicrohttpd calls again at once: "try again next
            // time"): libmicrohttpd keeps a suspended connection's read/write interest as it was
            // before the request's last pass, possibly "read", and on resume reads before it writes.
            // A client that half-closed (shutdown(SHUT_WR)) after sending would then be read as
            // gone and its answer dropped. After one pass without an answer the interest is
            // "blocked" (the whole request is in), so the resumed connection is only written.
            slot.finalCallSeen = true
            return MHD_Result.YES
        }
        guard !slot.dispatched, let context = slot.context else { return MHD_Result.YES }
        slot.dispatched = true
        let request = HTTPBodyRequest(context: context, body: slot.body, tooLarge: slot.tooLarge)
        slot.body = []
        setWaiting(connection, true)
        let handle = ConnectionHandle(pointer: connection)
        life.withLock { $0.suspended[Int(bitPattern: connection)] = (handle, slot) }
        MHD_suspend_connection(connection)
        // Gunzip and validation run on a worker, not on libmicrohttpd's polling thread: stopping the
        // server joins the polling threads, and must not wait for a large body's validation. An
        // answer that comes after the server stopped is dropped (the connection is gone).
        workers.addOperation { [self] in
            handler.finish(request) { [self] response in
                life.withLock { life in
                    guard life.alive, life.suspended.removeValue(forKey: Int(bitPattern: handle.pointer)) != nil
                    else { return }
                    slot.response.withLock { $0 = response }
                    setWaiting(handle.pointer, false)
                    MHD_resume_connection(handle.pointer)
                }
            }
        }
        return MHD_Result.YES
    }

    private func queue(_ response: HTTPResponse, slot: Slot, on connection: OpaquePointer) -> MHD_Result {
        slot.answered = true
        let made = response.body.withUnsafeBytes { bytes in
            cmhd_response_copy(bytes.count, bytes.baseAddress)
        }
        guard let made else { return MHD_Result.NO }
        defer { MHD_destroy_response(made) }
        for header in response.headers { _ = MHD_add_response_header(made, header.name, header.value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        requestDone(connection)
        handler.answered(route: slot.route, status: response.status)
        return result
    }

    fileprivate func completed(_ slotPointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slotPointer, let raw = slotPointer.pointee else { return }
        Unmanaged<Slot>.fromOpaque(raw).release()
        slotPointer.pointee = nil
        requestsInFlight.withLock { $0 -= 1 }
    }

    fileprivate func notify(_ connection: OpaquePointer, started: Bool) {
        if started { opened(connection) } else { closed(connection) }
    }
}

/// A connection pointer handed to the writer thread's completion (resumed there).
private struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

private func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer {
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

private let accessCallback: MHD_AccessHandlerCallback = { context, connection, url, method, _, data, size, slot in
    guard let connection, let size, let slot else { return MHD_Result.NO }
    return server(context).access(
        connection, url.map { String(cString: $0) } ?? "", method.map { String(cString: $0) } ?? "",
        data, size, slot)
}

private let completedCallback: MHD_RequestCompletedCallback = { context, _, slot, _ in
    server(context).completed(slot)
}

private let notifyCallback: MHD_NotifyConnectionCallback = { context, connection, _, code in
    guard let connection else { return }
    server(context).notify(connection, started: cmhd_notify_is_start(code) != 0)
}
