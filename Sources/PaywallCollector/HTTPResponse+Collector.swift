import Foundation
import PaywallCore
import PaywallWire

extension HTTPResponse {
    /// A JSON response.
    static func json(_ status: Int, _ text: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        HTTPResponse(
            status: status,
            headers: [HTTPHeader(CollectorWire.Header.contentType, CollectorWire.answerMediaType)] + headers,
            body: Data(text.utf8))
    }

    /// An error response: `{"error":"…"}` saying what went wrong and what to do.
    static func error(_ status: Int, _ message: String, headers: [HTTPHeader] = []) -> HTTPResponse {
        json(status, "{\"error\":\(JSONString.quoted(message))}", headers: headers)
    }
}
