import EntityStreamCore
import Locking

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
/// under a lock); a layer is rebuilt only when some vehicle reported since
/// the last request.
public final class FleetLatestArchive: Sendable {
    public let name: String
    private let clock: any EntityClock
    private let maxRecordCount: Int
    private let supportsPagination: Bool
    private struct State {
        var fleet: SnowplowFleet
        var latest: [Observation?]
        var layer: SimulatedLayer?
    }
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
            var changed = false
            let count = state.latest.count
            while state.fleet.nextTime <= now {
                let vehicle = state.fleet.emittedCount % count
                state.latest[vehicle] = state.fleet.next()
                changed = true
            }
            if changed || state.layer == nil { state.layer = build(state.latest) }
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
