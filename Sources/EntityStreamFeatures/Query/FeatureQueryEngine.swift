import EntityStreamProjection
import EntityStreamModel
import EntityStreamWhere
import EntityStreamCore

/// Runs a ``FeatureQuery`` over a ``FeatureTable`` exactly as an ArcGIS
/// feature layer answers it — the engine behind the simulator's layers.
///
/// Selection (all must hold):
/// - the where clause, compiled once by the project's one ``WhereClause``
///   engine against the table's schema (unknown field, bad syntax → 400 `where`);
/// - the object ids (unknown ids match nothing);
/// - the time extent, both ends inclusive: an instant `t` matches when
///   `start ≤ t ≤ end`; with an end time field, a row `[s, e]` matches when
///   `s ≤ end && e ≥ start` (a null end counts as the start); rows without a
///   time never match a time filter; a table that is not time-aware refuses
///   `time` (400);
/// - the envelope (`intersects` and `envelope-intersects` agree for points:
///   inside or on the boundary) in its own spatial reference (`inSR`): rows
///   are first narrowed by the envelope's outline brought into the table's
///   spatial reference through PROJ, then each candidate point is brought
///   into the envelope's reference and tested exactly (a reference PROJ does
///   not know, or no transformation → 400 `inSR`); rows with a null
///   geometry never match.
/// Then: statistics queries go to the ``statistics`` engine (400 without
/// one), which checks their `orderByFields` (group fields and statistic
/// names); its rows are paged like features (from `resultOffset`, at most
/// the page size below, `exceededTransferLimit` when more rows remain);
/// `returnCountOnly` counts; rows are ordered by `orderByFields`
/// (``AttributeValueOrdering``), ties — and everything without
/// `orderByFields` — by object id, so paging is stable; `returnIdsOnly`
/// lists every id; otherwise one page: from `resultOffset` (default 0), at
/// most `min(resultRecordCount, maxRecordCount × maxRecordCountFactor)`
/// rows, `exceededTransferLimit` when more rows matched than offset + page.
/// `outFields` (`*`, a list, or empty meaning the object id) are resolved
/// case-insensitively (unknown → 400) and always include the object id.
/// `outSR` is any spatial reference PROJ can transform the table's into (400
/// otherwise), the page's points converted in one batch; `f=geojson` answers
/// in WGS84 (RFC 7946) whatever the table's reference.
/// Time is linear in the table's rows, plus n log n to order the matches.
/// A value type; `run` is pure and safe from any number of tasks.
public struct FeatureQueryEngine: Sendable {
    public var maxRecordCount: Int
    /// The page size of `resultType=standard` (default 2 × ``maxRecordCount``).
    public var standardMaxRecordCount: Int
    /// The page size of `resultType=tile` (default 4 × ``maxRecordCount``).
    public var tileMaxRecordCount: Int
    /// False emulates servers from before pagination (ArcGIS 10.2 and older):
    /// `resultOffset` and `resultRecordCount` are ignored, every answer is
    /// the first `maxRecordCount` matches, and clients page by object ids.
    public var supportsPagination: Bool
    public var statistics: (any FeatureStatisticsEngine)?

    public init(maxRecordCount: Int = 2000, supportsPagination: Bool = true, statistics: (any FeatureStatisticsEngine)? = nil) {
        self.maxRecordCount = max(1, maxRecordCount)
        let (standard, overflow) = self.maxRecordCount.multipliedReportingOverflow(by: 2)
        let (tile, tileOverflow) = self.maxRecordCount.multipliedReportingOverflow(by: 4)
        self.standardMaxRecordCount = overflow ? Int.max : standard
        self.tileMaxRecordCount = tileOverflow ? Int.max : tile
        self.supportsPagination = supportsPagination
        self.statistics = statistics
    }

