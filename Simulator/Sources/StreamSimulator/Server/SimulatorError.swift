import EntityStreamCore
import EntityStreamFeatures
import EntityStreamModel
import EntityStreamProjection
import EntityStreamTransport

/// Why the simulator cannot start or serve something, by what is wrong: a bad
/// option, a name given twice, a file that cannot be read, a filter it cannot
/// apply. Each case carries the values that name the problem (an inner typed
/// error where one is wrapped); ``description`` says it in one sentence.
public enum SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    // MARK: Options

    /// `--speed` outside ``TimeBounds/speeds``.
    case speed(Double)
    /// `--interval` (milliseconds) outside ``TimeBounds/milliseconds``.
    case interval(Int64)
    /// The stall fault (milliseconds) outside ``TimeBounds/milliseconds``.
    case stall(Int64)
    /// A client queue outside 1 KiB…1 GiB (bytes).
    case clientQueue(bytes: Int)
    /// A maximum number of clients below 1.
    case maximumClients(Int)
    /// A token expiry (seconds) not above 0 or beyond ``TimeBounds/maximumSeconds``.
    case tokenExpiry(seconds: Double)
    /// A `--cors-origins` entry that is not `scheme://host[:port]` (as given).
    case corsOrigin(String)
    /// `--cors-origins` with neither `*` nor an origin.
    case corsOriginsEmpty
    /// `--close-code` not a usable WebSocket close code (the text).
    case closeCode(String)
    /// A `--close-code` reason over 123 bytes.
    case closeReasonTooLong
    /// `--service NAME=fleet:N` without a count ≥ 1 (`spec`: after the `=`).
    case fleetSize(name: String, spec: String)
    /// `FLAG NAME=VALUE` without `=` (`what`: the value's name, FILE…; `text`: as given).
    case specificationSyntax(flag: String, what: String, text: String)
    /// `FLAG NAME=…` whose name has characters other than letters, digits, `_`, `-`.
    case specificationName(flag: String, name: String)
    /// `FLAG NAME=` with nothing after it.
    case specificationValueMissing(flag: String, name: String, what: String)

    // MARK: Names

    /// Nothing to serve.
    case nothingToServe
    /// A `--service` name given twice.
    case serviceGivenTwice(String)
    /// A `--layer` name given twice.
    case layerGivenTwice(String)
    /// A `--hotspots` name given twice or also a layer's.
    case hotSpotNameGivenTwice(String)
    /// A live service's name (or one of its layers', `role` saying which) is taken.
    case liveNameTaken(String, role: String)
    /// A layer is named as a fleet service's archive layer (`_Latest`).
    case archiveLayerTaken(layer: String, service: String)
    /// A layer is named as a fleet service's vehicle table (`_Vehicles`).
    case vehicleTableTaken(layer: String, service: String)
    /// The layers' maxRecordCount below 1.
    case maxRecordCountBelowOne

    // MARK: Files

    /// A recording that cannot be replayed (`path`: as given).
    case recording(path: String, RecordingError)
    /// A CSV track file that cannot be opened.
    case unreadableCSV(path: String)
    /// A CSV track file that cannot be read.
    case csv(path: String, CSVError)
    /// A CSV track file without a position.
    case noPositions(path: String)
    /// `--track-field` names no column of the CSV file.
    case unknownTrackColumn(String, path: String, columns: [String])
    /// A layer's file cannot be loaded or scanned.
    case layerFile(name: String, FeatureLoadError)
    /// A layer's file changed while it was first read.
    case layerChanged(name: String, path: String)
    /// A streamed layer's first read was cancelled.
    case layerCancelled(name: String)
    /// A streamed layer's first read failed otherwise (the file scans throw
    /// untyped errors; `detail` is the error's text).
    case layerScan(name: String, detail: String)
    /// A hot-spot service's file cannot be loaded.
    case hotSpotFile(name: String, FeatureLoadError)
    /// A hot-spot service's file has no point geometry.
    case hotSpotsWithoutPoints(name: String, path: String)

    // MARK: Serving

    /// The server cannot listen (address, port, TLS files).
    case server(TransportError)
    /// A live store's observations cannot be selected for a hot-spot job.
    case liveTracks(FeatureQueryError)
    /// A subscriber's filter cannot be applied to the service's schema.
    case filter(LocalFilterError)
    /// A subscriber's `geometry` parameter is not an envelope.
    case geometry(FilterError)
    /// A subscriber's `outSR` parameter is not a spatial reference.
    case outSpatialReference(ProjectionError)

    public var description: String {
        switch self {
        case .speed(let speed): return "speed \(speed): \(TimeBounds.problem(speed: speed) ?? "")"
        case .interval(let milliseconds): return "interval \(milliseconds) \(TimeBounds.problem(milliseconds: milliseconds) ?? "")"
        case .stall(let milliseconds): return "stall \(milliseconds) \(TimeBounds.problem(milliseconds: milliseconds) ?? "")"
        case .clientQueue(let bytes): return "client queue of \(bytes) bytes: must be 1 KiB to 1 GiB"
        case .maximumClients(let count): return "maximum clients \(count): must be at least 1"
        case .tokenExpiry(let seconds): return "token expiry after \(seconds) s: \(TimeBounds.problem(seconds: seconds) ?? "must be above 0 seconds")"
        case .corsOrigin(let text): return "--cors-origins: '\(text)' is not an origin (scheme://host[:port], e.g. https://apps.example.com)"
        case .corsOriginsEmpty: return "--cors-origins needs '*' or at least one origin"
        case .closeCode(let text):
            return "--close-code expects a WebSocket close code 1000–4999 (not 1005/1006/1015), optionally ':reason', not '\(text)'"
        case .closeReasonTooLong: return "--close-code reason is longer than 123 bytes"
        case .fleetSize(let name, let spec): return "--service \(name)=\(spec): fleet needs a vehicle count ≥ 1, e.g. fleet:25"
        case .specificationSyntax(let flag, let what, let text): return "\(flag) expects NAME=\(what), not '\(text)'"
        case .specificationName(let flag, let name): return "\(flag) name '\(name)' must be letters, digits, '_' or '-'"
        case .specificationValueMissing(let flag, let name, let what): return "\(flag) \(name)= needs a \(what)"
        case .nothingToServe: return "no service to serve: give --fleet N, --recording FILE, --service NAME=…, --layer NAME=FILE or --hotspots NAME=FILE"
        case .serviceGivenTwice(let name): return "service '\(name)' is given twice"
        case .layerGivenTwice(let name): return "layer '\(name)' is given twice"
        case .hotSpotNameGivenTwice(let name): return "'\(name)' is given twice (hot-spot services and layers need distinct names)"
        case .liveNameTaken(let name, let role): return "'\(name)' (\(role)) is already the name of another service or layer; choose another --name"
        case .archiveLayerTaken(let layer, let service):
            return "'\(layer)' is the archive layer of fleet service \(service); name the other layer differently or give --no-archive"
        case .vehicleTableTaken(let layer, let service):
            return "'\(layer)' is the vehicle table of fleet service \(service); name the other layer differently or give --no-related"
        case .maxRecordCountBelowOne: return "the layers' maxRecordCount must be at least 1"
        case .recording(let path, let error):
            // An unreadable file's error names the file already.
            return error.kind == .unreadable ? error.description : "'\(path)' \(error)"
        case .unreadableCSV(let path): return "cannot read '\(path)'"
        case .csv(let path, let error): return "'\(path)': \(error)"
        case .noPositions(let path): return "'\(path)' holds no positions"
        case .unknownTrackColumn(let name, let path, let columns):
            return "--track-field '\(name)' is not a column of '\(path)' (columns: \(columns.joined(separator: ", ")))"
        case .layerFile(let name, let error): return "layer \(name): \(error)"
        case .layerChanged(let name, let path): return "layer \(name): \(path) changed while it was read"
        case .layerCancelled(let name): return "layer \(name): loading was cancelled"
        case .layerScan(let name, let detail): return "layer \(name): \(detail)"
        case .hotSpotFile(let name, let error): return "hotspots \(name): \(error)"
        case .hotSpotsWithoutPoints(let name, let path):
            return "hotspots \(name): \(path) has no points (map the coordinate columns: --columns \(name)=x=C,y=C,…)"
        case .server(let error): return error.description
        case .liveTracks(let error): return error.description
        case .filter(let error): return error.description
        case .geometry(let error): return error.description
        case .outSpatialReference(let error): return "outSR: \(error)"
        }
    }
}
