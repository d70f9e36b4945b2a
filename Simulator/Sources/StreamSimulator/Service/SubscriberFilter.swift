import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel

/// One subscriber's filter as the server applies it: where clause,
/// envelope and `outFields` (a ``LocalFilter``) plus the output spatial
/// reference (WGS84 or Web Mercator).
struct SubscriberFilter: Sendable {
    let filter: StreamFilter
    let local: LocalFilter

    /// Throws ``SimulatorError/filter(_:)`` for a where clause, outFields or outSR the service cannot apply.
    init(_ filter: StreamFilter, schema: Schema, serviceReference: Int) throws(SimulatorError) {
        do throws(LocalFilterError) { local = try LocalFilter(filter, schema: schema, spatialReference: serviceReference) } catch { throw .filter(error) }
        self.filter = filter
    }

    /// True when everything passes unchanged (raw messages can be forwarded as they are).
    var passesEverything: Bool { local.isPassThrough }

    /// The schema of what is sent.
    var schema: Schema { local.projectedSchema }

    /// The observation as this subscriber receives it, or nil when filtered out.
    func apply(_ observation: Observation) -> Observation? {
        local.accepts(observation) ? local.projected(observation) : nil
    }

    /// `{"filter":{…}}` with the filter now in effect (geometry as a JSON string,
    /// as ArcGIS answers), optionally with an `error` array.
    static func reply(_ filter: StreamFilter, error: String? = nil) -> [UInt8] {
        var object = JSONObject()
        object.append(key: "where", value: .string(filter.effectiveWhereClause ?? "1=1"))
        object.append(key: "geometry", value: filter.geometry.map { .string(StreamFilter.envelopeJSON($0)) } ?? .null)
        object.append(key: "outFields", value: .string(filter.outFields?.joined(separator: ",") ?? "*"))
        var message = JSONObject([("filter", .object(object))])
        if let error { message.append(key: "error", value: .array([.string(error)])) }
        var writer = JSONWriter(capacity: 256)
        writer.append(.object(message))
        return writer.bytes
    }

    /// The filter given as subscribe query parameters (`where`, `geometry`, `outFields`, `outSR`).
    static func parse(query: [(name: String, value: String)]) throws(SimulatorError) -> StreamFilter {
        var filter = StreamFilter()
        for (name, value) in query {
            switch name {
            case "where":
                filter.whereClause = value
            case "geometry":
                guard !value.isEmpty else { continue }
                do throws(FilterError) { filter.geometry = try StreamFilter.parseEnvelope(value) } catch { throw .geometry(error) }
            case "outFields":
                filter.outFields = StreamFilter.parseOutFields(value.split(separator: ",").map(String.init))
            case "outSR":
                guard !value.isEmpty else { continue }
                do throws(ProjectionError) { filter.outSpatialReference = try SpatialReference.parse(text: value).code } catch { throw .outSpatialReference(error) }
            default:
                continue
            }
        }
        return filter
    }
}
