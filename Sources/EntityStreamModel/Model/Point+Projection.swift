import EntityStreamProjection

extension Point {
    /// This point in spatial reference `target`, through PROJ: x, y
    /// transformed, z and m kept, `wkid` set to the target's code. A point
    /// without a spatial reference is taken to be in `assumed`, and returned
    /// unchanged (apart from its code) when that is nil too or the same as
    /// the target.
    /// - Throws: ``ProjectionError`` for an unknown reference, a pair PROJ
    ///   cannot transform between, or a point outside the projection's domain.
    public func converted(to target: SpatialReference, assuming assumed: SpatialReference? = nil) throws(ProjectionError) -> Point {
        var result = self
        guard let source = SpatialReference(code: wkid) ?? assumed, source != target else {
            result.wkid = target.code
            return result
        }
        let (x, y) = try CoordinateOperations.transform(x: x, y: y, from: source, to: target)
        result.x = x
        result.y = y
        result.wkid = target.code
        return result
    }

    /// Converts `points` into `target` in place, in one PROJ call per run of
    /// points in the same spatial reference (points without one are in
    /// `assumed`; without that either they are only relabelled). A point PROJ
    /// cannot transform becomes NaN (and is counted in the result).
    /// - Throws: ``ProjectionError`` for an unknown reference or a pair PROJ cannot transform between.
    @discardableResult
    public static func convert(_ points: inout [Point], to target: SpatialReference, assuming assumed: SpatialReference? = nil)
        throws(ProjectionError) -> Int {
        var failed = 0
        var start = 0
        let xOffset = MemoryLayout<Point>.offset(of: \Point.x) ?? 0
        let yOffset = MemoryLayout<Point>.offset(of: \Point.y) ?? 8
        while start < points.count {
            let code = points[start].wkid
            var end = start + 1
            while end < points.count, points[end].wkid == code { end += 1 }
            if let source = SpatialReference(code: code) ?? assumed, source != target {
                let range = start..<end
                let result: Result<Int, ProjectionError> = points.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return .success(0) }
                    let first = base.advanced(by: range.lowerBound * MemoryLayout<Point>.stride)
                    return Result { () throws(ProjectionError) in
                        try CoordinateOperations.transform(
                            x: first.advanced(by: xOffset).assumingMemoryBound(to: Double.self), xStride: MemoryLayout<Point>.stride,
                            y: first.advanced(by: yOffset).assumingMemoryBound(to: Double.self), yStride: MemoryLayout<Point>.stride,
                            count: range.count, from: source, to: target)
                    }
                }
                failed += try result.get()
            }
            for index in start..<end { points[index].wkid = target.code }
            start = end
        }
        return failed
    }
}
