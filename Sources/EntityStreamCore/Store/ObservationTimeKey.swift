import EntityStreamModel
/// Which time an observation is placed at for time-extent queries.
public enum ObservationTimeKey: Sendable, Hashable {
    /// When EntityStream received it (epoch ms, the injected clock).
    case received
    /// The service's own time fields: `start` (`timeInfo.startTimeField`) and,
    /// for interval features, `end` (`timeInfo.endTimeField`); schema indices.
    case field(start: Int, end: Int?)

    /// The service's start time field when the schema has one, else the receive time.
    public static func automatic(for schema: Schema) -> ObservationTimeKey {
        guard let start = schema.startTimeIndex else { return .received }
        return .field(start: start, end: schema.endTimeIndex)
    }
}
