/// The new presentations a rollup refresh collects (``Rollup/Additions``), kept as the runs they
/// came in and read as one collection with flat indexes: each chunk's new presentations are the
/// tail of its batch's folds (all of them on a new day), kept as the batch's own array, shared,
/// not copied.
///
/// Design note: copying each chunk's folds into one array faulted in and wrote about 26 MB at 10M
/// events (147k folds a night) beside the batches themselves. A run is found by a binary search over
/// the runs' ends (a refresh has a few runs per 100k-event chunk); iteration walks the runs in order.
struct FoldRuns: RandomAccessCollection, MutableCollection, Equatable {
    private var runs: [[PresentationFold]] = []
    /// `ends[i]`: the folds in runs `0...i`.
    private var ends: [Int] = []
    /// Whether the last run is an array of this collection's own (single folds go there), not a batch's.
    private var lastRunIsOwn = false

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { ends.last ?? 0 }

    /// The run holding flat index `position`, and the position in it.
    private func locate(_ position: Int) -> (run: Int, offset: Int) {
        var low = 0
        var high = ends.count - 1
        while low < high {
            let middle = (low + high) / 2
            if ends[middle] <= position { low = middle + 1 } else { high = middle }
        }
        return (low, position - (low == 0 ? 0 : ends[low - 1]))
    }

    subscript(position: Int) -> PresentationFold {
        get {
            let (run, offset) = locate(position)
            return runs[run][offset]
        }
        set {
            let (run, offset) = locate(position)
            runs[run][offset] = newValue
        }
    }

    /// Appends one fold (to a run of this collection's own).
    mutating func append(_ fold: PresentationFold) {
        if !lastRunIsOwn {
            runs.append([])
            ends.append(endIndex)
            lastRunIsOwn = true
        }
        runs[runs.count - 1].append(fold)
        ends[ends.count - 1] += 1
    }

    /// Appends `folds[from...]`: the array itself, shared, when that is all of it.
    mutating func append(_ folds: [PresentationFold], from: Int) {
        guard from < folds.endIndex else { return }
        runs.append(from == folds.startIndex ? folds : Array(folds[from...]))
        ends.append(endIndex + folds.endIndex - from)
        lastRunIsOwn = false
    }

    /// Walks the runs in order.
    struct Iterator: IteratorProtocol {
        fileprivate var runs: IndexingIterator<[[PresentationFold]]>
        fileprivate var current: IndexingIterator<[PresentationFold]>?

        mutating func next() -> PresentationFold? {
            while true {
                if let fold = current?.next() { return fold }
                guard let run = runs.next() else { return nil }
                current = run.makeIterator()
            }
        }
    }

    func makeIterator() -> Iterator { Iterator(runs: runs.makeIterator(), current: nil) }

    static func == (lhs: FoldRuns, rhs: FoldRuns) -> Bool { lhs.elementsEqual(rhs) }
}
