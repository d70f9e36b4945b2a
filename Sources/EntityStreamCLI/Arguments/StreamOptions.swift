import EntityStream
import EntityStreamCore
import Foundation

/// The options shared by `connect`, `replay` and the demo: the filter, the
/// store's purge limits, and what is written where.
struct StreamOptions {
    var filter = StreamFilter()
    var trackIDField: String?
    var purge = PurgeOptions()
    var events: Set<EventKind> = Set(EventKind.allCases)
    var format = OutputFormat.esri
    var limit: Int?
    var durationSeconds: Double?
    var dropWhenSlow = false
    var rasters = RasterOptions()
    var publish = PublishOptions()

    /// Checks combinations once every flag is read.
    func validate() throws(UsageError) {
        if limit != nil && !events.contains(.observation) {
            throw UsageError("--limit counts printed observation events; include observation in --events")
        }
        try rasters.validate()
        try publish.validate()
    }

    /// Consumes `flag` (and its value) if it is one of these options; false if not.
    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--where":
            let text = try arguments.value(for: flag)
            do { try WhereClause.checkSyntax(text) } catch { throw UsageError("--where: \(error)") }
            filter.whereClause = text
        case "--geometry":
            let text = try arguments.value(for: flag)
            do { filter.geometry = try StreamFilter.parseEnvelope(text) } catch { throw UsageError("--\(error)") }
        case "--out-fields":
            let names = try arguments.value(for: flag).split(separator: ",").map(String.init)
            guard names.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw UsageError("--out-fields expects a comma-separated list of field names")
            }
            filter.outFields = StreamFilter.parseOutFields(names)
        case "--out-sr":
            filter.outSpatialReference = try arguments.integer(for: flag, minimum: 1)
        case "--track-field":
            let name = try arguments.value(for: flag)
            guard !name.isEmpty else { throw UsageError("--track-field expects a field name") }
            trackIDField = name
        case "--max-duration":
            purge.maximumDuration = try arguments.seconds(for: flag, minimum: 0)
        case "--max-observations":
            purge.maximumObservations = try arguments.integer(for: flag, minimum: 0)
        case "--max-observations-per-track":
            purge.maximumObservationsPerTrack = try arguments.integer(for: flag, minimum: 0)
        case "--max-store-bytes":
            purge.maximumStoreBytes = try arguments.integer(for: flag, minimum: 0)
        case "--events":
            let text = try arguments.value(for: flag)
            do { events = try EventKind.parseList(text) } catch { throw UsageError("--events: \(error)") }
        case "--format":
            let text = try arguments.value(for: flag)
            guard let parsed = OutputFormat(rawValue: text) else { throw UsageError("--format expects esri or geojson, not '\(text)'") }
            format = parsed
        case "--limit":
            limit = try arguments.integer(for: flag, minimum: 1)
        case "--duration":
            durationSeconds = try arguments.seconds(for: flag, minimum: 0, inclusive: false)
        case "--drop-when-slow":
            dropWhenSlow = true
        default:
            if try publish.parse(flag, from: &arguments) { return true }
            return try rasters.parse(flag, from: &arguments)
        }
        return true
    }

    static let help = help(whereDefault: nil, maxDurationDefault: "off")

    /// The options' help, with the command's own defaults (the demo's differ).
    static func help(whereDefault: String?, maxDurationDefault: String) -> String {
        """
      Filter (sent to the service; applied locally when replaying):
        --where SQL                 where clause, e.g. "speed > 0"\(whereDefault.map { " (default \($0))" } ?? "")
        --geometry xmin,ymin,xmax,ymax[,wkid]
                                    keep features inside this envelope
        --out-fields a,b            attributes to receive (the track field is always kept)
        --out-sr WKID               output spatial reference (e.g. 4326, 3857)
        --track-field F             the field that identifies an entity (when the service names none)
      Entity store (purge options, as the ArcGIS Maps SDK):
        --max-duration S            forget observations S seconds after receipt (0 = off; default \(maxDurationDefault))
        --max-observations N        keep at most N observations in total (0 = off; default 100000)
        --max-observations-per-track N
                                    keep at most N observations per track (0 = off; default off)
        --max-store-bytes B         keep the store within B bytes, oldest observations purged first
                                    (0 = off; default \(PurgeOptions.defaultMaximumStoreBytes), 512 MiB)
      Output (JSON lines on stdout):
        --events LIST               comma-separated event kinds to print, or all (default all):
                                    status, observation, entity-received, observation-purged,
                                    entity-purged, filter, error, response, dropped, analysis
        --format esri|geojson       Esri JSON geometry (default) or GeoJSON Features
                                    (for a GIS import, add --events observation)
        --limit N                   stop after N observation events
        --duration S                stop after S seconds
        --drop-when-slow            if stdout is slower than the stream, drop the oldest
                                    queued events and report them in "dropped" events
                                    (default: wait, losing nothing)
    \(RasterOptions.help)
    \(PublishOptions.help)
    """
    }
}
