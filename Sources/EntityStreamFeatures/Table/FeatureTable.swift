import EntityStreamModel
import EntityStreamWhere
/// A feature layer's (or table's) data in memory: the schema, the object-id
/// field, the geometry type and spatial reference, the time fields, and the
/// rows — what a file loader produces and what the query engine, the
/// simulator's layers and the statistics and hot-spot engines read.
///
/// Guarantees:
/// - ``schema`` holds every field, the object-id field (`esriFieldTypeOID`)
///   included; every row has exactly one value per field (stored row-major
///   in one array, no per-row containers), the object id as `.int`.
/// - Object ids are unique; ``row(withObjectID:)`` finds a row in O(1).
/// - For a ``FeatureGeometryType/point`` table every row has a point or nil
///   (a null geometry); a ``FeatureGeometryType/none`` table has no geometry
///   and no spatial reference.
/// - ``startTimeFieldIndex``/``endTimeFieldIndex`` name date fields whose
///   values are `.date` (or null); ``dataTimeExtent`` is the smallest extent
///   holding every row's time (nil when no row has one).
/// - Rows stay in load order; row indices are 0-based and stable.
///
/// A value type (arrays with copy-on-write): immutable once built (see
/// ``FeatureTableBuilder``), `Sendable`, and safe to read from any number of
/// tasks at once.
public struct FeatureTable: Sendable {
    /// The layer's name (a file's base name unless the caller chose one).
    public var name: String
    public let schema: Schema
    /// Index of the `esriFieldTypeOID` field in ``schema``.
    public let objectIDFieldIndex: Int
    public let geometryType: FeatureGeometryType
    /// The wkid of every geometry's coordinates; nil for a table.
    public let spatialReference: Int?
    /// The time field of instants, or the start of intervals (`timeInfo.startTimeField`).
    public let startTimeFieldIndex: Int?
    /// The end of intervals (`timeInfo.endTimeField`), when features span time.
    public let endTimeFieldIndex: Int?
    /// The smallest envelope holding every point (nil for tables and when no row has a point).
    public let extent: Envelope?
    /// From the earliest start time to the latest end (or start) time of any row.
    public let dataTimeExtent: TimeExtent?
    /// What the loader read, assumed and skipped.
    public var report: FeatureLoadReport

    let objectIDs: [Int64]
    /// One per row for point tables (x NaN = null geometry); empty for tables.
    let points: [Point]
    /// Row-major: row `r`'s value of field `f` is at `r * width + f`.
    let values: [AttributeValue]
    let width: Int
    /// Object id → row, unless object ids are exactly `firstObjectID`, +1, +2… in row order.
    let rowByObjectID: [Int64: Int]?
    /// The first row's object id when they run in order (1, or where a chunk of a streamed file starts).
    let firstObjectID: Int64

    init(name: String, schema: Schema, objectIDFieldIndex: Int, geometryType: FeatureGeometryType, spatialReference: Int?,
         startTimeFieldIndex: Int?, endTimeFieldIndex: Int?, extent: Envelope?, dataTimeExtent: TimeExtent?,
         report: FeatureLoadReport, objectIDs: [Int64], points: [Point], values: [AttributeValue], rowByObjectID: [Int64: Int]?,
         firstObjectID: Int64 = 1) {
        self.name = name
        self.schema = schema
        self.objectIDFieldIndex = objectIDFieldIndex
        self.geometryType = geometryType
        self.spatialReference = spatialReference
        self.startTimeFieldIndex = startTimeFieldIndex
        self.endTimeFieldIndex = endTimeFieldIndex
        self.extent = extent
        self.dataTimeExtent = dataTimeExtent
        self.report = report
        self.objectIDs = objectIDs
        self.points = points
        self.values = values
        self.width = schema.fields.count
        self.rowByObjectID = rowByObjectID
        self.firstObjectID = firstObjectID
    }

    /// The number of rows.
    public var count: Int { objectIDs.count }

    /// The object-id field.
    public var objectIDField: Field { schema.fields[objectIDFieldIndex] }

    /// True when the table has a start time field (ArcGIS: the layer has `timeInfo`).
    public var isTimeAware: Bool { startTimeFieldIndex != nil }

    /// The object id of row `row` (0 ≤ row < count).
    public func objectID(at row: Int) -> Int64 { objectIDs[row] }

    /// The point of row `row`, or nil for a null geometry or a table.
    public func geometry(at row: Int) -> Point? {
        guard geometryType == .point, row < points.count else { return nil }
        let point = points[row]
        return point.x.isNaN ? nil : point
    }

    /// The value of field `field` in row `row`; `.null` for a field index out of range.
    public func value(row: Int, field: Int) -> AttributeValue {
        guard field >= 0, field < width else { return .null }
        return values[row &* width &+ field]
    }

    /// Row `row` as an ``AttributeRow`` for where clauses and readers.
    public func row(_ row: Int) -> Row { Row(table: self, index: row) }

    /// The row holding object id `objectID`, or nil.
    public func row(withObjectID objectID: Int64) -> Int? {
        if let rowByObjectID { return rowByObjectID[objectID] }
        let (row, overflow) = objectID.subtractingReportingOverflow(firstObjectID)
        guard !overflow, row >= 0, row < Int64(count) else { return nil }
        return Int(row)
    }

    /// The time span of row `row`: `(start, end)` (equal for instants; the
    /// start when the end is null), or nil when the row has no start time or
    /// the table is not time-aware.
    public func timeSpan(at row: Int) -> (start: Int64, end: Int64)? {
        guard let startField = startTimeFieldIndex, let start = Self.milliseconds(value(row: row, field: startField)) else { return nil }
        guard let endField = endTimeFieldIndex, let end = Self.milliseconds(value(row: row, field: endField)) else { return (start, start) }
        return (start, end)
    }

    /// The epoch milliseconds of a date (or integer) value.
    static func milliseconds(_ value: AttributeValue) -> Int64? {
        switch value {
        case .date(let ms): return ms
        case .int(let ms): return ms
        default: return nil
        }
    }

    /// Calls `body` with each row's values as a buffer (`width` values, aligned
    /// to ``schema``), without copying: the fast path for scans.
    public func withRowValues<R>(_ body: (_ values: UnsafeBufferPointer<AttributeValue>, _ width: Int) throws -> R) rethrows -> R {
        try values.withUnsafeBufferPointer { try body($0, width) }
    }

    /// One row of a ``FeatureTable``: its values by field index (an
    /// ``AttributeRow``), object id and geometry. Holds the table (cheap: shared storage).
    public struct Row: AttributeRow, Sendable {
        public let table: FeatureTable
        public let index: Int

        public var objectID: Int64 { table.objectID(at: index) }
        public var geometry: Point? { table.geometry(at: index) }
        public func value(at fieldIndex: Int) -> AttributeValue { table.value(row: index, field: fieldIndex) }
        /// Every value, aligned to the table's schema.
        public var values: [AttributeValue] { (0..<table.width).map { table.value(row: index, field: $0) } }
    }
}

/// A row's values inside a ``FeatureTable``'s storage, read through a
/// pointer: the allocation-free ``AttributeRow`` the query engine scans with.
/// Valid only inside ``FeatureTable/withRowValues(_:)``.
public struct FeatureTableRowValues: AttributeRow {
    public let base: UnsafePointer<AttributeValue>
    public let width: Int

    public init(base: UnsafePointer<AttributeValue>, width: Int) {
        self.base = base
        self.width = width
    }

    @inlinable public func value(at fieldIndex: Int) -> AttributeValue {
        fieldIndex >= 0 && fieldIndex < width ? base[fieldIndex] : .null
    }
}
