import EntityStreamCore
import EntityStreamModel
import EntityStreamWhere
import EntityStreamFeatures
import EntityStreamProjection

/// The records of a ``FeatureTable`` a hot-spot analysis reads: the rows
/// matching a where clause and a time extent, as a ``HotSpotInput`` of
/// incidents (no value field) or weighted points (a numeric value field).
///
/// - The where clause is the project's one ``WhereClause`` engine, compiled
///   against the table's schema. When the table has a time field and no
///   field named `DATE`, `DATE` (or `"DATE"`) names the time field too, so
///   the "Analyze hotspots" sample's own query,
///   `("DATE" > date '1998-01-01 00:00:00' AND "DATE" < date '1998-05-31 00:00:00')`,
///   runs on any dated incidents.
/// - The time extent is inclusive at both ends and overlaps interval rows,
///   as a layer query's `time`; it needs a time-aware table.
/// - Points are read as ``HotSpotPointReading`` says for the table's
///   spatial reference and the processing reference, if any (converted
///   through PROJ in one batch).
/// - ``sourceIDs`` maps each record number of the input (the position among
///   the matching rows) to the row's object id, for `SOURCE_ID`.
///
/// ``select(from:whereClause:timeExtent:valueField:processing:maximumCount:)`` is linear
/// in the table's rows and throws ``HotSpotSelectionError`` naming what is
/// wrong; rows without a point, value or valid coordinate are counted by
/// the input, never dropped silently. A value type.
public struct HotSpotTableSelection: Sendable {
    public let input: HotSpotInput
    public let reading: HotSpotPointReading
    /// The object id of each input record, by record number.
    public let sourceIDs: [Int64]
    /// Rows in the table.
    public let rowCount: Int
    /// Rows matching the where clause and time extent (the records offered to the input).
    public let matchedCount: Int
    /// The value field's name as the table spells it (nil for incidents).
    public let valueField: String?

    /// The name the time field may also be called by in where clauses.
    public static let dateAlias = "DATE"

    public static func select(from table: FeatureTable, whereClause: String? = nil, timeExtent: TimeExtent? = nil,
                              valueField: String? = nil, processing: Int? = nil,
                              maximumCount: Int = 50_000_000) throws(HotSpotSelectionError) -> HotSpotTableSelection {
        try gather(from: table, whereClause: whereClause, timeExtent: timeExtent, valueField: valueField, processing: processing)
            .selection(maximumCount: maximumCount)
    }

    /// The matching records of one table (a whole file, or one chunk of a
    /// streamed one): only their points, values and object ids, in row
    /// order. Chunks of one file gathered apart and ``Gathered/append(_:)``ed
    /// in file order make the selection of the whole file.
    public struct Gathered: Sendable {
        fileprivate var records = SelectedRecords()
        fileprivate var sourceIDs: [Int64] = []
        fileprivate var rowCount = 0
        fileprivate var matchedCount = 0
        fileprivate let reading: HotSpotPointReading
        fileprivate let kind: HotSpotInput.Kind
        fileprivate let valueField: String?

        /// Matching records gathered so far.
        public var count: Int { matchedCount }

        /// Adds the records of the rows that follow (a later chunk of the same file).
        public mutating func append(_ later: Gathered) {
            records.append(contentsOf: later.records)
            sourceIDs.append(contentsOf: later.sourceIDs)
            rowCount += later.rowCount
            matchedCount += later.matchedCount
        }

        /// The selection: the points converted as ``HotSpotPointReading``
        /// says (one PROJ batch), offered to the input in order.
        public func selection(maximumCount: Int = 50_000_000) -> HotSpotTableSelection {
            var input = HotSpotInput(kind: kind, coordinates: reading.coordinates, maximumCount: maximumCount)
            var records = self.records
            records.offer(to: &input, reading: reading)
            return HotSpotTableSelection(input: input, reading: reading, sourceIDs: sourceIDs, rowCount: rowCount,
                                         matchedCount: matchedCount, valueField: valueField)
        }
    }

