#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <strings.h>
#include <microhttpd.h>

/// Starts a daemon on an already listening socket with the collector's fixed set of options.
/// `MHD_start_daemon` is variadic, so Swift cannot call it; this passes the options in one place.
static inline struct MHD_Daemon *cmhd_start(unsigned int flags, int listen_fd, unsigned int connection_limit,
                                            unsigned int timeout_seconds, unsigned int threads, size_t memory_limit,
                                            MHD_AccessHandlerCallback handler, void *handler_cls,
                                            MHD_RequestCompletedCallback completed, void *completed_cls,
                                            MHD_NotifyConnectionCallback notify, void *notify_cls) {
    if (threads > 1) {
        return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                                MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
                                MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                                MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                                MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                                MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                                MHD_OPTION_THREAD_POOL_SIZE, threads,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_fd,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_cls,
                            MHD_OPTION_END);
}

/// The socket of a connection, or -1 (`MHD_get_connection_info` is variadic).
static inline int cmhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int) info->connect_fd;
}
/// The value of request header `name` (case-insensitive), or NULL; spares Swift the enum's imported names.
static inline const char *cmhd_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

/// A response holding its own copy of `size` bytes at `data`.
static inline struct MHD_Response *cmhd_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *) data, MHD_RESPMEM_MUST_COPY);
}

/// Whether a connection notification says the connection has just started (else: closed).
static inline int cmhd_notify_is_start(enum MHD_ConnectionNotificationCode code) {
    return code == MHD_CONNECTION_NOTIFY_STARTED;
}

/// What `cmhd_framing_problem` finds in a request's headers.
enum cmhd_framing {
    CMHD_FRAMING_OK = 0,
    /// More than one Content-Length header.
    CMHD_FRAMING_DUPLICATE_LENGTH = 1,
    /// Transfer-Encoding together with Content-Length.
    CMHD_FRAMING_LENGTH_AND_CHUNKED = 2,
    /// A header name that is not an HTTP token (whitespace before the colon, control characters, …).
    CMHD_FRAMING_BAD_NAME = 3,
    /// More than one Transfer-Encoding header.
    CMHD_FRAMING_DUPLICATE_ENCODING = 4,
    /// More than one Content-Type, Content-Encoding, Authorization or X-Paywall-Forwarding header:
    /// the request says two things where it may say one.
    CMHD_FRAMING_DUPLICATE_HEADER = 5,
};

struct cmhd_framing_scan {
    int lengths;
    int encodings;
    int bad_name;
    int types;
    int content_encodings;
    int authorizations;
    int forwardings;
};

/// Whether `c` may appear in a header name (RFC 9110's `tchar`).
static inline int cmhd_is_tchar(unsigned char c) {
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return 1;
    switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
        return 1;
    default:
        return 0;
    }
}

static inline int cmhd_name_is(const char *key, const char *name) { return strcasecmp(key, name) == 0; }

static enum MHD_Result cmhd_framing_visit(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void) kind;
    (void) value;
    struct cmhd_framing_scan *scan = (struct cmhd_framing_scan *) cls;
    if (key == NULL || key[0] == '\0') {
        scan->bad_name = 1;
        return MHD_YES;
    }
    for (const unsigned char *c = (const unsigned char *) key; *c != '\0'; c++) {
        if (!cmhd_is_tchar(*c)) scan->bad_name = 1;
    }
    if (cmhd_name_is(key, "Content-Length")) scan->lengths += 1;
    if (cmhd_name_is(key, "Transfer-Encoding")) scan->encodings += 1;
    if (cmhd_name_is(key, "Content-Type")) scan->types += 1;
    if (cmhd_name_is(key, "Content-Encoding")) scan->content_encodings += 1;
    if (cmhd_name_is(key, "Authorization")) scan->authorizations += 1;
    if (cmhd_name_is(key, "X-Paywall-Forwarding")) scan->forwardings += 1;
    return MHD_YES;
}

/// Looks at every header of a request for framing that a front end could read differently from
/// libmicrohttpd (request smuggling): two Content-Length headers, Transfer-Encoding with
/// Content-Length, two Transfer-Encoding headers, or a header name that is not a token (such as
/// "Content-Length " with whitespace before the colon). `MHD_get_connection_values` is callback
/// based, so the walk is done here rather than in Swift.
static inline enum cmhd_framing cmhd_framing_problem(struct MHD_Connection *connection) {
    struct cmhd_framing_scan scan = {0, 0, 0, 0, 0, 0, 0};
    MHD_get_connection_values(connection, MHD_HEADER_KIND, cmhd_framing_visit, &scan);
    if (scan.bad_name) return CMHD_FRAMING_BAD_NAME;
    if (scan.lengths > 1) return CMHD_FRAMING_DUPLICATE_LENGTH;
    if (scan.encodings > 1) return CMHD_FRAMING_DUPLICATE_ENCODING;
    if (scan.encodings > 0 && scan.lengths > 0) return CMHD_FRAMING_LENGTH_AND_CHUNKED;
    if (scan.types > 1 || scan.content_encodings > 1 || scan.authorizations > 1 || scan.forwardings > 1) {
        return CMHD_FRAMING_DUPLICATE_HEADER;
    }
    return CMHD_FRAMING_OK;
}
#endif
