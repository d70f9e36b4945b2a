/// When the entity store forgets observations, as the Maps SDK's
/// `DynamicEntityDataSource.purgeOptions`.
///
/// The three limits act independently and the oldest observations go
/// first: ``maximumDuration`` (seconds since an observation was received;
/// 0 = off; values below 1 become 1), ``maximumObservations`` (total across
/// all tracks; default 100,000; 0 = off) and ``maximumObservationsPerTrack``
/// (0 = off). A value type.
public struct PurgeOptions: Sendable, Hashable {
    /// Seconds an observation is kept after it was received (0 = no age limit).
    public var maximumDuration: Double {
        didSet { maximumDuration = PurgeOptions.normalizedDuration(maximumDuration) }
    }
    /// Observations kept in total across all tracks (0 = no limit).
    public var maximumObservations: Int
    /// Observations kept per track (0 = no limit).
    public var maximumObservationsPerTrack: Int

    public init(maximumDuration: Double = 0, maximumObservations: Int = 100_000, maximumObservationsPerTrack: Int = 0) {
        self.maximumDuration = PurgeOptions.normalizedDuration(maximumDuration)
        self.maximumObservations = max(0, maximumObservations)
        self.maximumObservationsPerTrack = max(0, maximumObservationsPerTrack)
    }

    /// The age limit in milliseconds, or nil when off.
    public var maximumAgeMilliseconds: Int64? {
        maximumDuration > 0 ? Int64((maximumDuration * 1000).rounded()) : nil
    }

    private static func normalizedDuration(_ seconds: Double) -> Double {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        return max(seconds, 1)
    }
}
