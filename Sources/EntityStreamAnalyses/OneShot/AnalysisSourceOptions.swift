import EntityStreamCommandLine
import EntityStream
import EntityStreamCore
import EntityStreamProjection
import EntityStreamFeatures

/// Where a one-shot analysis reads from — a remote ArcGIS layer URL or a
/// local file — with the options of each: the token and certificate trust
/// for URLs, the column mapping, the coordinates' spatial reference and the
/// format for files; and what it writes. Shared by `query`, `statistics`
/// and `hotspots`.
struct AnalysisSourceOptions {
    var source = ""
    var token: String?
    var allowSelfSigned = false
    var load = FeatureLoadOptions()
    var format = OutputFormat.esri
    /// `--progress` (true) or `--no-progress` (false); nil: progress on stderr when it is a terminal.
    var progress: Bool?
    /// `--in-sr` or a column mapping's `wkid=` was given.
    var inputReferenceGiven = false

    /// True when the source is an http(s) URL rather than a file.
    var isRemote: Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    var remote: RemoteServiceOptions { RemoteServiceOptions(token: token, allowSelfSignedCertificates: allowSelfSigned) }

    static let help = """
      Source (a layer URL or a file):
        --token T                   ArcGIS token for the layer (never printed)
        --insecure                  accept a self-signed TLS certificate (local simulator only)
        --columns x=C,y=C[,time=C][,end=C][,track=C][,oid=C]
                                    which columns hold the coordinates, times, ids (time=none: no time)
        --in-sr SR                  the spatial reference of the file's coordinates (default: the
                                    file's own, else 4326): a WKID, EPSG:n, ESRI:n or WKT
        --file-format NAME          force the file's format (\(FeatureFileFormat.names))
      Output (on stdout):
        --format esri|geojson|csv   Esri JSON lines (default); or the results for a GIS: one GeoJSON
                                    Feature per line (WGS84), or a CSV table with x/y columns (WGS84
                                    unless --out-sr), the other lines as JSON on stderr
        --progress, --no-progress   draw the progress of reading a file (rows, rows/s, percent) on
                                    stderr even when it is not a terminal, or never (default: on a
                                    terminal only; stdout never carries it)
    """

    /// Consumes `flag` (and its value) if it is one of these options.
    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--token": token = try arguments.value(for: flag)
        case "--insecure": allowSelfSigned = true
        case "--columns":
            let wkid = load.mapping.wkid
            load.mapping = try arguments.columnMapping(for: flag)
            if load.mapping.wkid != nil { inputReferenceGiven = true } else { load.mapping.wkid = wkid }
        case "--in-sr":
            load.mapping.wkid = try arguments.spatialReference(for: flag).code
            inputReferenceGiven = true
        case "--file-format":
            load.format = try ArgumentList.fileFormat(try arguments.value(for: flag), flag: flag)
        case "--format":
            format = try arguments.format(for: flag)
        case "--progress": progress = true
        case "--no-progress": progress = false
        default:
            return false
        }
        return true
    }

    /// Takes a non-flag word as the source; throws when one was already given.
    mutating func take(_ word: String, command: String) throws(UsageError) {
        guard source.isEmpty else { throw .unexpectedArgument(word, command: command, expected: "one layer URL or file") }
        source = word
    }

    /// Checks what only a file takes, for a URL source.
    func checkRemote(command: String) throws(UsageError) {
        guard isRemote else { return }
        if load != FeatureLoadOptions() || inputReferenceGiven {
            throw .notApplicable(["--columns", "--in-sr", "--file-format"], command: command, scope: "a local file, not to a service URL")
        }
    }
}
