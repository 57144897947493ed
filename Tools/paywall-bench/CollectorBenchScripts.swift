import Foundation

/// The wrk Lua scripts of `paywall-bench collector`.
enum CollectorBenchScripts {
    /// Common request headers and the `done` hook that prints one machine-readable line.
    static func prelude(key: String) -> String {
        """
        wrk.method = "POST"
        wrk.path = "/v1/events"
        wrk.headers["Content-Type"] = "application/x-ndjson"
        wrk.headers["Authorization"] = "Bearer \(key)"
        wrk.headers["X-Paywall-Forwarding"] = "collector"
        local count = 0
        function setup(thread)
          thread:set("tid", count)
          count = count + 1
        end
        function done(summary, latency, requests)
          local e = summary.errors
          io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d non2xx=%d\\n",
            summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
            e.connect + e.read + e.write + e.timeout, e.status))
        end

        """
    }

    /// Plain bodies built per request: 100 events (50 presentations: impression + close) with fresh,
    /// time-ordered ids (milliseconds since the thread started, then a per-thread counter).
    static func plain(key: String) -> String {
        prelude(key: key) + """
            local counter = 0
            local base = 0
            function init(args)
              base = os.time() * 1000
            end
            local function uuid(ms, kind, n)
              return string.format("%08x-%04x-7%03x-8%03x-%012x", math.floor(ms / 65536), ms % 65536, tid, kind, n)
            end
            function request()
              local lines = {}
              for i = 1, 50 do
                counter = counter + 1
                local ms = base + math.floor(counter / 10)
                local pw = uuid(ms, 2, counter)
                local user = "bench-user-" .. tid .. "-" .. (counter % 5000)
                lines[#lines + 1] = '{"id":"' .. uuid(ms, 0, counter) .. '","name":"paywall_shown","occurred_at":' .. ms
                  .. ',"user_id":"' .. user .. '","catalog_version":1,"pw_id":"' .. pw .. '","source":"onboarding"}'
                lines[#lines + 1] = '{"id":"' .. uuid(ms, 1, counter) .. '","name":"paywall_closed","occurred_at":' .. (ms + 4000)
                  .. ',"user_id":"' .. user .. '","catalog_version":1,"pw_id":"' .. pw
                  .. '","source":"onboarding","result":"dismissed","via":"close_button","open_s":4}'
              end
              return wrk.format(nil, nil, nil, table.concat(lines, "\\n") .. "\\n")
            end
            """
    }

    /// Gzip bodies prepared by the benchmark (wrk's Lua has no zlib): thread `tid` of `threads` sends
    /// bodies tid, tid + threads, … from the file (each as "<length>\\n<bytes>"), each once while they last.
    static func gzip(key: String, bodies: String, threads: Int) -> String {
        prelude(key: key) + """
            wrk.headers["Content-Encoding"] = "gzip"
            local bodies = {}
            local next_body = 1
            function init(args)
              local file = io.open("\(bodies)", "rb")
              local index = 0
              while true do
                local line = file:read("*l")
                if not line then break end
                local body = file:read(tonumber(line))
                if index % \(threads) == tid then bodies[#bodies + 1] = body end
                index = index + 1
              end
              file:close()
            end
            function request()
              local body = bodies[next_body]
              next_body = next_body % #bodies + 1
              return wrk.format(nil, nil, nil, body)
            end
            """
    }
}
