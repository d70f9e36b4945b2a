import EntityStreamModel
/// Builds a ``FeatureTable`` one row at a time, in linear time: the loaders
/// use it, and so can tests and other engines that make tables.
///
/// The schema is fixed up front. When ``assignsObjectIDs`` is true the
/// object-id value of each row is set to 1, 2, 3… (whatever the caller
/// passed); otherwise each row must carry an integer object id not seen
/// before, and ``append(geometry:values:)`` throws ``FeatureTableError``
/// naming the problem (the table is unchanged then). Dates in the time
/// fields must be `.date` (or `.int` epoch milliseconds, stored as `.date`)
/// or null. A value type; not shared while appending.
public struct FeatureTableBuilder: Sendable {
    public let name: String
    public let schema: Schema
    public let objectIDFieldIndex: Int
    public let assignsObjectIDs: Bool
    public let geometryType: FeatureGeometryType
    public let spatialReference: Int?
    public let startTimeFieldIndex: Int?
    public let endTimeFieldIndex: Int?
    public var report: FeatureLoadReport

    private var objectIDs: [Int64] = []
    private var points: [Point] = []
    private var values: [AttributeValue] = []
    private var seenObjectIDs: Set<Int64> = []
    private var sequential = true
    /// Added to the assigned object ids (``numberAssignedObjectIDs(after:)``).
    private var assignedBase: Int64 = 0
    private var xmin = Double.infinity, ymin = Double.infinity, xmax = -Double.infinity, ymax = -Double.infinity
    private var earliest: Int64?
    private var latest: Int64?

    /// - Throws: ``FeatureTableError`` when an index is outside the schema,
    ///   the object-id field is not `esriFieldTypeOID`, or a time field is not a date.
    public init(name: String, schema: Schema, objectIDFieldIndex: Int, assignsObjectIDs: Bool,
                geometryType: FeatureGeometryType, spatialReference: Int?,
                startTimeFieldIndex: Int? = nil, endTimeFieldIndex: Int? = nil,
                report: FeatureLoadReport = FeatureLoadReport()) throws(FeatureTableError) {
        let fields = schema.fields
        guard fields.indices.contains(objectIDFieldIndex), fields[objectIDFieldIndex].type == .objectID else {
            throw .objectIDFieldNotOID
        }
        for (role, index) in [("start time", startTimeFieldIndex), ("end time", endTimeFieldIndex)] {
            guard let index else { continue }
            guard fields.indices.contains(index), fields[index].type == .date else {
                throw .timeFieldNotDate(role: role)
            }
        }
        if endTimeFieldIndex != nil && startTimeFieldIndex == nil {
            throw .endTimeWithoutStart
        }
        self.name = name
        self.schema = schema
        self.objectIDFieldIndex = objectIDFieldIndex
        self.assignsObjectIDs = assignsObjectIDs
        self.geometryType = geometryType
        self.spatialReference = geometryType == .none ? nil : spatialReference
        self.startTimeFieldIndex = startTimeFieldIndex
        self.endTimeFieldIndex = endTimeFieldIndex
        self.report = report
    }

    /// Rows appended so far.
    public var count: Int { objectIDs.count }

    /// Reserves room for `rows` rows.
    public mutating func reserveCapacity(_ rows: Int) {
        objectIDs.reserveCapacity(rows)
        values.reserveCapacity(rows &* schema.fields.count)
        if geometryType == .point { points.reserveCapacity(rows) }
    }

    /// Appends a row. `values` align to the schema (missing trailing values
    /// are null; extra ones are an error). `geometry` must be nil for a table;
    /// its coordinates are taken as they are (in ``spatialReference``).
    /// - Throws: ``FeatureTableError`` (nothing appended) for a missing,
    ///   non-integer or repeated object id, a non-date time value, too many
    ///   values, or a geometry on a table.
    public mutating func append(geometry: Point?, values rowValues: [AttributeValue]) throws(FeatureTableError) {
        let width = schema.fields.count
        guard rowValues.count <= width else {
            throw .tooManyValues(rowValues.count, fields: width)
        }
        if geometryType == .none, geometry != nil {
            throw .geometryOnTable
        }
        let objectID: Int64
        if assignsObjectIDs {
            objectID = assignedBase &+ Int64(objectIDs.count) &+ 1
        } else {
            let given = objectIDFieldIndex < rowValues.count ? rowValues[objectIDFieldIndex] : .null
            guard case .int(let id) = given else {
                let name = schema.fields[objectIDFieldIndex].name
                throw given.isNull ? .missingObjectID(field: name) : .objectIDNotInteger(field: name, given)
            }
            guard !seenObjectIDs.contains(id) else {
                throw .repeatedObjectID(id, field: schema.fields[objectIDFieldIndex].name)
            }
            objectID = id
        }
        var first: Int64?
        var last: Int64?
        // The start and end time fields, without an array per row.
        for slot in 0..<2 {
            guard let index = slot == 0 ? startTimeFieldIndex : endTimeFieldIndex, index < rowValues.count else { continue }
            switch rowValues[index] {
            case .null: break
            case .date(let ms), .int(let ms):
                first = Swift.min(first ?? ms, ms)
                last = Swift.max(last ?? ms, ms)
            case let other: throw FeatureTableError.timeNotDate(field: schema.fields[index].name, other)
            }
        }

        // Nothing can fail from here on.
        if !assignsObjectIDs { seenObjectIDs.insert(objectID) }
        if sequential && objectID != assignedBase &+ Int64(objectIDs.count) &+ 1 { sequential = false }
        objectIDs.append(objectID)
        let start = values.count
        values.append(contentsOf: rowValues)
        if rowValues.count < width { values.append(contentsOf: repeatElement(AttributeValue.null, count: width - rowValues.count)) }
        values[start + objectIDFieldIndex] = .int(objectID)
        for slot in 0..<2 {
            guard let index = slot == 0 ? startTimeFieldIndex : endTimeFieldIndex else { continue }
            if case .int(let ms) = values[start + index] { values[start + index] = .date(milliseconds: ms) }
        }
        if let first, let last {
            earliest = Swift.min(earliest ?? first, first)
            latest = Swift.max(latest ?? last, last)
        }
        if geometryType == .point {
            if let geometry, !geometry.x.isNaN, !geometry.y.isNaN {
                var point = geometry
                point.wkid = spatialReference
                points.append(point)
                xmin = Swift.min(xmin, point.x)
                ymin = Swift.min(ymin, point.y)
                xmax = Swift.max(xmax, point.x)
                ymax = Swift.max(ymax, point.y)
            } else {
                points.append(Point(x: .nan, y: .nan))
            }
        }
    }