    /// Runs `query` over `table`.
    /// - Throws: ``FeatureQueryError`` naming the parameter that cannot be honoured.
    public func run(_ query: FeatureQuery, on table: FeatureTable) throws(FeatureQueryError) -> FeatureQueryResult {
        let schema = table.schema
        var query = query
        if !supportsPagination {
            // Servers from before pagination did not know these parameters.
            query.resultOffset = nil
            query.resultRecordCount = nil
        }
        let filter = try rowFilter(query, on: table)
        let fieldIndices = try outputFields(query.outFields, schema: schema, objectIDField: table.objectIDFieldIndex)
        // A statistics query orders its groups by group fields and statistic
        // names: the statistics engine checks that order, not the schema.
        let order = try (query.isStatisticsQuery ? [] : query.orderBy).map { (entry) throws(FeatureQueryError) -> (Int, Bool) in
            guard let index = schema.index(ofField: entry.field) else {
                throw .unknownField(parameter: "orderByFields", entry.field, fields: schema.fields.map(\.name))
            }
            return (index, entry.descending)
        }
        var outputReference = table.spatialReference
        if table.geometryType == .point {
            var requested: SpatialReference?
            if query.format == .geojson {
                if let outSR = SpatialReference(code: query.outSpatialReference), outSR != .wgs84 {
                    throw .geoJSONNotWGS84(outSR)
                }
                requested = .wgs84
            } else {
                requested = SpatialReference(code: query.outSpatialReference)
            }
            if let requested, requested.code != table.spatialReference {
                guard let own = SpatialReference(code: table.spatialReference) else {
                    throw .unknownLayerReference(parameter: query.format == .geojson ? "f" : "outSR", target: requested)
                }
                do throws(ProjectionError) { try CoordinateOperations.check(from: own, to: requested) } catch {
                    throw .projection(parameter: query.format == .geojson ? "f" : "outSR", error)
                }
                outputReference = requested.code
            }
        }
        if query.isStatisticsQuery && statistics == nil {
            let parameter = query.outStatistics != nil ? "outStatistics" : "returnDistinctValues"
            throw .statisticsUnsupported(parameter: parameter)
        }

        if let quantization = query.quantization, let wkid = quantization.extent.wkid, let output = outputReference,
           SpatialReference(code: wkid) != SpatialReference(code: output) {
            throw .quantizationReference(extent: wkid, output: output)
        }

        // Selection.
        let rows = select(table, filter: filter, objectIDs: query.objectIDs)
        let pageSize = pageSize(of: query)
        if let statistics, query.isStatisticsQuery {
            return .statistics(Self.page(try statistics.statistics(of: table, rows: rows, query: query), from: query.resultOffset, size: pageSize))
        }
        if query.returnExtentOnly {
            let extent = table.geometryType == .point ? Self.extent(of: rows, in: table, reference: outputReference) : nil
            return .extent(extent, spatialReference: outputReference, count: query.returnCountOnly ? rows.count : nil)
        }
        if query.returnCountOnly { return .count(rows.count) }
        let ordered = Self.ordered(rows, in: table, by: order)
        if query.returnIDsOnly {
            return .objectIDs(fieldName: table.objectIDField.name, ordered.map { table.objectID(at: $0) })
        }
        let offset = min(query.resultOffset ?? 0, ordered.count)
        let end = offset + min(pageSize, ordered.count - offset)
        var selection = FeatureSelection(table: table, rows: Array(ordered[offset..<end]), fieldIndices: fieldIndices,
                                         returnGeometry: query.returnGeometry && table.geometryType == .point,
                                         spatialReference: outputReference, exceededTransferLimit: ordered.count > end,
                                         matchCount: ordered.count)
        if table.geometryType == .point {
            selection.geometryPrecision = query.geometryPrecision
            if query.format != .geojson { selection.quantization = query.quantization }
            if query.returnQueryExtent {
                selection.asksQueryExtent = true
                selection.queryExtent = Self.extent(of: ordered, in: table, reference: outputReference)
            }
        }
        return .features(selection)
    }

    /// The most rows (features or statistics records) one answer to
    /// `query` holds: `resultRecordCount` within the page size of its
    /// `resultType` (``maxRecordCount`` × `maxRecordCountFactor` without one).
    public func pageSize(of query: FeatureQuery) -> Int {
        let limit: Int
        switch query.resultType {
        case .standard: limit = standardMaxRecordCount
        case .tile: limit = tileMaxRecordCount
        case .none:
            let product = maxRecordCount.multipliedReportingOverflow(by: max(1, query.maxRecordCountFactor ?? 1))
            limit = product.overflow ? Int.max : product.partialValue
        }
        return min(query.resultRecordCount ?? limit, limit)
    }

