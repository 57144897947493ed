import Dispatch
import Foundation
import PaywallWire

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ``HTTPTransport`` over `URLSession` (FoundationNetworking on Linux), with a per-request
/// timeout. Connections are reused between requests (HTTP keep-alive).
///
/// Every answer is read through a bounded reader: at most `maxResponseBytes` of body are kept (a
/// longer answer fails the request as ``TransportError/unreadableResponse(detail:)`` and the rest
/// is never read), and the whole exchange has a total deadline of `timeout`, however slowly bytes
/// keep arriving (`URLSession`'s own timeouts on Linux only measure silence). Both callers need a
/// few KB of an answer at most, so an endpoint that streams or trickles cannot hold memory or time.
///
/// Redirects are never followed: a 3xx comes back as the response it is, so the caller's
/// retry policy treats it as a failure, and the request (with its `Authorization` header)
/// goes to the URL it names and nowhere else. The refusal is made by a delegate set on the
/// session and on every task (Darwin asks the session's, FoundationNetworking the task's);
/// a response whose URL is not the request's is refused as well, in case a platform follows anyway.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let redirects = RedirectRefusal()
    /// Makes the data task for a request (a test puts in one whose completion never comes).
    private let makeTask: DataTaskMaker
    /// Seconds one exchange may take in all.
    private let deadline: Double

    /// Creates a transport.
    /// - Parameter timeout: the longest wait for a response; past it the request fails with
    ///   ``TransportError/timedOut``. Rounded up to whole seconds: FoundationNetworking on Linux
    ///   truncates the interval to whole seconds, so 0.4 s would time out at once.
    ///   It is also the total deadline of one exchange, from sending to the answer's last byte.
    /// - Parameter maxResponseBytes: the most answer bytes kept (default 1 MiB); a longer answer
    ///   fails the request.
    public convenience init(timeout: Duration = .seconds(30), maxResponseBytes: Int = 1 << 20) {
        self.init(timeout: timeout, maxResponseBytes: maxResponseBytes, makeTask: nil)
    }

    /// Creates a transport whose data tasks `makeTask` makes (`nil`: the session's).
    init(timeout: Duration, maxResponseBytes: Int = 1 << 20, makeTask: DataTaskMaker?) {
        let configuration = URLSessionConfiguration.ephemeral
        let exact = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        let seconds = max(1, exact.rounded(.up))
        deadline = seconds
        // FoundationNetworking's own timers stay a minute behind the total deadline, so the send's
        // deadline always ends a request first (see ``RedirectRefusal``: a timer firing while a
        // refused redirect's answer is on its way traps in FoundationNetworking).
        configuration.timeoutIntervalForRequest = seconds + 60
        configuration.timeoutIntervalForResource = seconds + 60
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let session = URLSession(configuration: configuration, delegate: redirects, delegateQueue: nil)
        self.session = session
        self.makeTask =
            makeTask ?? { [redirects] request, completion in
                // No completion handler: the delegate reads the answer, bounded, and completes it.
                let task = session.dataTask(with: request)
                redirects.track(task, limit: max(0, maxResponseBytes), completion: completion)
                task.delegate = redirects
                return RedirectSafeTask(task: task, redirects: redirects)
            }
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Sends `request` and returns the response of any status.
    /// - Throws: ``TransportError`` when no usable HTTP response arrived.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for header in request.headers { urlRequest.setValue(header.value, forHTTPHeaderField: header.name) }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await perform(urlRequest)
        } catch let error as URLError {
            throw Self.transportError(error, url: request.url)
        } catch let error as ResponseTooLarge {
            throw TransportError.unreadableResponse(
                detail: "the answer is longer than \(error.limit) bytes, more than any answer this program reads")
        } catch {
            throw TransportError.other(detail: String(describing: type(of: error)))
        }
        guard let http = response as? HTTPURLResponse else {
            throw TransportError.unreadableResponse(detail: "not an HTTP response")
        }
        if let answered = http.url, !Self.sameOrigin(answered, request.url) {
            throw TransportError.redirected(status: http.statusCode)
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    /// Runs `request` as a data task; cancelling the calling task cancels the request.
    ///
    /// Not `URLSession.data(for:)`: on Linux its cancellation handler cancels the data task
    /// synchronously while holding the Swift task's status lock, and the session's queue, finishing
    /// the same request at that moment, waits for that lock to resume the caller: both wait
    /// forever (seen as a hung `shutdown()`). Here the cancellation resumes the caller itself (with
    /// `URLError(.cancelled)`), exactly once whichever of it and the task's completion comes first, and
    /// hands the data task's cancel to another thread: the send ends even when the task's completion
    /// is lost or waits for a busy thread.
    private func perform(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let pending = PendingRequest()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = makeTask(request) { data, response, error in
                    if let error {
                        pending.complete(.failure(error))
                    } else if let data, let response {
                        pending.complete(.success((data, response)))
                    } else {
                        pending.complete(.failure(URLError(.badServerResponse)))
                    }
                }
                pending.start(task, continuation: continuation)
                // The total deadline, whatever the connection does meanwhile.
                DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { pending.expire() }
            }
        } onCancel: {
            pending.cancel()
        }
    }

    /// Whether `answered` is `asked`, up to the forms a URL loader may canonicalize (letter case of
    /// scheme and host, an explicit default port): same scheme, host, port and path.
    static func sameOrigin(_ answered: URL, _ asked: URL) -> Bool {
        func port(_ url: URL) -> Int? {
            url.port ?? ["https": 443, "http": 80][url.scheme?.lowercased() ?? ""]
        }
        return answered.scheme?.lowercased() == asked.scheme?.lowercased()
            && answered.host?.lowercased() == asked.host?.lowercased()
            && port(answered) == port(asked) && answered.path == asked.path
    }

    /// Maps a `URLError` to a key-free ``TransportError``, its detail in words where the code says
    /// what happened (the caller adds the host and port: ``TransportError/explained(destination:url:)``).
    /// A failed TLS handshake is `cannotConnect`: no byte of the request left. To an `https` URL,
    /// Foundation on Linux reports a handshake with a server that does not speak TLS (a plain HTTP
    /// server) only as an unknown error (-1), so that one is read as a failed handshake too.
    static func transportError(_ error: URLError, url: URL? = nil) -> TransportError {
        let https = url?.scheme?.lowercased() == "https"
        switch error.code {
        case .unknown where https:
            return .cannotConnect(
                detail: "the TLS handshake failed (URLError \(error.code.rawValue)): the server may not speak HTTPS; "
                    + "if it is a plain HTTP server, give an http:// URL")
        case .timedOut: return .timedOut
        case .cannotConnectToHost: return .cannotConnect(detail: "connection refused or host unreachable")
        case .cannotFindHost: return .cannotConnect(detail: "host name not found")
        case .dnsLookupFailed: return .cannotConnect(detail: "DNS lookup failed")
        case .notConnectedToInternet: return .cannotConnect(detail: "no network connection")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected:
            return .cannotConnect(
                detail: "the TLS handshake failed (URLError \(error.code.rawValue)): check the server's certificate "
                    + "and that it speaks HTTPS (for a plain HTTP server give an http:// URL)")
        case .networkConnectionLost: return .connectionLost
        case .badServerResponse, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData,
            .zeroByteResource:
            return .unreadableResponse(detail: "URLError \(error.code.rawValue)")
        default: return .other(detail: "URLError \(error.code.rawValue)")
        }
    }
}