    /// Numbers the assigned object ids from `base + 1` (the rows before and
    /// after this call alike): a chunk of a streamed file, read before the
    /// number of rows in the chunks ahead of it is known, is numbered on as
    /// if the file had been loaded whole. Only for ``assignsObjectIDs``.
    /// With `positions` (one per row, ascending), row `i` was record
    /// `positions[i]` of the chunk (the records between were filtered out)
    /// and is numbered `base + positions[i] + 1`.
    public mutating func numberAssignedObjectIDs(after base: Int64, positions: [Int]? = nil) {
        guard assignsObjectIDs else { return }
        if let positions {
            precondition(positions.count == objectIDs.count, "one position per row")
            sequential = positions.indices.allSatisfy { positions[$0] == $0 }
        } else if base == assignedBase {
            return
        }
        assignedBase = base
        let width = schema.fields.count
        let field = objectIDFieldIndex
        objectIDs.withUnsafeMutableBufferPointer { ids in
            values.withUnsafeMutableBufferPointer { values in
                for row in ids.indices {
                    ids[row] = base &+ Int64(positions?[row] ?? row) &+ 1
                    values[row &* width &+ field] = .int(ids[row])
                }
            }
        }
    }

    /// The finished table.
    public func build() -> FeatureTable {
        var rowByObjectID: [Int64: Int]?
        if !sequential {
            var index = [Int64: Int](minimumCapacity: objectIDs.count)
            for (row, id) in objectIDs.enumerated() { index[id] = row }
            rowByObjectID = index
        }
        let extent = xmin <= xmax && geometryType == .point
            ? Envelope(xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax, wkid: spatialReference) : nil
        let timeExtent = earliest.flatMap { start in latest.flatMap { try? TimeExtent(start: start, end: $0) } }
        var report = self.report
        report.rows = objectIDs.count
        return FeatureTable(name: name, schema: schema, objectIDFieldIndex: objectIDFieldIndex, geometryType: geometryType,
                            spatialReference: spatialReference, startTimeFieldIndex: startTimeFieldIndex,
                            endTimeFieldIndex: endTimeFieldIndex, extent: extent, dataTimeExtent: timeExtent, report: report,
                            objectIDs: objectIDs, points: points, values: values, rowByObjectID: rowByObjectID,
                            firstObjectID: assignedBase &+ 1)
    }
}

/// Why a ``FeatureTableBuilder`` refused a schema or a row, by what is wrong.
/// ``description`` reads `object id 7 is repeated ('OBJECTID' must be unique)`.
public enum FeatureTableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The object-id index is outside the schema or not an `esriFieldTypeOID` field.
    case objectIDFieldNotOID
    /// The time field in `role` ("start time", "end time") is outside the schema or not a date field.
    case timeFieldNotDate(role: String)
    /// An end time field was given without a start time field.
    case endTimeWithoutStart
    /// A row has more values than the schema has fields.
    case tooManyValues(Int, fields: Int)
    /// A row of a table (no geometry type) came with a geometry.
    case geometryOnTable
    /// A row has no value for the object-id field.
    case missingObjectID(field: String)
    /// A row's object id is not an integer (the value given).
    case objectIDNotInteger(field: String, AttributeValue)
    /// A row repeats an object id already appended.
    case repeatedObjectID(Int64, field: String)
    /// A time field holds a value that is not a date (the value given).
    case timeNotDate(field: String, AttributeValue)

    public var description: String {
        switch self {
        case .objectIDFieldNotOID: return "the object-id field must be a field of type esriFieldTypeOID"
        case .timeFieldNotDate(let role): return "the \(role) field must be a field of type esriFieldTypeDate"
        case .endTimeWithoutStart: return "an end time field needs a start time field"
        case .tooManyValues(let count, let fields): return "\(count) values for \(fields) fields"
        case .geometryOnTable: return "a table's rows have no geometry"
        case .missingObjectID(let field): return "the object id '\(field)' is missing"
        case .objectIDNotInteger(let field, let value): return "the object id '\(field)' must be an integer, not \(value.displayText)"
        case .repeatedObjectID(let id, let field): return "object id \(id) is repeated ('\(field)' must be unique)"
        case .timeNotDate(let field, let value): return "the time field '\(field)' holds \(value.displayText), not a date"
        }
    }
}
