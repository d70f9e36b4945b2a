/// A problem reported on the bus; the stream goes on.
public struct StreamErrorReport: Sendable {
    public enum Source: String, Sendable, Hashable {
        /// A message from the service could not be used (malformed JSON, not a feature, …).
        case message
        /// The connection or the service description.
        case connection
        /// A feature the store could not take (no track id, not a point).
        case store
        /// A control command on stdin.
        case control
        /// A line of a replayed recording.
        case recording
        /// The service's `keepLatestArchive` layer (priming before the socket opens).
        case archive
        /// The service's `relatedFeatures` layer (joined to observations).
        case related
    }

    public var source: Source
    public var message: String
    /// How many errors from this source so far, this one included (each
    /// source is counted in exactly one place).
    public var count: Int

    public init(source: Source, message: String, count: Int) {
        self.source = source
        self.message = message
        self.count = count
    }
}
