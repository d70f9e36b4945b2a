/// A spatial reference as ArcGIS names one: a well-known id (WKID: an EPSG
/// code, or one of Esri's own such as 102100 or 54030), or WKT where ArcGIS
/// accepts `{"wkt": …}`.
///
/// Held as one integer, ``code``, so that a point can carry its reference in
/// four bytes:
/// - a WKID is its own code (positive). The Web Mercator aliases 102100,
///   102113 and 900913 become 3857 (PROJ's database has no 900913), and of
///   `{"wkid":…, "latestWkid":…}` the latest is used when PROJ knows it;
/// - a WKT that PROJ identifies as an EPSG CRS becomes that WKID; any other
///   valid WKT gets a negative code of this process (registered once per
///   distinct text, at most ``SpatialReferenceCatalog/maximumWKT``), which
///   gives its text back (``wkt``) for output.
///
/// PROJ resolves a WKID as `EPSG:n`, then `ESRI:n`; ``validate()`` says
/// whether it knows the reference, with an error naming it when not.
/// Coordinates are always in traditional GIS order, as ArcGIS uses them:
/// x = longitude or easting, y = latitude or northing (whatever order the
/// CRS's own definition gives its axes). Value type; `Sendable`.
public struct SpatialReference: Sendable, Hashable, CustomStringConvertible {
    /// The WKID (positive), or a WKT reference's code in this process (negative).
    public let code: Int

    /// WGS84 longitude/latitude (EPSG:4326).
    public static let wgs84 = SpatialReference(wkid: 4326)
    /// Web Mercator (EPSG:3857; Esri 102100).
    public static let webMercator = SpatialReference(wkid: 3857)
    /// The ids that denote Web Mercator.
    public static let webMercatorAliases: Set<Int> = [3857, 102100, 102113, 900913]
    /// The largest WKID (WKIDs are 32-bit).
    public static let maximumWKID = Int(Int32.max)

    /// The reference for WKID `wkid` (positive; Web Mercator aliases become 3857).
    public init(wkid: Int) {
        code = Self.webMercatorAliases.contains(wkid) ? 3857 : wkid
    }

    /// `{"wkid":…,"latestWkid":…}`: the latest id when given and known to
    /// PROJ, else `wkid` (else the latest).
    public init(wkid: Int?, latestWkid: Int?) {
        switch (wkid, latestWkid) {
        case (let wkid?, let latest?):
            let candidate = SpatialReference(wkid: latest)
            self = (try? candidate.validate()) != nil ? candidate : SpatialReference(wkid: wkid)
        case (let wkid?, nil): self.init(wkid: wkid)
        case (nil, let latest?): self.init(wkid: latest)
        case (nil, nil): self.init(wkid: 0)
        }
    }

    /// The reference a point carries as its code (see ``code``; a WKID
    /// alias is normalised as ``init(wkid:)`` does); nil for nil or 0.
    public init?(code: Int?) {
        guard let code, code != 0 else { return nil }
        self.code = Self.webMercatorAliases.contains(code) ? 3857 : code
    }

    private init(rawCode: Int) {
        code = rawCode
    }

    /// The reference defined by `wkt` (OGC or Esri WKT, or PROJJSON): the
    /// EPSG WKID PROJ identifies it as, else a code of this process.
    /// - Throws: ``ProjectionError/unknownSpatialReference(_:detail:)`` when PROJ
    ///   cannot read it as a coordinate reference system.
    public init(wkt: String) throws(ProjectionError) {
        self.init(rawCode: try SpatialReferenceCatalog.shared.code(forWKT: wkt))
    }

    /// The WKID, or nil for a reference known only by its WKT.
    public var wkid: Int? { code > 0 ? code : nil }

    /// The WKT of a reference given as WKT (nil for a WKID).
    public var wkt: String? { code < 0 ? SpatialReferenceCatalog.shared.wkt(code: code) : nil }

    /// True for WGS84 longitude/latitude.
    public var isWGS84: Bool { code == 4326 }

    /// True for Web Mercator.
    public var isWebMercator: Bool { code == 3857 }

    /// Throws when PROJ does not know this reference (the error names it).
    public func validate() throws(ProjectionError) {
        _ = try SpatialReferenceCatalog.shared.facts(code).get()
    }

    /// True when the CRS is geographic (longitude/latitude in degrees).
    public func isGeographic() throws(ProjectionError) -> Bool {
        try SpatialReferenceCatalog.shared.facts(code).get().isGeographic
    }

    /// The CRS's name as PROJ gives it (`NAD83(HARN) / Oregon North (ft)`).
    public func name() throws(ProjectionError) -> String {
        try SpatialReferenceCatalog.shared.facts(code).get().name
    }

    /// The unit of the first axis as PROJ names it (`metre`, `US survey foot`, `degree`).
    public func unitName() throws(ProjectionError) -> String {
        try SpatialReferenceCatalog.shared.facts(code).get().unitName
    }

    /// The text given to PROJ for it: `EPSG:n`, `ESRI:n` or the WKT.
    public func projDefinition() throws(ProjectionError) -> String {
        try SpatialReferenceCatalog.shared.facts(code).get().definition
    }

    /// How messages name it: its PROJ definition (`EPSG:2913`, `ESRI:54030`),
    /// else its description.
    public var label: String {
        if wkid != nil, let definition = try? projDefinition() { return definition }
        return description
    }

    /// `wkid 2913`, or `WKT "name"` for a WKT reference.
    public var description: String {
        if let wkid { return "wkid \(wkid)" }
        let crsName = (try? name()) ?? "custom"
        return "WKT \"\(crsName)\""
    }

    /// Parses a spatial reference as a command line gives it: a WKID
    /// (`2913`), an authority and code (`EPSG:2913`, `ESRI:102100`), or WKT
    /// (`PROJCS[…]`, `PROJCRS[…]`, `GEOGCS[…]`…). JSON forms
    /// (`{"wkid":…}`, `{"wkt":…}`) are read by the JSON layer above this
    /// module. The reference is checked with PROJ.
    /// - Throws: ``ProjectionError`` naming the text and why.
    public static func parse(_ text: String) throws(ProjectionError) -> SpatialReference {
        let trimmed = text.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .malformed(text, reason: "it is empty (give a WKID such as 4326, or WKT)") }
        if let wkid = Int(trimmed) {
            guard wkid > 0, wkid <= maximumWKID else {
                throw .malformed(text, reason: "a WKID is a whole number from 1 to \(maximumWKID)")
            }
            let reference = SpatialReference(wkid: wkid)
            try reference.validate()
            return reference
        }
        if let colon = trimmed.firstIndex(of: ":"), !trimmed.contains("[") {
            let authority = trimmed[..<colon].uppercased()
            let number = trimmed[trimmed.index(after: colon)...]
            guard authority == "EPSG" || authority == "ESRI", let wkid = Int(number), wkid > 0, wkid <= maximumWKID else {
                throw .malformed(text, reason: "expected a WKID (4326), EPSG:n, ESRI:n or WKT")
            }
            let reference = SpatialReference(wkid: wkid)
            try reference.validate()
            return reference
        }
        guard trimmed.contains("[") || trimmed.hasPrefix("{") || trimmed.hasPrefix("+") else {
            throw .malformed(text, reason: "expected a WKID (4326), EPSG:n, ESRI:n or WKT")
        }
        return try SpatialReference(wkt: trimmed)
    }
}

extension String {
    /// Without leading and trailing spaces, tabs, CR and LF.
    var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" || first == "\r" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" || last == "\r" { scalars.removeLast() }
        return String(scalars)
    }
}
