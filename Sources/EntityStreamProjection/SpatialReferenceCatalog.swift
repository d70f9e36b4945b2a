import CPROJ
import EntityStreamLocking

/// What PROJ says about every spatial reference this process has named,
/// asked once per reference and kept: how PROJ is given it, its name, whether
/// it is geographic, its unit; and the codes of WKT references.
///
/// One per process (``shared``), guarded by a lock; its PROJ context is used
/// only under that lock. Lookups after the first are a dictionary read.
final class SpatialReferenceCatalog: Sendable {
    static let shared = SpatialReferenceCatalog()

    /// The most distinct WKT references one process registers (each keeps its text).
    static let maximumWKT = 4096

    struct Facts: Sendable {
        var definition: String
        var name: String
        var isGeographic: Bool
        var unitName: String
    }

    private struct State {
        var context: ProjectionContext?
        var facts: [Int: Result<Facts, ProjectionError>] = [:]
        var wktCodes: [String: Int] = [:]
        var wktTexts: [Int: String] = [:]
    }

    private let state = LockedState(State())

    /// The facts about `code`, or why PROJ does not know it.
    func facts(_ code: Int) -> Result<Facts, ProjectionError> {
        state.withLock { state in
            if let known = state.facts[code] { return known }
            let found = Self.lookUp(code, in: &state)
            state.facts[code] = found
            return found
        }
    }

    /// The code of `wkt`: the EPSG WKID PROJ identifies it as, else a
    /// negative code of its own (the same for the same text).
    func code(forWKT wkt: String) throws(ProjectionError) -> Int {
        let result: Result<Int, ProjectionError> = state.withLock { state in
            if let known = state.wktCodes[wkt] { return .success(known) }
            let context: ProjectionContext
            switch Self.context(&state) {
            case .success(let made): context = made
            case .failure(let error): return .failure(error)
            }
            guard let crs = context.crs(wkt) else {
                return .failure(.unknownSpatialReference("WKT", detail: "PROJ cannot read it as a coordinate reference system (\(context.lastError))"))
            }
            defer { proj_destroy(crs) }
            let code: Int
            if let identified = Self.identify(crs, context: context) {
                code = identified
            } else {
                guard state.wktTexts.count < Self.maximumWKT else { return .failure(.tooManyWKT(limit: Self.maximumWKT)) }
                code = -(state.wktTexts.count + 1)
                state.wktTexts[code] = wkt
                state.facts[code] = .success(Self.facts(of: crs, definition: wkt, context: context))
            }
            state.wktCodes[wkt] = code
            return .success(code)
        }
        return try result.get()
    }

    /// The text of WKT reference `code`.
    func wkt(code: Int) -> String? {
        state.withLock { $0.wktTexts[code] }
    }

    // MARK: Under the lock

    private static func context(_ state: inout State) -> Result<ProjectionContext, ProjectionError> {
        if let context = state.context { return .success(context) }
        do {
            let context = try ProjectionContext()
            guard context.hasDatabase else { return .failure(.databaseMissing(detail: context.lastError)) }
            state.context = context
            return .success(context)
        } catch {
            return .failure(error)
        }
    }

    private static func lookUp(_ code: Int, in state: inout State) -> Result<Facts, ProjectionError> {
        guard code > 0 else {
            return .failure(.unknownSpatialReference("code \(code)", detail: "no WKT was registered under it"))
        }
        let context: ProjectionContext
        switch Self.context(&state) {
        case .success(let made): context = made
        case .failure(let error): return .failure(error)
        }
        for definition in ["EPSG:\(code)", "ESRI:\(code)"] {
            guard let crs = context.crs(definition) else { continue }
            defer { proj_destroy(crs) }
            return .success(facts(of: crs, definition: definition, context: context))
        }
        return .failure(.unknownSpatialReference("wkid \(code)", detail: "PROJ knows neither EPSG:\(code) nor ESRI:\(code)"))
    }

    private static func facts(of crs: OpaquePointer, definition: String, context: ProjectionContext) -> Facts {
        let name = proj_get_name(crs).map { String(cString: $0) } ?? definition
        var horizontal = crs
        var component: OpaquePointer?
        if proj_get_type(crs) == PJ_TYPE_COMPOUND_CRS, let first = proj_crs_get_sub_crs(context.pointer, crs, 0) {
            component = first
            horizontal = first
        }
        defer { if let component { proj_destroy(component) } }
        let type = proj_get_type(horizontal)
        let geographic = type == PJ_TYPE_GEOGRAPHIC_2D_CRS || type == PJ_TYPE_GEOGRAPHIC_3D_CRS || type == PJ_TYPE_GEOGRAPHIC_CRS
        var unit = geographic ? "degree" : "unknown unit"
        if let system = proj_crs_get_coordinate_system(context.pointer, horizontal) {
            defer { proj_destroy(system) }
            var unitName: UnsafePointer<CChar>?
            if proj_cs_get_axis_info(context.pointer, system, 0, nil, nil, nil, nil, &unitName, nil, nil) != 0, let unitName {
                unit = String(cString: unitName)
            }
        }
        return Facts(definition: definition, name: name, isGeographic: geographic, unitName: unit)
    }

    /// The EPSG code PROJ identifies `crs` as with full confidence.
    private static func identify(_ crs: OpaquePointer, context: ProjectionContext) -> Int? {
        var confidences: UnsafeMutablePointer<Int32>?
        guard let matches = proj_identify(context.pointer, crs, "EPSG", nil, &confidences) else { return nil }
        defer {
            proj_list_destroy(matches)
            proj_int_list_destroy(confidences)
        }
        guard proj_list_get_count(matches) > 0, let confidences, confidences[0] == 100,
              let best = proj_list_get(context.pointer, matches, 0) else { return nil }
        defer { proj_destroy(best) }
        guard let code = proj_get_id_code(best, 0).flatMap({ Int(String(cString: $0)) }), code > 0 else { return nil }
        return code
    }
}