    /// One page of statistics records: from `offset` (nil: 0), at most
    /// `size`, `exceededTransferLimit` when more records follow.
    public static func page(_ result: FeatureStatisticsResult, from offset: Int?, size: Int) -> FeatureStatisticsResult {
        var result = result
        let offset = min(max(0, offset ?? 0), result.rows.count)
        let end = offset + min(size, result.rows.count - offset)
        result.exceededTransferLimit = result.exceededTransferLimit || result.rows.count > end
        result.rows = Array(result.rows[offset..<end])
        return result
    }

    /// The rows `query`'s filters select (`where`, `text`, object ids,
    /// `time`, `geometry`), in row order: what ``run(_:on:)`` answers from,
    /// for a caller that reads a file chunk by chunk and aggregates or
    /// orders the matches itself.
    /// - Throws: ``FeatureQueryError`` for a filter that cannot be honoured.
    public func matchingRows(_ query: FeatureQuery, on table: FeatureTable) throws(FeatureQueryError) -> [Int] {
        select(table, filter: try rowFilter(query, on: table), objectIDs: query.objectIDs)
    }

    /// The compiled row filters of `query` (`where`, `text`, `time`,
    /// `geometry`) for `table`'s schema, time fields, geometry and spatial
    /// reference (a table of no rows serves: only its layout is read).
    /// - Throws: ``FeatureQueryError`` for a filter that cannot be honoured.
    public func rowFilter(_ query: FeatureQuery, on table: FeatureTable) throws(FeatureQueryError) -> FeatureRowFilter {
        let schema = table.schema
        var whereClause: WhereClause?
        if let text = query.effectiveWhereClause {
            do throws(WhereClauseError) { whereClause = try WhereClause(text, schema: schema) } catch { throw .whereClause(error) }
        }
        var textClause: WhereClause?
        if let text = query.text {
            guard let field = LayerDescription.displayField(of: schema) else {
                throw .noDisplayField
            }
            let literal = "'%" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "%'"
            do throws(WhereClauseError) { textClause = try WhereClause("\(field) LIKE \(literal)", schema: schema) } catch {
                throw .textSearch(error)
            }
        }
        if query.time != nil && !table.isTimeAware {
            throw .notTimeAware
        }
        var envelope: EnvelopeTest?
        var area: SearchArea?
        if let geometry = query.geometry {
            guard table.geometryType == .point else { throw .noGeometry }
            if query.polygonRings == nil, (query.distance ?? 0) <= 0 {
                envelope = try EnvelopeTest(geometry, tableReference: table.spatialReference)
            } else {
                area = try SearchArea(envelope: try Self.envelope(geometry, into: table.spatialReference), distance: query.distance,
                                      unit: query.distanceUnit, layerReference: table.spatialReference,
                                      rings: try query.polygonRings.map { (rings) throws(FeatureQueryError) in
                                          try Self.rings(rings, from: geometry.wkid, into: table.spatialReference)
                                      })
            }
        }
        return FeatureRowFilter(whereClause: whereClause, textClause: textClause, time: query.time, envelope: envelope, area: area,
                                startTimeField: table.startTimeFieldIndex, endTimeField: table.endTimeFieldIndex)
    }

    /// The bounding box of `rows`' points in `reference` (nil when none has a
    /// point), converted through PROJ in one batch when it is not the table's.
    static func extent(of rows: [Int], in table: FeatureTable, reference: Int?) -> Envelope? {
        var points = rows.compactMap { table.geometry(at: $0) }
        if let target = SpatialReference(code: reference), SpatialReference(code: table.spatialReference) != target {
            _ = try? Point.convert(&points, to: target, assuming: SpatialReference(code: table.spatialReference))
        }
        var box: Envelope?
        for point in points where point.x.isFinite && point.y.isFinite {
            box = Envelope.including(box, x: point.x, y: point.y)
        }
        box?.wkid = reference
        return box
    }

