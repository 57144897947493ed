/// A group's viewers and `open_s` values kept as the lists they came in, read as one list: the
/// distinct viewers and the nearest-rank percentiles of all of them together.
///
/// Design note: a day partial keeps its lists once, in its segments (the placement groups hold only
/// counts), so a day and placement's lists are its segments' lists, and a segment's over the range
/// are its days' lists. The arrays are kept as they were decoded (shared, not copied): joining them
/// into one array per group would allocate about as much memory again as the partials hold, and
/// sorting them would cost n log n. The distinct count is one pass of a reused bitset
/// (``DistinctCounter``) over every list, and a percentile is a quickselect
/// (``PresentationScan/selectPercentile(_:_:)``) over the values copied into one reused buffer.
struct ListRuns {
    /// The viewer lists (customer keys; repeats within and across lists are counted once).
    private(set) var viewers: [[UInt32]] = []
    /// The `open_s` lists (every value counts).
    private(set) var openS: [[Double]] = []

    /// Adds a group's viewers and `open_s` values as they are (the arrays are shared, not copied).
    mutating func add(_ stats: PresentationScan.GroupStats) {
        if !stats.viewers.isEmpty { viewers.append(stats.viewers) }
        if !stats.openS.isEmpty { openS.append(stats.openS) }
    }

    /// The number of distinct viewers among all the lists; leaves `counter` empty again.
    func distinctViewers(_ counter: inout DistinctCounter) -> Int64 { counter.count(lists: viewers) }

    /// The nearest-rank p50 and p90 of all the `open_s` values together (`.null` when there are
    /// none), as sorting them all would give. `scratch` is reused between calls.
    func openPercentiles(_ scratch: inout [Double]) -> (p50: ReportValue, p90: ReportValue) {
        scratch.removeAll(keepingCapacity: true)
        for run in openS { scratch += run }
        return (PresentationScan.selectPercentile(&scratch, 50), PresentationScan.selectPercentile(&scratch, 90))
    }
}
