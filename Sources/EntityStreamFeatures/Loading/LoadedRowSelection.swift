import EntityStreamModel

/// What a streamed scan of JSON features (``EsriFeatureLoader/appendRows(_:layout:file:to:selection:)``,
/// ``GeoJSONFeatureLoader/appendRows(_:layout:file:to:selection:)``) keeps
/// of a chunk: the fields it converts (the others are left null, as a CSV
/// scan leaves the columns it does not read) and the rows its filter passes.
package struct LoadedRowSelection: Sendable {
    /// Per field of the layout's schema: converted (nil: every field).
    package var converts: [Bool]?
    /// The rows kept (nil: all); tested on the converted values and the point.
    package var filter: FeatureRowFilter?

    package init(converts: [Bool]? = nil, filter: FeatureRowFilter? = nil) {
        self.converts = converts
        self.filter = filter
    }

    @inline(__always)
    package func converts(_ field: Int) -> Bool { converts?[field] ?? true }

    /// True when the row with `values` (one per field) and `point` is kept.
    @inline(__always)
    package func keeps(_ values: [AttributeValue], point: Point?) -> Bool {
        guard let filter, !filter.passesAll else { return true }
        return values.withUnsafeBufferPointer { row in
            row.baseAddress.map { filter.passes(FeatureTableRowValues(base: $0, width: row.count), point: point) } ?? false
        }
    }
}

/// What ``LoadedRowSelection`` kept of a chunk: the records it held (rows
/// before filtering) and, for each row appended, its position among them.
package struct LoadedRows: Sendable {
    package var records = 0
    package var positions: [Int] = []

    package init() {}

    /// Counts one record and appends it to `builder` when `selection` keeps
    /// it (tested with the point in the layer's spatial reference `wkid`),
    /// noting its position; a row the table refuses is an error on `line` of `file`.
    @inline(__always)
    package mutating func append(_ values: [AttributeValue], point: Point?, wkid: Int?, selection: LoadedRowSelection?,
                                 to builder: inout FeatureTableBuilder, file: String, line: Int?) throws(FeatureLoadError) {
        records += 1
        if let selection {
            guard selection.keeps(values, point: point.map { var point = $0; point.wkid = wkid; return point }) else { return }
            positions.append(records - 1)
        }
        do throws(FeatureTableError) { try builder.append(geometry: point, values: values) } catch {
            throw FeatureLoadError(file: file, line: line, .table(error))
        }
    }
}