    /// The rows passing every filter, in row order.
    func select(_ table: FeatureTable, filter: FeatureRowFilter, objectIDs: [Int64]?) -> [Int] {
        let candidates: [Int]?
        if let objectIDs {
            candidates = Set(objectIDs.compactMap { table.row(withObjectID: $0) }).sorted()
        } else {
            candidates = nil
        }
        return table.withRowValues { values, width in
            func passes(_ row: Int) -> Bool {
                // Values are absent only when the table has no rows.
                guard let base = values.baseAddress else { return false }
                return filter.passes(FeatureTableRowValues(base: base + row &* width, width: width), point: table.geometry(at: row))
            }
            var result: [Int] = []
            if let candidates {
                for row in candidates where passes(row) { result.append(row) }
            } else {
                // A cancelled task stops early (its caller checks cancellation and discards the rows).
                var checkpoint = CancellationCheckpoint(every: 65_536)
                for row in 0..<table.count {
                    if checkpoint.isCancelled() { break }
                    if passes(row) { result.append(row) }
                }
            }
            return result
        }
    }

    /// `rows` ordered by `order` (field, descending), then by object id.
    static func ordered(_ rows: [Int], in table: FeatureTable, by order: [(Int, Bool)]) -> [Int] {
        rows.sorted { a, b in
            for (field, descending) in order {
                let comparison = AttributeValueOrdering.compare(table.value(row: a, field: field), table.value(row: b, field: field))
                if comparison != 0 { return descending ? comparison > 0 : comparison < 0 }
            }
            return table.objectID(at: a) < table.objectID(at: b)
        }
    }

    /// `outFields` as schema indices in schema order, the object id included.
    func outputFields(_ outFields: [String]?, schema: Schema, objectIDField: Int) throws(FeatureQueryError) -> [Int] {
        guard let outFields, !outFields.contains("*") else { return Array(schema.fields.indices) }
        var kept: Set<Int> = [objectIDField]
        for name in outFields {
            guard let index = schema.index(ofField: name.trimmingSpaces) else {
                throw .unknownField(parameter: "outFields", name, fields: schema.fields.map(\.name))
            }
            kept.insert(index)
        }
        return kept.sorted()
    }

    /// Polygon rings from `source` into `target`, vertex by vertex through PROJ.
    /// - Throws: ``FeatureQueryError`` (`inSR`) when PROJ cannot.
    public static func rings(_ rings: [[AnalysisGeometry.Coordinate]], from source: Int?, into target: Int?) throws(FeatureQueryError)
        -> [[AnalysisGeometry.Coordinate]] {
        guard let source = SpatialReference(code: source), let target = SpatialReference(code: target), source != target else { return rings }
        var converted = rings
        for index in converted.indices {
            let outside: Int
            do throws(ProjectionError) { outside = try AnalysisGeometry.convert(&converted[index], from: source, to: target) } catch {
                throw .projection(parameter: "inSR", error)
            }
            if outside > 0 { throw .vertexOutside(target) }
        }
        return converted
    }

    /// `geometry` in spatial reference `target` (its own wkid nil meaning
    /// `target`): the bounding box of its outline brought there through PROJ
    /// (64 points an edge; exact for the monotone WGS84 ↔ Web Mercator).
    /// - Throws: ``FeatureQueryError`` (`inSR`) when PROJ cannot.
    public static func envelope(_ geometry: Envelope, into target: Int?) throws(FeatureQueryError) -> Envelope {
        guard let source = SpatialReference(code: geometry.wkid), let target = SpatialReference(code: target), source != target else {
            return geometry
        }
        var xs: [Double] = [], ys: [Double] = []
        let steps = geometry.xmin == geometry.xmax && geometry.ymin == geometry.ymax ? 1 : 64
        for step in 0..<steps {
            let t = Double(step) / Double(steps)
            xs += [geometry.xmin + t * (geometry.xmax - geometry.xmin), geometry.xmax, geometry.xmax - t * (geometry.xmax - geometry.xmin), geometry.xmin]
            ys += [geometry.ymin, geometry.ymin + t * (geometry.ymax - geometry.ymin), geometry.ymax, geometry.ymax - t * (geometry.ymax - geometry.ymin)]
        }
        let outside: Int
        do throws(ProjectionError) { outside = try CoordinateOperations.transform(x: &xs, y: &ys, from: source, to: target) } catch {
            throw .projection(parameter: "inSR", error)
        }
        guard outside == 0, let xmin = xs.min(), let xmax = xs.max(), let ymin = ys.min(), let ymax = ys.max() else {
            throw .geometryOutside(target)
        }
        return Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: target.code)
    }
}
