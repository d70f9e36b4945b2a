/// What loading a feature file did beyond reading rows: the format it
/// read, the choices it made (an object-id field assigned, a time field
/// inferred), and what it skipped by policy — counted, with the first line.
///
/// Loaders never drop anything silently: every skipped record is counted
/// here under a reason, and every assumption is a note a program can show.
/// A plain value.
public struct FeatureLoadReport: Sendable, Hashable {
    /// One reason records were skipped, how many, and the first line concerned.
    public struct Skipped: Sendable, Hashable {
        public var reason: String
        public var count: Int
        public var firstLine: Int?

        public init(reason: String, count: Int, firstLine: Int?) {
            self.reason = reason
            self.count = count
            self.firstLine = firstLine
        }
    }

    /// The format that was read.
    public var format: FeatureFileFormat?
    /// Rows in the table.
    public var rows = 0
    /// Choices the loader made, e.g. "assigned OBJECTID 1…469 (the file has no object-id field)".
    public var notes: [String] = []
    /// Records not turned into rows, by reason, in the order first met.
    public private(set) var skipped: [Skipped] = []

    public init(format: FeatureFileFormat? = nil) {
        self.format = format
    }

    /// Counts one skipped record.
    public mutating func skip(_ reason: String, line: Int?) {
        if let index = skipped.firstIndex(where: { $0.reason == reason }) {
            skipped[index].count += 1
        } else {
            skipped.append(Skipped(reason: reason, count: 1, firstLine: line))
        }
    }

    /// Adds the records `later` skipped (a report of the rest of the same
    /// file, whose line numbers are `lineOffset` short of this one's).
    public mutating func merge(skipped later: FeatureLoadReport, lineOffset: Int) {
        for entry in later.skipped {
            if let index = skipped.firstIndex(where: { $0.reason == entry.reason }) {
                skipped[index].count += entry.count
            } else {
                skipped.append(Skipped(reason: entry.reason, count: entry.count, firstLine: entry.firstLine.map { $0 + lineOffset }))
            }
        }
    }

    /// Total records skipped.
    public var skippedCount: Int { skipped.reduce(0) { $0 + $1.count } }

    /// One line per note and per skipped reason, for a log.
    public var summary: [String] {
        notes + skipped.map { "skipped \($0.count) record\($0.count == 1 ? "" : "s"): \($0.reason)" + ($0.firstLine.map { " (first at line \($0))" } ?? "") }
    }
}
