extension EsriFeatureDecoder {
    /// Reads a feature's "geometry" value (after its key) into `feature`.
    /// The readers are static: the decoder's mutating methods call them, and
    /// an instance method would be handed a copy of the whole decoder.
    static func readGeometry(_ scanner: inout JSONScanner, depth: Int, maxDepth: Int, into feature: inout FeatureParts) throws(JSONError) {
        feature.geometry = try readGeometryValue(&scanner, depth: depth, maxDepth: maxDepth)
        feature.hasGeometry = true
    }

    private static func readGeometryValue(_ scanner: inout JSONScanner, depth: Int, maxDepth: Int) throws(JSONError) -> GeometryResult {
        let first = scanner.skipWhitespace()
        let geometryStart = scanner.position
        if first == ASCII.n {
            _ = try scanner.scanLiteral(first)
            return .none
        }
        guard first == ASCII.openBrace else {
            throw scanner.mismatch("\"geometry\" must be an object or null", found: first)
        }
        guard depth < maxDepth else { throw JSONScanner.depthError(maxDepth: maxDepth, at: geometryStart) }
        var x = Coordinate.absent
        var y = Coordinate.absent
        var z = Coordinate.absent
        var m = Coordinate.absent
        var wkid: Int?
        var latestWkid: Int?
        var nonPointKind: NonPointKind?
        if scanner.enterObject() {
            repeat {
                switch scanner.withDecodedBytes(try scanner.scanKey(), GeometryKey.init(classifying:)) {
                case .x: x = try readCoordinate(&scanner)
                case .y: y = try readCoordinate(&scanner)
                case .z: z = try readCoordinate(&scanner)
                case .m: m = try readCoordinate(&scanner)
                case .spatialReference:
                    try readSpatialReference(&scanner, depth: depth + 1, maxDepth: maxDepth, wkid: &wkid, latestWkid: &latestWkid)
                case .nonPoint(let kind):
                    nonPointKind = kind
                    try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
                case .other:
                    try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
                }
            } while try scanner.nextMember()
        }
        if let nonPointKind { return .nonPoint(nonPointKind) }
        switch (x, y) {
        case (.value(let xValue), .value(let yValue)):
            return .point(Point(x: xValue, y: yValue, z: z.value, m: m.value, wkid: wkid ?? latestWkid))
        case (.absent, .absent), (.empty, _), (_, .empty):
            return .none
        default:
            throw scanner.error("a point geometry needs both \"x\" and \"y\"", at: geometryStart)
        }
    }

    /// A number, or null / "NaN" (an empty coordinate).
    @inline(__always)
    private static func readCoordinate(_ scanner: inout JSONScanner) throws(JSONError) -> Coordinate {
        let next = scanner.skipWhitespace()
        switch next {
        case ASCII.minus, ASCII.zero...ASCII.nine:
            return .value(try scanner.scanNumber().doubleValue)
        case ASCII.n:
            _ = try scanner.scanLiteral(next)
            return .empty
        case ASCII.quote:
            let valueStart = scanner.position
            let token = try scanner.scanString()
            if scanner.withDecodedBytes(token, { LiteralBytes.equals($0, "NaN") }) { return .empty }
            throw scanner.error("a coordinate must be a number, null or \"NaN\"", at: valueStart)
        default:
            throw scanner.mismatch("a coordinate must be a number, null or \"NaN\"", found: next)
        }
    }

    private static func readSpatialReference(_ scanner: inout JSONScanner, depth: Int, maxDepth: Int, wkid: inout Int?, latestWkid: inout Int?) throws(JSONError) {
        let first = scanner.skipWhitespace()
        let start = scanner.position
        if first == ASCII.n {
            _ = try scanner.scanLiteral(first)
            return
        }
        guard first == ASCII.openBrace else {
            throw scanner.mismatch("\"spatialReference\" must be an object or null", found: first)
        }
        guard depth < maxDepth else { throw JSONScanner.depthError(maxDepth: maxDepth, at: start) }
        guard scanner.enterObject() else { return }
        repeat {
            switch scanner.withDecodedBytes(try scanner.scanKey(), SpatialReferenceKey.init(classifying:)) {
            case .wkid: wkid = try readWellKnownID(&scanner)
            case .latestWkid: latestWkid = try readWellKnownID(&scanner)
            case .other: try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
            }
        } while try scanner.nextMember()
    }

    /// An integral number (or null → nil).
    private static func readWellKnownID(_ scanner: inout JSONScanner) throws(JSONError) -> Int? {
        let next = scanner.skipWhitespace()
        let valueStart = scanner.position
        switch next {
        case ASCII.minus, ASCII.zero...ASCII.nine:
            let id: Int?
            switch try scanner.scanNumber() {
            case .int(let i): id = Int(exactly: i)
            case .double(let d): id = Int(exactly: d)
            }
            if let id { return id }
        case ASCII.n:
            _ = try scanner.scanLiteral(next)
            return nil
        default:
            break
        }
        throw scanner.mismatch("a well-known id must be an integer", found: next, at: valueStart)
    }
}