    /// The matching records of `table` (see ``select(from:whereClause:timeExtent:valueField:processing:maximumCount:)``).
    public static func gather(from table: FeatureTable, whereClause: String? = nil, timeExtent: TimeExtent? = nil,
                              valueField: String? = nil, processing: Int? = nil) throws(HotSpotSelectionError) -> Gathered {
        guard table.geometryType == .point else {
            throw .noGeometry(table: table.name)
        }
        let schema = table.schema
        var whereSchema = schema
        var alias: (index: Int, time: Int)?
        if let time = table.startTimeFieldIndex, schema.index(ofField: dateAlias) == nil {
            alias = (whereSchema.appendField(Field(name: dateAlias, type: .date)), time)
        }
        var clause: WhereClause?
        if let whereClause, !whereClause.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }) {
            do { clause = try WhereClause(whereClause, schema: whereSchema) } catch {
                throw .invalidWhere("\(error)")
            }
        }
        if clause?.isTautology == true { clause = nil }
        let extent = timeExtent.flatMap { $0.isUnbounded ? nil : $0 }
        if extent != nil, !table.isTimeAware {
            throw .noTimeField(table: table.name)
        }
        let valueIndex = try valueField.map { (name) throws(HotSpotSelectionError) in try HotSpotValueField.resolve(name, in: schema) }
        let reading: HotSpotPointReading
        do { reading = try HotSpotPointReading(wkid: table.spatialReference, processing: processing) } catch {
            throw .spatialReference(error.description)
        }
        var gathered = Gathered(reading: reading, kind: valueIndex == nil ? .incidents : .weighted,
                                valueField: valueIndex.map { schema.fields[$0].name })
        gathered.rowCount = table.count
        table.withRowValues { values, width in
            guard let base = values.baseAddress else { return }
            for row in 0..<table.count {
                if let extent {
                    guard let span = table.timeSpan(at: row), extent.overlaps(from: span.start, to: span.end) else { continue }
                }
                if let clause {
                    let values = FeatureTableRowValues(base: base + row &* width, width: width)
                    let keep = alias.map { clause.matches(AliasedRow(row: values, aliasIndex: $0.index, target: $0.time)) } ?? clause.matches(values)
                    guard keep else { continue }
                }
                gathered.matchedCount += 1
                gathered.records.append(table.geometry(at: row), value: valueIndex.flatMap { HotSpotValueField.number(base[row &* width &+ $0]) })
                gathered.sourceIDs.append(table.objectID(at: row))
            }
        }
        return gathered
    }

    /// The source id of a result feature's record number (−1 for fishnet cells).
    public func sourceID(_ recordNumber: Int32) -> Int64 {
        recordNumber >= 0 && Int(recordNumber) < sourceIDs.count ? sourceIDs[Int(recordNumber)] : -1
    }
}

/// A table row with one extra field, at `aliasIndex`, reading field `target`.
private struct AliasedRow: AttributeRow {
    let row: FeatureTableRowValues
    let aliasIndex: Int
    let target: Int

    func value(at fieldIndex: Int) -> AttributeValue {
        row.value(at: fieldIndex == aliasIndex ? target : fieldIndex)
    }
}

/// The selected records' points and values, gathered so that their
/// coordinates go through PROJ in one batch before the input takes them.
struct SelectedRecords: Sendable {
    private var x: [Double] = []
    private var y: [Double] = []
    private var hasPoint: [Bool] = []
    private var values: [Double?] = []

    mutating func append(_ point: Point?, value: Double?) {
        x.append(point?.x ?? .nan)
        y.append(point?.y ?? .nan)
        hasPoint.append(point != nil)
        values.append(value)
    }

    mutating func append(contentsOf other: SelectedRecords) {
        x.append(contentsOf: other.x)
        y.append(contentsOf: other.y)
        hasPoint.append(contentsOf: other.hasPoint)
        values.append(contentsOf: other.values)
    }

    /// Converts the points as `reading` says, then offers every record to `input`, in order.
    mutating func offer(to input: inout HotSpotInput, reading: HotSpotPointReading) {
        reading.read(x: &x, y: &y)
        for index in x.indices {
            input.append(x: hasPoint[index] ? x[index] : nil, y: hasPoint[index] ? y[index] : nil, value: values[index])
        }
    }
}
