/// When the entity store forgets observations, as the Maps SDK's
/// `DynamicEntityDataSource.purgeOptions`, plus a budget of bytes.
///
/// The limits act independently and the oldest observations go first:
/// ``maximumDuration`` (seconds since an observation was received; 0 = off;
/// values below 1 become 1), ``maximumObservations`` (total across all
/// tracks; default 100,000; 0 = off), ``maximumObservationsPerTrack``
/// (0 = off) and ``maximumStoreBytes`` (what the store holds in memory, as
/// ``EntityStoreState/storeBytes`` counts it; default 512 MiB; 0 = off). A
/// value type.
public struct PurgeOptions: Sendable, Hashable {
    /// Seconds an observation is kept after it was received (0 = no age limit).
    public var maximumDuration: Double {
        didSet { maximumDuration = PurgeOptions.normalizedDuration(maximumDuration) }
    }
    /// Observations kept in total across all tracks (0 = no limit).
    public var maximumObservations: Int
    /// Observations kept per track (0 = no limit).
    public var maximumObservationsPerTrack: Int
    /// Bytes the store may hold (0 = no limit): its history records, its
    /// entities and its distinct strings (``EntityStoreState/storeBytes``).
    public var maximumStoreBytes: Int

    /// 512 MiB: far above what the default 100,000 observations take (about
    /// 10–30 MB), so it acts only when observations are large (long texts).
    public static let defaultMaximumStoreBytes = 512 << 20

    public init(maximumDuration: Double = 0, maximumObservations: Int = 100_000, maximumObservationsPerTrack: Int = 0,
                maximumStoreBytes: Int = PurgeOptions.defaultMaximumStoreBytes) {
        self.maximumDuration = PurgeOptions.normalizedDuration(maximumDuration)
        self.maximumObservations = max(0, maximumObservations)
        self.maximumObservationsPerTrack = max(0, maximumObservationsPerTrack)
        self.maximumStoreBytes = max(0, maximumStoreBytes)
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
