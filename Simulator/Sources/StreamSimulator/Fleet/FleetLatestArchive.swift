import EntityStreamCore
import EntityStreamLocking
import EntityStreamModel
import EntityStreamFeatures

/// The "Store Latest" archive of a fleet service, named in its description's
/// `keepLatestArchive`: a point layer holding each vehicle's last report at
/// the time of the request, kept current by advancing the fleet's own
/// deterministic timeline (``SnowplowFleet/served(configuration:serverStart:)``,
/// the same one subscribers see) up to the clock's now.
///
/// Rows: one per vehicle, in vehicle order (the served fleet is on the road
/// before the server starts, so every vehicle has reported by then), with
/// `OBJECTID` = the vehicle number and the fleet's fields and values
/// (`SnowplowFleet.schema`), exactly the vehicle's latest observation;
/// `lastupdate` is the layer's time field. Thread-safe (the fleet advances
/// under a lock). The layer is rebuilt when some vehicle reported since it
/// was built, at most once per ``rebuildInterval`` of the clock: building it
/// costs the whole fleet, so a paged query of a large fleet (50 pages of
/// 2,000 for 100,000 vehicles) is answered from one build, at most a second
/// old, instead of one build per page (12 s to prime the demo's 100,000).
public final class FleetLatestArchive: Sendable {
    public let name: String
    private let clock: any EntityClock
    private let maxRecordCount: Int
    private let supportsPagination: Bool
    private struct State {
        var fleet: SnowplowFleet
        var latest: [Observation?]
        var layer: SimulatedLayer?
        /// When `layer` was built (clock ms), and whether a vehicle reported since.
        var builtAt: Int64 = .min
        var changed = false
    }

    /// The longest a built layer is answered from while vehicles report.
    public static let rebuildInterval: Int64 = 1_000
    private let state: LockedState<State>

    /// The fields: `OBJECTID`, then the fleet's.
    public static let schema: Schema = {
        var fields = [Field(name: "OBJECTID", type: .objectID)]
        fields += SnowplowFleet.schema.fields
        return Schema(fields: fields, trackIDField: "vehiclename", startTimeField: "lastupdate")
    }()

    public init(name: String, configuration: FleetConfiguration, serverStart: Int64, clock: any EntityClock,
                maxRecordCount: Int, supportsPagination: Bool) {
        self.name = name
        self.clock = clock
        self.maxRecordCount = maxRecordCount
        self.supportsPagination = supportsPagination
        let fleet = SnowplowFleet.served(configuration: configuration, serverStart: serverStart)
        state = LockedState(State(fleet: fleet, latest: Array(repeating: nil, count: fleet.configuration.vehicles)))
    }

    /// The layer as of the clock's now.
    public func layer() -> SimulatedLayer {
        let now = clock.now()
        return state.withLock { state in
            let count = state.latest.count
            while state.fleet.nextTime <= now {
                let vehicle = state.fleet.emittedCount % count
                state.latest[vehicle] = state.fleet.next()
                state.changed = true
            }
            if state.layer == nil || (state.changed && now - state.builtAt >= Self.rebuildInterval) {
                state.layer = build(state.latest)
                state.builtAt = now
                state.changed = false
            }
            // Built just above when missing.
            return state.layer ?? build(state.latest)
        }
    }

    private func build(_ latest: [Observation?]) -> SimulatedLayer {
        let schema = Self.schema
        guard var builder = try? FeatureTableBuilder(name: name, schema: schema, objectIDFieldIndex: 0, assignsObjectIDs: false,
                                                     geometryType: .point, spatialReference: 4326,
                                                     startTimeFieldIndex: schema.startTimeIndex) else {
            preconditionFailure("the archive's fixed schema is valid")
        }
        builder.reserveCapacity(latest.count)
        for (index, observation) in latest.enumerated() {
            guard let observation else { continue }
            try? builder.append(geometry: observation.geometry, values: [.int(Int64(index + 1))] + observation.attributes)
        }
        return SimulatedLayer(table: builder.build(), maxRecordCount: maxRecordCount, supportsPagination: supportsPagination)
    }
}
