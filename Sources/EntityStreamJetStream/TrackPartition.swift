/// One consumer's share of a stream's tracks: partition `index` of `count`
/// (`--partition K/N`, K from 0 to N-1, as the server numbers partitions).
///
/// The partition of a message is the one nats-server's subject mapping
/// `{{partition(N,1,2)}}` computes: FNV-1a 32 of the service and track
/// tokens written one after the other, modulo N. A server configured with
/// ``mapping(subjectPrefix:count:)`` appends it to every published subject
/// (`PREFIX.service.track` becomes `PREFIX.service.track.K`), so every
/// observation of one track lands in one partition, in order, and a
/// consumer of partition K reads the filter subject ``filterSubject(prefix:)``.
public struct TrackPartition: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    /// Partitions are bounded so that subjects and the server's mapping stay small.
    public static let maximumCount = 1024

    public init(index: Int, count: Int) throws(PartitionError) {
        guard count >= 1, count <= Self.maximumCount else { throw .countOutOfRange(count) }
        guard index >= 0, index < count else { throw .indexOutOfRange(index, count: count) }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init(parsing text: String) throws(PartitionError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
            throw .notKOfN(text)
        }
        try self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    /// The partition of a service's track among `count`, as the server maps it.
    public static func partition(serviceToken: String, trackToken: String, count: Int) -> Int {
        let hash = FNV.hash32(trackToken.utf8, into: FNV.hash32(serviceToken.utf8))
        return Int(hash % UInt32(count))
    }

    /// Whether a message published on `PREFIX.service.track` belongs to this partition.
    public func contains(serviceToken: String, trackToken: String) -> Bool {
        Self.partition(serviceToken: serviceToken, trackToken: trackToken, count: count) == index
    }

    /// The subjects of this partition once the server maps them.
    public func filterSubject(prefix: String) -> String { "\(prefix).*.*.\(index)" }

    /// The server's subject mapping (source, destination) that partitions
    /// `PREFIX.service.track` into `count` partitions.
    public static func mapping(subjectPrefix: String, count: Int) -> (source: String, destination: String) {
        ("\(subjectPrefix).*.*", "\(subjectPrefix).{{wildcard(1)}}.{{wildcard(2)}}.{{partition(\(count),1,2)}}")
    }
}

/// A `--partition` value that is not `K/N` with 0 ≤ K < N.
public enum PartitionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// N is not 1 to ``TrackPartition/maximumCount``.
    case countOutOfRange(Int)
    /// K is not 0 to N − 1.
    case indexOutOfRange(Int, count: Int)
    /// The text is not `K/N`.
    case notKOfN(String)

    public var description: String {
        switch self {
        case .countOutOfRange(let count): return "N must be 1 to \(TrackPartition.maximumCount), not \(count)"
        case .indexOutOfRange(let index, let count): return "K must be 0 to \(count - 1) for N = \(count), not \(index)"
        case .notKOfN(let text): return "expected K/N (partition K of N, K from 0), not '\(text)'"
        }
    }
}
