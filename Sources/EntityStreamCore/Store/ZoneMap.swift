import EntityStreamModel
/// The ranges a ``HistoryChunk``'s records span — receive time, the
/// observations' own start and end times, x and y — so a scan skips whole
/// chunks that cannot match (a block-range index, like PostgreSQL's BRIN).
///
/// Bounds only widen as records are appended; purging the oldest records
/// leaves them as they are, so they stay correct (if loose) bounds. Records
/// without a start time (or without a point) do not widen those bounds:
/// they never match a bounded time extent (or an envelope).
struct ZoneMap: Sendable {
    var minReceived = Int64.max
    var maxReceived = Int64.min
    var minStart = Int64.max
    var maxStart = Int64.min
    var maxEnd = Int64.min
    var minX = Double.infinity
    var maxX = -Double.infinity
    var minY = Double.infinity
    var maxY = -Double.infinity

    mutating func add(receivedAt: Int64, start: Int64?, end: Int64?, x: Double?, y: Double?) {
        minReceived = min(minReceived, receivedAt)
        maxReceived = max(maxReceived, receivedAt)
        if let start {
            minStart = min(minStart, start)
            maxStart = max(maxStart, start)
            maxEnd = max(maxEnd, end ?? start)
        }
        if let x, let y, x.isFinite, y.isFinite {
            minX = min(minX, x)
            maxX = max(maxX, x)
            minY = min(minY, y)
            maxY = max(maxY, y)
        }
    }

    /// False when no record of the chunk can match `extent` on `key`.
    func mayMatch(_ extent: TimeExtent, key: ObservationTimeKey) -> Bool {
        if extent.isUnbounded { return true }
        switch key {
        case .received:
            return extent.overlaps(from: minReceived, to: maxReceived)
        case .field:
            guard minStart <= maxStart else { return false }
            return extent.overlaps(from: minStart, to: maxEnd)
        }
    }

    /// False when no point of the chunk lies in `envelope` (coordinates as stored).
    func mayContain(_ envelope: Envelope) -> Bool {
        minX <= envelope.xmax && maxX >= envelope.xmin && minY <= envelope.ymax && maxY >= envelope.ymin
    }
}