/// The answer was longer than the transport keeps.
struct ResponseTooLarge: Error {
    /// The most bytes kept.
    var limit: Int
}

/// The session's delegate: answers every redirect with `nil` (the 3xx response is delivered as the
/// final response), and reads each tracked task's answer into memory up to its limit, cancelling
/// the task past it.
///
/// Design note: FoundationNetworking on Linux (checked in its source, `HTTPURLProtocol`) hands the
/// redirect answer back to the task's queue asynchronously, and traps ("Received callback for HTTP
/// redirection, but we're not waiting for it") when the task was cancelled or timed out in between.
/// So a task whose redirect was answered is never cancelled (``RedirectSafeTask``: it completes by
/// itself an instant later, its caller already resumed), and FoundationNetworking's own timers are set
/// a minute behind the send's deadline. Seen under heavy load as a crashed test process.
/// `@unchecked Sendable`: its tables are only read and written under its lock.
final class RedirectRefusal: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One task's answer so far.
    private struct Reading {
        var limit: Int
        var data = Data()
        var response: URLResponse?
        var completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    }

    private let lock = NSLock()
    private var readings: [Int: Reading] = [:]
    private var redirectsAnswered: Set<Int> = []
    private var cancelled: Set<Int> = []

    /// Cancels `task`, unless its redirect was answered (it then ends by itself an instant later).
    /// Decided under the lock the redirect answer takes too: a task is either cancelled or has its
    /// redirect answered, never both.
    func cancel(_ task: URLSessionTask) {
        let cancel = lock.withLock { () -> Bool in
            guard !redirectsAnswered.contains(task.taskIdentifier) else { return false }
            cancelled.insert(task.taskIdentifier)
            return true
        }
        if cancel { task.cancel() }
    }

    /// Reads `task`'s answer, keeping at most `limit` bytes, and reports it to `completion` once.
    func track(
        _ task: URLSessionTask, limit: Int,
        completion: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) {
        lock.withLock { readings[task.taskIdentifier] = Reading(limit: limit, completion: completion) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // A cancelled task's redirect is left unanswered: it ends with its cancellation.
        let answer = lock.withLock { () -> Bool in
            guard !cancelled.contains(task.taskIdentifier) else { return false }
            redirectsAnswered.insert(task.taskIdentifier)
            return true
        }
        if answer { completionHandler(nil) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let tooLarge = lock.withLock { () -> Bool in
            guard var reading = readings[dataTask.taskIdentifier] else { return false }
            reading.response = response
            readings[dataTask.taskIdentifier] = reading
            return response.expectedContentLength > Int64(reading.limit)
        }
        if tooLarge {
            finish(dataTask, error: nil, tooLarge: true)
            completionHandler(.cancel)
            cancel(dataTask)
        } else {
            completionHandler(.allow)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = lock.withLock { () -> Bool in
            guard var reading = readings[dataTask.taskIdentifier] else { return false }
            if reading.data.count + data.count > reading.limit { return true }
            reading.data.append(data)
            readings[dataTask.taskIdentifier] = reading
            return false
        }
        if tooLarge {
            finish(dataTask, error: nil, tooLarge: true)
            cancel(dataTask)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        finish(task, error: error, tooLarge: false)
        lock.withLock {
            redirectsAnswered.remove(task.taskIdentifier)
            cancelled.remove(task.taskIdentifier)
        }
    }

    /// Reports `task`'s outcome once and forgets it.
    private func finish(_ task: URLSessionTask, error: (any Error)?, tooLarge: Bool) {
        guard let reading = lock.withLock({ readings.removeValue(forKey: task.taskIdentifier) }) else { return }
        if tooLarge {
            reading.completion(nil, nil, ResponseTooLarge(limit: reading.limit))
        } else if let error {
            reading.completion(nil, nil, error)
        } else {
            reading.completion(reading.data, reading.response ?? task.response, nil)
        }
    }
}

/// What a send needs of a data task: its completion handler was given when it was made.
protocol CancellableDataTask: AnyObject, Sendable {
    /// Starts the request.
    func resume()
    /// Cancels the request (its completion handler then reports `URLError(.cancelled)`, or never runs).
    func cancel()
}

extension URLSessionDataTask: CancellableDataTask {}

/// A session data task whose cancel is skipped once its redirect was answered (``RedirectRefusal``).
final class RedirectSafeTask: CancellableDataTask, @unchecked Sendable {
    // @unchecked Sendable: both fields are immutable and thread-safe.
    private let task: URLSessionDataTask
    private let redirects: RedirectRefusal

    /// Wraps `task`, tracked by `redirects`.
    init(task: URLSessionDataTask, redirects: RedirectRefusal) {
        self.task = task
        self.redirects = redirects
    }

    /// Starts the request.
    func resume() { task.resume() }

    /// Cancels the request, unless its redirect was answered (then it is ending by itself).
    func cancel() { redirects.cancel(task) }
}

/// Makes a data task for a request, with the completion handler it reports to.
typealias DataTaskMaker =
    @Sendable (URLRequest, @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void) -> any CancellableDataTask

/// One send: its data task and its caller's continuation. The caller is resumed exactly once, by
/// the task's completion or by the cancellation, whichever comes first; the other finds nothing to resume.
/// `@unchecked Sendable`: its fields are only read and written under its lock.
private final class PendingRequest: @unchecked Sendable {
    typealias Continuation = CheckedContinuation<(Data, URLResponse), any Error>
    private let lock = NSLock()
    private var continuation: Continuation?
    private var task: (any CancellableDataTask)?
    private var cancelled = false

    /// Starts `task` for the caller waiting on `continuation`; when the caller was cancelled already,
    /// resumes it with the cancellation at once and never starts the task.
    func start(_ task: any CancellableDataTask, continuation: Continuation) {
        let cancelledAlready = lock.withLock {
            if !cancelled {
                self.task = task
                self.continuation = continuation
            }
            return cancelled
        }
        if cancelledAlready {
            continuation.resume(throwing: URLError(.cancelled))
            return
        }
        task.resume()
    }

    /// The task's completion: resumes the caller, unless its cancellation did already.
    func complete(_ result: Result<(Data, URLResponse), any Error>) {
        let waiting = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: result)
    }

    /// The total deadline passed: resumes the caller with `URLError(.timedOut)` (unless it was
    /// resumed already) and cancels the task on another thread.
    func expire() {
        let (waiting, task) = lock.withLock {
            defer { continuation = nil }
            return (continuation, self.task)
        }
        guard let waiting else { return }
        waiting.resume(throwing: URLError(.timedOut))
        if let task { DispatchQueue.global().async { task.cancel() } }
    }

    /// The caller was cancelled: resumes it now with `URLError(.cancelled)` (once started, or at its
    /// start), without waiting for the task's completion, and cancels the task on another thread.
    func cancel() {
        let (waiting, task) = lock.withLock {
            cancelled = true
            defer { continuation = nil }
            return (continuation, self.task)
        }
        waiting?.resume(throwing: URLError(.cancelled))
        if let task { DispatchQueue.global().async { task.cancel() } }
    }
}
