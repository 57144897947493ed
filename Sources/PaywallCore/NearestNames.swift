/// The known names closest to a name that matched none of them: for "did you mean" answers to a
/// misspelled flag, placement or offering.
///
/// Closeness is the optimal-string-alignment distance (insertions, deletions, substitutions and
/// swaps of two neighbours each count 1) over Unicode scalars, ignoring ASCII letter case, so
/// `onbaording` is 1 from `onboarding` and `--plcement` 1 from `--placement`.
public enum NearestNames {
    /// The edit distance between `a` and `b` (optimal string alignment, ASCII case ignored).
    public static func distance(_ a: String, _ b: String) -> Int {
        let left = Array(a.unicodeScalars.map(lowered))
        let right = Array(b.unicodeScalars.map(lowered))
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        // Three rows of the dynamic-programming table: two back (for a swap), one back, this one.
        var twoBack = [Int](repeating: 0, count: right.count + 1)
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let cost = left[i - 1] == right[j - 1] ? 0 : 1
                var best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, left[i - 1] == right[j - 2], left[i - 2] == right[j - 1] {
                    best = min(best, twoBack[j - 2] + 1)
                }
                current[j] = best
            }
            (twoBack, previous, current) = (previous, current, twoBack)
        }
        return previous[right.count]
    }

    /// Up to `limit` of `known` ordered by distance from `name`, nearest first (ties by name). With
    /// `within`, only those at most that far (`nil`: any distance, so a list is never empty while
    /// `known` is not).
    public static func closest(to name: String, among known: some Sequence<String>, limit: Int = 3, within: Int? = nil)
        -> [String]
    {
        var scored: [(distance: Int, name: String)] = []
        for candidate in Set(known) {
            let distance = distance(name, candidate)
            if let within, distance > within { continue }
            scored.append((distance, candidate))
        }
        scored.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.name < $1.name }
        return scored.prefix(max(0, limit)).map(\.name)
    }

    /// The farthest a misspelling is taken to be from what was meant: a third of the name's length,
    /// at least 2 (`--out` and `--db` are short).
    public static func typoDistance(for name: String) -> Int {
        max(2, name.unicodeScalars.count / 3)
    }

    private static func lowered(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        ("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar
    }
}
