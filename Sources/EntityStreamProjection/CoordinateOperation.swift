import CPROJ

/// A transformation between two spatial references with PROJ, in
/// traditional GIS axis order (x = longitude/easting, y = latitude/northing:
/// `proj_normalize_for_visualization`), forward (source → target) and
/// inverse, one point at a time or a whole batch in one call
/// (`proj_trans_generic`).
///
/// Creating one opens PROJ's database and searches its operations
/// (milliseconds); transforming is then a function call (0.1–0.3 µs a
/// point). So operations are made once and reused: ``CoordinateOperations``
/// keeps them per pair. An operation owns its PROJ context (not
/// thread-safe, network grids off: only locally installed grids, else
/// PROJ's next-best operation, ``missingGrids()`` naming what the best would
/// have used) and is used by one thread at a time: whoever borrowed it.
/// Between the same two references it is the identity (no PROJ call).
public final class CoordinateOperation: @unchecked Sendable {
    public let source: SpatialReference
    public let target: SpatialReference
    private let definitions: (source: String, target: String)?
    private let context: ProjectionContext?
    private let transformation: OpaquePointer?
    private let sourceName: String
    private let targetName: String

    /// The direction of a transformation.
    public enum Direction: Sendable {
        /// Source → target.
        case forward
        /// Target → source.
        case inverse
    }

    /// The operation from `source` to `target`.
    /// - Throws: ``ProjectionError`` naming a reference PROJ does not know,
    ///   or the pair it has no transformation for.
    public init(from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) {
        self.source = source
        self.target = target
        sourceName = source.label
        targetName = target.label
        if source == target {
            try source.validate()
            context = nil
            transformation = nil
            definitions = nil
            return
        }
        let sourceDefinition = try source.projDefinition()
        let targetDefinition = try target.projDefinition()
        let context = try ProjectionContext()
        guard context.hasDatabase else { throw .databaseMissing(detail: context.lastError) }
        guard let sourceCRS = context.crs(sourceDefinition) else {
            throw .unknownSpatialReference(sourceName, detail: context.lastError)
        }
        defer { proj_destroy(sourceCRS) }
        guard let targetCRS = context.crs(targetDefinition) else {
            throw .unknownSpatialReference(targetName, detail: context.lastError)
        }
        defer { proj_destroy(targetCRS) }
        guard let raw = proj_create_crs_to_crs_from_pj(context.pointer, sourceCRS, targetCRS, nil, nil) else {
            throw .noTransformation(from: sourceName, to: targetName, detail: context.lastError)
        }
        defer { proj_destroy(raw) }
        guard let normalized = proj_normalize_for_visualization(context.pointer, raw) else {
            throw .noTransformation(from: sourceName, to: targetName, detail: context.lastError)
        }
        definitions = (sourceDefinition, targetDefinition)
        self.context = context
        transformation = normalized
    }

    deinit {
        if let transformation { proj_destroy(transformation) }
    }

    /// True when source and target are the same reference (nothing to do).
    public var isIdentity: Bool { transformation == nil }

    /// Source → target.
    /// - Throws: ``ProjectionError/cannotTransform(x:y:from:to:detail:)`` when
    ///   PROJ cannot (outside the projection's domain, latitude beyond ±90°).
    @inline(__always) public func forward(x: Double, y: Double) throws(ProjectionError) -> (x: Double, y: Double) {
        try transform(x: x, y: y, .forward)
    }

    /// Target → source.
    @inline(__always) public func inverse(x: Double, y: Double) throws(ProjectionError) -> (x: Double, y: Double) {
        try transform(x: x, y: y, .inverse)
    }

    /// One point in `direction`.
    @inline(__always) public func transform(x: Double, y: Double, _ direction: Direction) throws(ProjectionError) -> (x: Double, y: Double) {
        guard let transformation else { return (x, y) }
        let result = proj_trans(transformation, direction == .forward ? PJ_FWD : PJ_INV, proj_coord(x, y, 0, .infinity))
        let out = (x: result.xy.x, y: result.xy.y)
        guard out.x.isFinite && out.y.isFinite else { throw failure(x: x, y: y, direction) }
        return out
    }

