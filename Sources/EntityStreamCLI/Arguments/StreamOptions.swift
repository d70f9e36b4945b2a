import EntityStreamCommandLine
import EntityStream
import EntityStreamAnalyses
import EntityStreamCore
import Foundation
import EntityStreamProjection

/// The options shared by `connect`, `replay` and the demo: the filter, the
/// store's purge limits, and what is written where.
struct StreamOptions {
    var filter = StreamFilter()
    var trackIDField: String?
    var purge = PurgeOptions()
    var events: Set<EventKind> = Set(EventKind.allCases)
    /// True when `--events` was given (the feature formats otherwise leave the per-observation bookkeeping out).
    var eventsGiven = false
    var format = OutputFormat.esri
    var limit: Int?
    var durationSeconds: Double?
    var dropWhenSlow = false
    var rasters = RasterOptions()
    var publish = PublishOptions()

    /// The event kinds a feature format prints by default: the features,
    /// and what says how the stream goes, not the per-observation bookkeeping.
    static let featureFormatEvents: Set<EventKind> = [.status, .observation, .filter, .error, .response, .dropped, .analysis]

    /// Checks combinations once every flag is read.
    mutating func validate() throws(UsageError) {
        if !eventsGiven && format.printsFeatures { events = Self.featureFormatEvents }
        if limit != nil && !events.contains(.observation) {
            throw .requires("--limit", needs: "observation in --events", reason: "it counts printed observation events")
        }
        try ArgumentList.checkFormat(format, outSR: SpatialReference(code: filter.outSpatialReference))
        try rasters.validate()
        try publish.validate()
    }

    /// Where a CSV writes x and y: the --out-sr asked for, else WGS84.
    var csvCoordinates: SpatialReference? {
        SpatialReference(code: filter.outSpatialReference) ?? .wgs84
    }

    /// Consumes `flag` (and its value) if it is one of these options; false if not.
    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--where":
            filter.whereClause = try arguments.whereClause(for: flag)
        case "--geometry":
            filter.geometry = try arguments.envelope(for: flag)
        case "--out-fields":
            let text = try arguments.value(for: flag)
            let names = text.split(separator: ",").map(String.init)
            guard names.contains(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw .malformed(flag, value: text, expected: "a comma-separated list of field names")
            }
            filter.outFields = StreamFilter.parseOutFields(names)
        case "--out-sr":
            filter.outSpatialReference = try arguments.spatialReference(for: flag).code
        case "--track-field":
            trackIDField = try arguments.nonEmptyValue(for: flag)
        case "--max-duration":
            purge.maximumDuration = try arguments.seconds(for: flag, minimum: 0)
        case "--max-observations":
            purge.maximumObservations = try arguments.integer(for: flag, minimum: 0)
        case "--max-observations-per-track":
            purge.maximumObservationsPerTrack = try arguments.integer(for: flag, minimum: 0)
        case "--max-store-bytes":
            purge.maximumStoreBytes = try arguments.integer(for: flag, minimum: 0)
        case "--events":
            events = try arguments.value(for: flag) { text throws(EventKindError) in try EventKind.parseList(text) }
            eventsGiven = true
        case "--format":
            format = try arguments.format(for: flag)
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
        --geometry xmin,ymin,xmax,ymax[,SR]
                                    keep features inside this envelope (SR: its spatial reference)
        --out-fields a,b            attributes to receive (the track field is always kept)
        --out-sr SR                 output spatial reference: a WKID (4326, 3857, 2913…), EPSG:n,
                                    ESRI:n, or WKT
        --track-field F             the field that identifies an entity (when the service names none)
      Entity store (purge options, as the ArcGIS Maps SDK):
        --max-duration S            forget observations S seconds after receipt (0 = off; default \(maxDurationDefault))
        --max-observations N        keep at most N observations in total (0 = off; default 100000)
        --max-observations-per-track N
                                    keep at most N observations per track (0 = off; default off)
        --max-store-bytes B         keep the store within B bytes, oldest observations purged first
                                    (0 = off; default \(PurgeOptions.defaultMaximumStoreBytes), 512 MiB)
      Output (on stdout):
        --format esri|geojson|csv   Esri JSON lines of every event (default); or features for a GIS:
                                    one GeoJSON Feature per observation (WGS84), or a CSV table with
                                    x/y columns (WGS84 unless --out-sr), the other events as JSON
                                    lines on stderr
        --events LIST               comma-separated event kinds to print, or all (default all; with
                                    geojson or csv: status, observation, filter, error, response,
                                    dropped, analysis): status, observation, entity-received,
                                    observation-purged, entity-purged, filter, error, response,
                                    dropped, analysis
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
