import Foundation

/// An HTTP/1.1 request as the stand-in received it.
public struct ReceivedHTTPRequest: Sendable, Equatable {
    /// The method, e.g. `POST`.
    public var method: String
    /// The request target, e.g. `/v1/events`.
    public var path: String
    /// Header lines in arrival order (names as sent).
    public var headerLines: [HeaderLine]
    /// The body (Content-Length or chunked, decoded).
    public var body: Data

    /// One header line.
    public struct HeaderLine: Sendable, Equatable {
        /// The name as sent.
        public var name: String
        /// The value, trimmed.
        public var value: String
    }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headerLines.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// Incremental HTTP/1.1 request parsing over a byte buffer.
enum HTTPRequestParser {
    enum Outcome {
        case incomplete
        case complete(ReceivedHTTPRequest, consumed: Int)
        case invalid(String)
    }

    private static let headerEnd: [UInt8] = [13, 10, 13, 10]

    static func parse(_ buffer: [UInt8]) -> Outcome {
        guard let end = find(headerEnd, in: buffer, from: 0) else {
            return buffer.count > 64 * 1024 ? .invalid("header section larger than 64 KiB") : .incomplete
        }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3, requestLine[2].hasPrefix("HTTP/1.") else { return .invalid("bad request line") }
        var headers: [ReceivedHTTPRequest.HeaderLine] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .invalid("header line without a colon") }
            headers.append(
                .init(
                    name: String(line[..<colon]),
                    value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var request = ReceivedHTTPRequest(
            method: String(requestLine[0]), path: String(requestLine[1]), headerLines: headers, body: Data())
        let bodyStart = end + 4
        if request.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            return parseChunked(buffer, from: bodyStart, request: request)
        }
        let length = Int(request.header("Content-Length") ?? "0") ?? -1
        guard length >= 0 else { return .invalid("bad Content-Length") }
        guard buffer.count >= bodyStart + length else { return .incomplete }
        request.body = Data(buffer[bodyStart..<(bodyStart + length)])
        return .complete(request, consumed: bodyStart + length)
    }

    private static func parseChunked(_ buffer: [UInt8], from start: Int, request: ReceivedHTTPRequest) -> Outcome {
        var request = request
        var body = Data()
        var position = start
        while true {
            guard let lineEnd = find([13, 10], in: buffer, from: position) else { return .incomplete }
            let sizeText = String(decoding: buffer[position..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else {
                return .invalid("bad chunk size")
            }
            position = lineEnd + 2
            if size == 0 {
                guard let trailerEnd = find([13, 10], in: buffer, from: position) else { return .incomplete }
                if trailerEnd == position {
                    request.body = body
                    return .complete(request, consumed: position + 2)
                }
                guard let end = find(headerEnd, in: buffer, from: position) else { return .incomplete }
                request.body = body
                return .complete(request, consumed: end + 4)
            }
            guard buffer.count >= position + size + 2 else { return .incomplete }
            body.append(contentsOf: buffer[position..<(position + size)])
            position += size + 2
        }
    }

    /// Whether `buffer` holds a complete header section asking for `100 Continue`.
    static func expectsContinue(_ buffer: [UInt8]) -> Bool {
        guard let end = find(headerEnd, in: buffer, from: 0) else { return false }
        return String(decoding: buffer[0..<end], as: UTF8.self).lowercased().contains("\r\nexpect: 100-continue")
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == needle[0] {
                var match = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }
}