    /// Transforms `count` points in place in one PROJ call: x values at
    /// `x`, `x + xStride`, …, y values likewise (strides in bytes, so
    /// interleaved pairs and arrays of structs work as they are). A point
    /// PROJ cannot transform becomes (NaN, NaN); returns how many did.
    /// Non-finite input stays non-finite.
    @discardableResult
    public func transform(x: UnsafeMutablePointer<Double>, xStride: Int, y: UnsafeMutablePointer<Double>, yStride: Int,
                          count: Int, _ direction: Direction) -> Int {
        guard let transformation, count > 0 else { return 0 }
        proj_trans_generic(transformation, direction == .forward ? PJ_FWD : PJ_INV,
                           x, xStride, count, y, yStride, count, nil, 0, 0, nil, 0, 0)
        var failed = 0
        var px = x, py = y
        for _ in 0..<count {
            if !(px.pointee.isFinite && py.pointee.isFinite) {
                px.pointee = .nan
                py.pointee = .nan
                failed += 1
            }
            px = UnsafeMutableRawPointer(px).advanced(by: xStride).assumingMemoryBound(to: Double.self)
            py = UnsafeMutableRawPointer(py).advanced(by: yStride).assumingMemoryBound(to: Double.self)
        }
        if failed > 0 {
            proj_errno_reset(transformation)
            context?.clearError()
        }
        return failed
    }

    /// Transforms two arrays of equal length in place (see ``transform(x:xStride:y:yStride:count:_:)``).
    @discardableResult
    public func transform(x: inout [Double], y: inout [Double], _ direction: Direction = .forward) -> Int {
        let count = min(x.count, y.count)
        return x.withUnsafeMutableBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                guard let xBase = xs.baseAddress, let yBase = ys.baseAddress else { return 0 }
                return transform(x: xBase, xStride: 8, y: yBase, yStride: 8, count: count, direction)
            }
        }
    }

    /// The error for a point that failed, with PROJ's reason; clears it.
    private func failure(x: Double, y: Double, _ direction: Direction) -> ProjectionError {
        var detail = context?.lastError ?? ""
        if let transformation {
            let code = proj_errno(transformation)
            if detail.isEmpty || detail == "Unknown error (code 0)" {
                detail = String(cString: proj_context_errno_string(context?.pointer, code))
            }
            proj_errno_reset(transformation)
        }
        context?.clearError()
        let (from, to) = direction == .forward ? (sourceName, targetName) : (targetName, sourceName)
        return .cannotTransform(x: x, y: y, from: from, to: to, detail: detail.isEmpty ? "outside the projection's domain" : detail)
    }

    /// Grids (PROJ short names) the most accurate operation between the two
    /// would use that are not installed; empty when the best one is in use
    /// (or for the identity). Searches PROJ's database: call it once, not per point.
    public func missingGrids() -> [String] {
        guard let context, let definitions, let source = context.crs(definitions.source) else { return [] }
        defer { proj_destroy(source) }
        guard let target = context.crs(definitions.target) else { return [] }
        defer { proj_destroy(target) }
        return Self.missingGrids(context: context.pointer, source: source, target: target)
    }

    /// The grids of the most accurate operation PROJ knows between the two
    /// CRSs (grid availability ignored) that are not installed here.
    private static func missingGrids(context: OpaquePointer, source: OpaquePointer, target: OpaquePointer) -> [String] {
        guard let factory = proj_create_operation_factory_context(context, nil) else { return [] }
        defer { proj_operation_factory_context_destroy(factory) }
        proj_operation_factory_context_set_grid_availability_use(context, factory, PROJ_GRID_AVAILABILITY_IGNORED)
        proj_operation_factory_context_set_spatial_criterion(context, factory, PROJ_SPATIAL_CRITERION_PARTIAL_INTERSECTION)
        guard let operations = proj_create_operations(context, source, target, factory) else { return [] }
        defer { proj_list_destroy(operations) }
        guard proj_list_get_count(operations) > 0, let best = proj_list_get(context, operations, 0) else { return [] }
        defer { proj_destroy(best) }
        var missing: [String] = []
        for index in 0..<proj_coordoperation_get_grid_used_count(context, best) {
            var shortName: UnsafePointer<CChar>?
            var available: Int32 = 0
            guard proj_coordoperation_get_grid_used(context, best, index, &shortName, nil, nil, nil, nil, nil, &available) != 0 else { continue }
            if available == 0, let shortName { missing.append(String(cString: shortName)) }
        }
        return missing
    }
}
