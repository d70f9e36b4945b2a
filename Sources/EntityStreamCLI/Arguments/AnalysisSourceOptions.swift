import EntityStream
import EntityStreamCore

/// Where a one-shot analysis reads from — a remote ArcGIS layer URL or a
/// local file — with the options of each: the token and certificate trust
/// for URLs, the column mapping and format for files. Shared by `query`,
/// `statistics` and `hotspots`.
struct AnalysisSourceOptions {
    var source = ""
    var token: String?
    var allowSelfSigned = false
    var load = FeatureLoadOptions()
    var format = OutputFormat.esri

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
        --columns x=C,y=C[,time=C][,end=C][,track=C][,oid=C][,wkid=N]
                                    which CSV columns hold the coordinates, times, ids
        --file-format NAME          force the file's format (\(FeatureFileFormat.names))
      Output (JSON lines on stdout):
        --format esri|geojson       Esri JSON geometry (default) or GeoJSON Features
    """

    /// Consumes `flag` (and its value) if it is one of these options.
    mutating func parse(_ flag: String, from arguments: inout ArgumentList) throws(UsageError) -> Bool {
        switch flag {
        case "--token": token = try arguments.value(for: flag)
        case "--insecure": allowSelfSigned = true
        case "--columns":
            do { load.mapping = try FeatureColumnMapping(parsing: try arguments.value(for: flag)) } catch let error as CSVError {
                throw UsageError("--columns: \(error)")
            } catch let error as UsageError { throw error } catch { throw UsageError("--columns: \(error)") }
        case "--file-format":
            let name = try arguments.value(for: flag)
            guard let format = FeatureFileFormat(name: name) else {
                throw UsageError("--file-format expects one of \(FeatureFileFormat.names), not '\(name)'")
            }
            load.format = format
        case "--format":
            let text = try arguments.value(for: flag)
            guard let parsed = OutputFormat(rawValue: text) else { throw UsageError("--format expects esri or geojson, not '\(text)'") }
            format = parsed
        default:
            return false
        }
        return true
    }

    /// Takes a non-flag word as the source; throws when one was already given.
    mutating func take(_ word: String, command: String) throws(UsageError) {
        guard source.isEmpty else { throw UsageError("\(command): unexpected argument '\(word)'; give one layer URL or file") }
        source = word
    }
}
