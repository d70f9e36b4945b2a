import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures

/// What the store layers share: where the store is, the service they belong
/// to (its spatial reference) and how their queries are answered.
struct StoreLayerSettings: Sendable {
    let store: LiveStore
    let stream: LiveStream
    let maxRecordCount: Int
    let supportsPagination: Bool
    let statistics: (any FeatureStatisticsEngine)?

    func layer(_ table: FeatureTable) -> SimulatedLayer {
        SimulatedLayer(table: table, maxRecordCount: maxRecordCount, supportsPagination: supportsPagination, statistics: statistics)
    }
}

/// `NAME_Latest`: each entity's latest observation in the live store, kept
/// current (every request reads a fresh snapshot); `OBJECTID` is the
/// entity's id. What the stream description's `keepLatestArchive` names,
/// so that clients prime from it before they subscribe.
struct StoreLatestLayer: LayerSource {
    let name: String
    let settings: StoreLayerSettings

    func table() async -> FeatureTable {
        let (contents, _) = await settings.store.snapshot()
        let columns = StoreLayerColumns(store: contents.schema)
        let wkid = settings.stream.info.spatialReference
        var builder = columns.builder(name: name, wkid: wkid)
        builder.reserveCapacity(contents.entityCount)
        contents.latestObservations(matching: EntityQuery()) { entity in
            columns.append(to: &builder, id: entity.entity.entityID, geometry: entity.latest.geometry, row: entity.latest,
                           receivedAt: entity.latest.receivedAt, wkid: wkid)
            return true
        }
        return builder.build()
    }

    func currentDescription() async -> LayerDescription {
        settings.layer(await table()).description
    }

    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer {
        settings.layer(await table())
    }
}

/// `NAME_Tracks`: every observation the live store retains (each track's
/// history), time-aware on the stream's time field (else the receive
/// time); `OBJECTID` is the store's observation id (arrival order).
///
/// Each query reads one snapshot and materializes only the observations it
/// can select — the store's scan applies its time extent, its where clause
/// (when it names only the stream's fields) and a plain envelope in the
/// service's spatial reference, skipping whole history chunks by their zone
/// maps — and the query engine then answers on those rows exactly as on
/// any layer (it applies every parameter again, so the scan only ever
/// narrows). A query that would read more than ``maximumRows`` observations
/// is refused (400), so that memory stays bounded whatever the store holds.
struct StoreTracksLayer: LayerSource {
    let name: String
    let settings: StoreLayerSettings
    var maximumRows = 1_000_000

    func currentDescription() async -> LayerDescription {
        let (contents, _) = await settings.store.snapshot()
        let columns = StoreLayerColumns(store: contents.schema)
        let wkid = settings.stream.info.spatialReference
        var description = settings.layer(columns.builder(name: name, wkid: wkid).build()).description
        var box: Envelope?
        var earliest = Int64.max
        var latest = Int64.min
        contents.scan(ObservationScan()) { observation in
            if var point = observation.point {
                if let from = point.wkid, from != wkid, let target = SpatialReference(code: wkid) { point = (try? point.converted(to: target)) ?? point }
                if point.x.isFinite, point.y.isFinite { box = Envelope.including(box, x: point.x, y: point.y) }
            }
            for time in Self.times(of: observation, key: columns.timeKey) {
                earliest = min(earliest, time)
                latest = max(latest, time)
            }
            return true
        }
        box?.wkid = wkid
        description.extent = box
        if earliest <= latest { description.timeInfo?.timeExtent = try? TimeExtent(start: earliest, end: latest) }
        return description
    }

    func layer(answering query: FeatureQuery) async throws(FeatureQueryError) -> SimulatedLayer {
        let (contents, _) = await settings.store.snapshot()
        let columns = StoreLayerColumns(store: contents.schema)
        let wkid = settings.stream.info.spatialReference
        var scan = ObservationScan(timeKey: columns.timeKey)
        if let time = query.time { scan.timeExtent = time }
        if let text = query.effectiveWhereClause { scan.whereClause = try? WhereClause(text, schema: contents.schema) }
        if var envelope = query.geometry, query.distance == nil, query.polygonRings == nil, envelope.wkid == nil || envelope.wkid == wkid {
            envelope.wkid = wkid
            scan.envelope = envelope
        }
        let wanted = query.objectIDs.map(Set.init)
        var builder = columns.builder(name: name, wkid: wkid)
        var tooMany = false
        contents.scan(scan) { observation in
            if let wanted, !wanted.contains(observation.id) { return true }
            guard builder.count < maximumRows else {
                tooMany = true
                return false
            }
            columns.append(to: &builder, id: observation.id, geometry: observation.point, row: observation,
                           receivedAt: observation.receivedAt, wkid: wkid)
            return true
        }
        if tooMany {
            throw .storeQueryTooLarge(maximum: maximumRows, observations: contents.observationCount)
        }
        return settings.layer(builder.build())
    }

    /// The observation's times on `key` (one, two for an interval, none without a time).
    static func times(of observation: StoredObservation, key: ObservationTimeKey) -> [Int64] {
        switch key {
        case .received: return [observation.receivedAt]
        case .field(let start, let end):
            var times: [Int64] = []
            if case .date(let ms) = observation.value(at: start) { times.append(ms) }
            if let end, case .date(let ms) = observation.value(at: end) { times.append(ms) }
            return times
        }
    }
}
