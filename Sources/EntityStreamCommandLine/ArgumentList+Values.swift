import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures

/// The values both programs' flags share, read one way everywhere: spatial
/// references, envelopes, time extents, column mappings, output formats,
/// where clauses. Each failure is a ``UsageError`` naming the flag
/// (``UsageError/invalidValue(flag:error:)`` carrying the parser's own error).
extension ArgumentList {
    /// A spatial reference (`--out-sr`, `--in-sr`, `--process-sr`): a WKID
    /// (`2913`), `EPSG:n`, `ESRI:n`, WKT, or `{"wkid":…}`/`{"wkt":…}`,
    /// checked with PROJ (an unknown WKID is refused by name).
    public mutating func spatialReference(for flag: String) throws(UsageError) -> SpatialReference {
        try value(for: flag) { text throws(ProjectionError) in try SpatialReference.parse(text: text) }
    }

    /// An envelope (`--geometry`): `xmin,ymin,xmax,ymax[,SR]` or an Esri
    /// envelope JSON object, its spatial reference checked with PROJ.
    public mutating func envelope(for flag: String) throws(UsageError) -> Envelope {
        try value(for: flag) { text in try StreamFilter.parseEnvelope(text) }
    }

    /// A time extent (`--time START,END`; either end may be empty).
    public mutating func timeExtent(for flag: String) throws(UsageError) -> TimeExtent {
        try value(for: flag) { text throws(TimeExtentError) in try TimeExtent.parseArgument(text) }
    }

    /// One instant (ISO-8601 or epoch milliseconds), as epoch milliseconds.
    public mutating func instant(for flag: String) throws(UsageError) -> Int64 {
        try value(for: flag) { text in try Instant.parse(text) }
    }

    /// A column mapping (`--columns x=C,y=C,time=C,end=C,track=C,oid=C`);
    /// the deprecated keys (`id=` for `track=`, `wkid=N` for `--in-sr N`)
    /// are read with a warning.
    public mutating func columnMapping(for flag: String) throws(UsageError) -> FeatureColumnMapping {
        try Self.columnMapping(try value(for: flag), flag: flag, program: program)
    }

    /// `text` read as a column mapping for `flag` (see ``columnMapping(for:)``).
    public static func columnMapping(_ text: String, flag: String, program: String) throws(UsageError) -> FeatureColumnMapping {
        let mapping: FeatureColumnMapping
        do { mapping = try FeatureColumnMapping(parsing: text) } catch { throw .invalidValue(flag: flag, error: error) }
        for key in FeatureColumnMapping.deprecatedKeys(in: text) {
            Deprecation.warn(program: program, "\(flag) \(key)= is deprecated; use \(key == "id" ? "track=" : "--in-sr")")
        }
        if let wkid = mapping.wkid {
            do { try SpatialReference(wkid: wkid).validate() } catch { throw .invalidValue(flag: flag, error: error) }
        }
        return mapping
    }

    /// An output format among `allowed` (`--format esri|geojson|csv`).
    /// GeoJSON is WGS84 (RFC 7946): an --out-sr other than 4326 is refused with it.
    public static func checkFormat(_ format: OutputFormat, outSR: SpatialReference?) throws(UsageError) {
        if format == .geojson, let outSR, outSR != .wgs84 {
            throw .conflicting(["--format geojson", "--out-sr \(outSR.label)"],
                               reason: "GeoJSON is WGS84 longitude/latitude (RFC 7946); use --format csv or esri for other coordinates")
        }
    }

    public mutating func format(for flag: String, allowed: [OutputFormat] = OutputFormat.allCases) throws(UsageError) -> OutputFormat {
        try choice(for: flag, among: allowed)
    }

    /// `text` read as a file format name for `flag` (`--file-format csv`, or the
    /// simulator's `--file-format NAME=csv`).
    public static func fileFormat(_ text: String, flag: String) throws(UsageError) -> FeatureFileFormat {
        guard let format = FeatureFileFormat(name: text) else {
            throw .notOneOf(flag: flag, value: text, choices: FeatureFileFormat.allCases.map(\.name))
        }
        return format
    }

    /// A where clause (`--where SQL`), its syntax checked.
    public mutating func whereClause(for flag: String) throws(UsageError) -> String {
        let text = try value(for: flag)
        do { try WhereClause.checkSyntax(text) } catch { throw .invalidValue(flag: flag, error: error) }
        return text
    }
}
