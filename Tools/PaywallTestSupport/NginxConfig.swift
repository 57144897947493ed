import Foundation

/// The nginx configurations of the tests and benchmarks, in one place: each runs nginx as this
/// user (as root only when the process is root) with its pid, logs and temporary files under
/// `prefix`, listening on 127.0.0.1 only.
public enum NginxConfig {
    /// docs/server.md's reverse proxy in front of the collector: TLS on `listenPort` with `certificate`
    /// and `key`, forwarding to the collector on `collectorPort` over kept-alive HTTP/1.1.
    public static func collectorProxy(
        listenPort: Int, collectorPort: Int, certificate: String, key: String, prefix: String
    ) -> String {
        frame(
            prefix: prefix, workers: 1, connections: 256,
            http: """
                  upstream paywall_collector {
                    server 127.0.0.1:\(collectorPort);
                    keepalive 32;
                  }
                  server {
                    listen 127.0.0.1:\(listenPort) ssl;
                    server_name localhost;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    ssl_protocols TLSv1.2 TLSv1.3;
                    client_max_body_size 1m;
                    location / {
                      proxy_pass http://paywall_collector;
                      proxy_http_version 1.1;
                      proxy_set_header Connection "";
                      proxy_set_header Host $host;
                      proxy_read_timeout 60s;
                    }
                  }
                """)
    }

    /// nginx answering every request on `port` with 204, storing nothing: what HTTP on this
    /// machine can carry (`paywall-bench collector`'s ceiling).
    public static func noContent(port: Int, prefix: String) -> String {
        frame(
            prefix: prefix, workers: 2, connections: 1024,
            http: """
                  client_max_body_size 1m;
                  client_body_buffer_size 1m;
                  server {
                    listen 127.0.0.1:\(port);
                    location / { return 204; }
                  }
                """)
    }

    /// The part every configuration shares, around `http` (the rest of the `http` block, its
    /// lines indented by two spaces).
    static func frame(prefix: String, workers: Int, connections: Int, http: String) -> String {
        let user = geteuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes \(workers);
            pid \(prefix)/nginx.pid;
            error_log \(prefix)/nginx-error.log;
            events { worker_connections \(connections); }
            http {
              access_log off;
              client_body_temp_path \(prefix)/body;
              proxy_temp_path \(prefix)/proxy;
              fastcgi_temp_path \(prefix)/fastcgi;
              uwsgi_temp_path \(prefix)/uwsgi;
              scgi_temp_path \(prefix)/scgi;
            \(http)
            }
            """
    }
}
