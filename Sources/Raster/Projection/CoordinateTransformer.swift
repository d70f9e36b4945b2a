import CPROJ

/// Transforms points between a source spatial reference and a target CRS
/// with PROJ, in traditional GIS axis order (x = longitude/easting,
/// y = latitude/northing: `proj_normalize_for_visualization`).
///
/// Each transformer owns its own `PJ_CONTEXT` (PROJ contexts are not
/// thread-safe) with network grids disabled: it never reaches the network,
/// and uses the grids installed locally or PROJ's next-best operation
/// (``missingGrids`` names the grids the best operation would have used).
/// Not thread-safe: confined to one thread/actor at a time, like the raster
/// that owns it. Creating one opens PROJ's database (milliseconds); a
/// transformation is then a function call (≈0.2 µs for UTM).
final class CoordinateTransformer {
    /// The source and target as given to PROJ (`EPSG:4326`, `+proj=…`).
    let source: String
    let target: String
    /// Grids (PROJ short names) used by the most accurate operation between
    /// the two that are not installed; empty when the best one is in use.
    let missingGrids: [String]
    private let context: OpaquePointer
    private let transformation: OpaquePointer
    private let messages: UnsafeMutablePointer<es_proj_messages>

    /// A transformer from the first of `sourceCandidates` PROJ knows to `target`.
    init(sourceCandidates: [String], target: String) throws(RasterError) {
        let messages = UnsafeMutablePointer<es_proj_messages>.allocate(capacity: 1)
        guard let context = es_proj_context_create(messages) else {
            messages.deallocate()
            throw RasterError.noTransformation(from: sourceCandidates.first ?? "?", to: target, detail: "PROJ could not create a context")
        }
        var objects: [OpaquePointer] = []
        func fail(_ error: RasterError) -> RasterError {
            for object in objects { proj_destroy(object) }
            proj_context_destroy(context)
            messages.deallocate()
            return error
        }
        func lastError() -> String {
            let logged = String(cString: es_proj_messages_last_error(messages))
            if !logged.isEmpty { return logged }
            return String(cString: proj_context_errno_string(context, proj_context_errno(context)))
        }
        guard proj_context_get_database_path(context) != nil else {
            throw fail(.projDatabaseMissing(detail: lastError()))
        }
        func crs(_ definition: String) -> OpaquePointer? {
            guard let object = proj_create(context, definition) else { return nil }
            guard proj_is_crs(object) != 0 else {
                proj_destroy(object)
                return nil
            }
            return object
        }
        var sourceCRS: OpaquePointer?
        var sourceName = sourceCandidates.first ?? "?"
        for candidate in sourceCandidates {
            if let found = crs(candidate) {
                sourceCRS = found
                sourceName = candidate
                break
            }
        }
        guard let sourceCRS else {
            throw fail(.unknownSpatialReference(definition: sourceCandidates.joined(separator: " or "),
                                                detail: "PROJ knows no coordinate reference system by that name (\(lastError()))"))
        }
        objects.append(sourceCRS)
        guard let targetCRS = crs(target) else {
            throw fail(.unknownSpatialReference(definition: target, detail: "PROJ knows no coordinate reference system by that name (\(lastError()))"))
        }
        objects.append(targetCRS)
        guard let raw = proj_create_crs_to_crs_from_pj(context, sourceCRS, targetCRS, nil, nil) else {
            throw fail(.noTransformation(from: sourceName, to: target, detail: lastError()))
        }
        objects.append(raw)
        guard let normalized = proj_normalize_for_visualization(context, raw) else {
            throw fail(.noTransformation(from: sourceName, to: target, detail: lastError()))
        }
        let missing = CoordinateTransformer.missingGrids(context: context, source: sourceCRS, target: targetCRS)
        for object in objects { proj_destroy(object) }
        self.source = sourceName
        self.target = target
        self.missingGrids = missing
        self.context = context
        self.transformation = normalized
        self.messages = messages
    }

    deinit {
        proj_destroy(transformation)
        proj_context_destroy(context)
        messages.deallocate()
    }

    /// Source → target. Throws ``RasterError/cannotTransform(x:y:from:to:detail:)``
    /// when PROJ cannot (outside the projection's domain, latitude beyond ±90°).
    @inline(__always) func forward(x: Double, y: Double) throws(RasterError) -> (x: Double, y: Double) {
        try run(x: x, y: y, direction: PJ_FWD, from: source, to: target)
    }

    /// Target → source.
    @inline(__always) func inverse(x: Double, y: Double) throws(RasterError) -> (x: Double, y: Double) {
        try run(x: x, y: y, direction: PJ_INV, from: target, to: source)
    }

    @inline(__always) private func run(x: Double, y: Double, direction: PJ_DIRECTION, from: String, to: String) throws(RasterError) -> (x: Double, y: Double) {
        let result = proj_trans(transformation, direction, proj_coord(x, y, 0, .infinity))
        let out = (x: result.xy.x, y: result.xy.y)
        guard out.x.isFinite && out.y.isFinite else { throw failure(x: x, y: y, from: from, to: to) }
        return out
    }

    private func failure(x: Double, y: Double, from: String, to: String) -> RasterError {
        let code = proj_errno(transformation)
        var detail = String(cString: es_proj_messages_last_error(messages))
        if detail.isEmpty { detail = String(cString: proj_context_errno_string(context, code)) }
        proj_errno_reset(transformation)
        messages.pointee.errors = 0
        messages.pointee.last_error.0 = 0
        return .cannotTransform(x: x, y: y, from: from, to: to, detail: detail.isEmpty ? "PROJ error \(code)" : detail)
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
