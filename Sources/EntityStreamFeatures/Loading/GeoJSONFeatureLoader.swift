import EntityStreamModel
/// Loads GeoJSON (RFC 7946) into a ``FeatureTable``: a FeatureCollection,
/// one Feature, or a GeoJSON text sequence (one Feature per line, RFC 8142
/// record separators allowed).
///
/// - Geometry: `Point` (`[x, y]` or `[x, y, z]`, WGS84 unless the mapping
///   gives a wkid) or null; any other type is an error naming the line. A
///   collection whose features all have null geometry is a table.
/// - Properties become fields in order of first appearance, typed by
///   ``AttributeTypeInference`` (booleans as 1/0, date texts as dates);
///   nested objects and arrays are kept as their JSON text. Two property
///   names that differ only in case are an error (field names are not).
/// - A feature `id`: when every feature has a unique positive integer id
///   (and no oid is mapped) the ids are the object ids (field `OBJECTID`);
///   otherwise ids are kept in a field `id`.
/// Two linear passes (each feature is parsed twice); errors are
/// ``FeatureLoadError`` with the line.
package enum GeoJSONFeatureLoader {
    package static func loadDocument(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        let members: [(key: String, value: Range<Int>)]
        do { members = try JSONParser.memberRanges(ofObject: bytes) } catch {
            throw FeatureLoadError(file: file, line: EsriFeatureLoader.lineNumber(of: error.offset, in: bytes), .invalidGeoJSON(error))
        }
        let type = members.last { $0.key == "type" }.flatMap { try? JSONParser.parse(Array(bytes[$0.value])) }?.stringValue
        switch type {
        case "Feature":
            return try load([EsriFeatureLoader.Message(line: 1, bytes: bytes[...])], format: .geoJSON, file: file, name: name, mapping: mapping)
        case "FeatureCollection":
            break
        default:
            throw FeatureLoadError(file: file, .notFeatureCollection(type: type))
        }
        guard let features = members.last(where: { $0.key == "features" })?.value else {
            throw FeatureLoadError(file: file, .collectionWithoutFeatures)
        }
        let ranges: [Range<Int>]
        do throws(JSONError) {
            ranges = try EsriFeatureLoader.elementRanges(bytes, in: features)
        } catch {
            throw FeatureLoadError(file: file, line: EsriFeatureLoader.lineNumber(of: features.lowerBound + error.offset, in: bytes),
                                   .collectionFeaturesNotArray(error))
        }
        return try load(EsriFeatureLoader.messages(bytes, ranges), format: .geoJSON, file: file, name: name, mapping: mapping)
    }

    package static func loadSequence(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        try load(EsriFeatureLoader.lineMessages(bytes), format: .geoJSONSeq, file: file, name: name, mapping: mapping)
    }

    /// One Feature, parsed.
    package struct Parsed {
        var point: Point?
        var properties: [(name: String, value: AttributeValue)]
        var id: AttributeValue
    }

    /// What the first pass learns from a run of Features (a whole file, or
    /// one chunk of a streamed one): property names in order of first
    /// appearance (with the line of each first appearance) and the types
    /// their values allow, the ids, whether any has a point. Runs of
    /// consecutive chunks merge, in file order, into what one pass over them
    /// would have learned, except that ids are known unique only when each
    /// run's are and the runs' id ranges do not overlap.
    package struct Evidence: Sendable {
        var names: [String] = []
        var firstLines: [Int] = []
        var indexByFolded: [String: Int] = [:]
        var inference: [AttributeTypeInference] = []
        var idInference = AttributeTypeInference()
        /// Every Feature so far has a positive integer id, none repeated within a run.
        var idsArePositiveAndUnique = true
        /// Each run's smallest and largest id.
        var idRanges: [ClosedRange<Int64>] = []
        var anyID = false
        var sawGeometry = false
        package var rows = 0

        /// Adds what the run that follows learned; `lineOffset` turns its
        /// line numbers into this run's. Throws for a property whose name
        /// differs from an earlier one only in case.
        package mutating func merge(_ later: Evidence, lineOffset: Int, file: String) throws(FeatureLoadError) {
            for (position, name) in later.names.enumerated() {
                let index = try property(name, line: later.firstLines[position] + lineOffset, file: file)
                inference[index].merge(later.inference[position])
            }
            idInference.merge(later.idInference)
            idsArePositiveAndUnique = idsArePositiveAndUnique && later.idsArePositiveAndUnique
            idRanges.append(contentsOf: later.idRanges)
            anyID = anyID || later.anyID
            sawGeometry = sawGeometry || later.sawGeometry
            rows += later.rows
        }

        /// The index of property `name`, added when new.
        mutating func property(_ name: String, line: Int, file: String) throws(FeatureLoadError) -> Int {
            let folded = Schema.fold(name)
            if let known = indexByFolded[folded] {
                guard names[known] == name else {
                    throw FeatureLoadError(file: file, line: line, .propertiesDifferInCase(names[known], name))
                }
                return known
            }
            let index = names.count
            indexByFolded[folded] = index
            names.append(name)
            firstLines.append(line)
            inference.append(AttributeTypeInference())
            return index
        }

        /// True when the ids can be the object ids: every Feature's is a
        /// positive integer and no two are the same.
        var idsAreObjectIDs: Bool {
            guard idsArePositiveAndUnique else { return false }
            let sorted = idRanges.sorted { $0.lowerBound < $1.lowerBound }
            return zip(sorted, sorted.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound }
        }

        package init() {}
    }

    /// The table's layout, decided from the whole file's ``Evidence``.
    package struct Layout: Sendable {
        package var plan: FeatureSchemaPlan
        var indexByFolded: [String: Int]
        var idField: Int?
        var propertyOffset: Int
        package var sawGeometry: Bool
        var wkid: Int
        package var report: FeatureLoadReport

        package init(evidence: Evidence, format: FeatureFileFormat, file: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) {
            // Schema: the id field (if any) first, then the properties.
            let names = evidence.names
            var sourceFields = names.indices.map { Field(name: names[$0], type: evidence.inference[$0].fieldType, alias: names[$0]) }
            var idField: Int?
            let takenNames = Schema(fields: sourceFields)
            func freeName(_ base: String) -> String {
                var candidate = base
                var suffix = 0
                while takenNames.index(ofField: candidate) != nil {
                    suffix += 1
                    candidate = "\(base)_\(suffix)"
                }
                return candidate
            }
            var declared = FeatureSchemaPlan.Declared()
            var idNote: String?
            if evidence.anyID {
                if evidence.idsAreObjectIDs && mapping.objectID == nil && evidence.rows > 0 {
                    let fieldName = freeName("OBJECTID")
                    sourceFields.insert(Field(name: fieldName, type: .objectID, alias: fieldName, nullable: false), at: 0)
                    declared.objectIDField = fieldName
                    idNote = "object ids from the features' ids (field '\(fieldName)')"
                } else {
                    let fieldName = freeName("id")
                    sourceFields.insert(Field(name: fieldName, type: evidence.idInference.fieldType, alias: fieldName), at: 0)
                    idNote = "the features' ids are kept in field '\(fieldName)'"
                }
                idField = 0
            }
            self.idField = idField
            propertyOffset = idField == nil ? 0 : 1
            plan = try FeatureSchemaPlan(sourceFields: sourceFields, mapping: mapping, declared: declared, file: file)
            if let idNote { plan.notes.insert(idNote, at: 0) }
            report = FeatureLoadReport(format: format)
            report.notes = plan.notes
            indexByFolded = evidence.indexByFolded
            sawGeometry = evidence.sawGeometry
            wkid = mapping.wkid ?? 4326
        }

        /// An empty table of this layout.
        package func builder(name: String, file: String) throws(FeatureLoadError) -> FeatureTableBuilder {
            do throws(FeatureTableError) {
                return try FeatureTableBuilder(name: name, schema: plan.schema, objectIDFieldIndex: plan.objectIDFieldIndex,
                                               assignsObjectIDs: plan.assignsObjectIDs, geometryType: sawGeometry ? .point : .none,
                                               spatialReference: wkid, startTimeFieldIndex: plan.startTimeFieldIndex,
                                               endTimeFieldIndex: plan.endTimeFieldIndex, report: report)
            } catch {
                throw FeatureLoadError(file: file, .table(error))
            }
        }
    }

    static func load(_ messages: [EsriFeatureLoader.Message], format: FeatureFileFormat,
                     file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        var evidence = Evidence()
        try observe(messages, file: file, into: &evidence)
        let layout = try Layout(evidence: evidence, format: format, file: file, mapping: mapping)
        var builder = try layout.builder(name: name, file: file)
        builder.reserveCapacity(messages.count)
        try appendRows(messages, layout: layout, file: file, to: &builder)
        return builder.build()
    }

    /// Pass 1: property names in order, their types, the ids (one run).
    package static func observe(_ messages: [EsriFeatureLoader.Message], file: String, into evidence: inout Evidence) throws(FeatureLoadError) {
        var ids: Set<Int64> = []
        var lowest = Int64.max, highest = Int64.min
        var checkpoint = CancellationCheckpoint()
        for message in messages {
            if checkpoint.isCancelled() { throw .cancelled(file: file) }
            let feature = try parse(message, file: file)
            evidence.rows += 1
            if feature.point != nil { evidence.sawGeometry = true }
            for (property, value) in feature.properties {
                let index = try evidence.property(property, line: message.line, file: file)
                evidence.inference[index].observe(value)
            }
            if !feature.id.isNull { evidence.anyID = true }
            evidence.idInference.observe(feature.id)
            if evidence.idsArePositiveAndUnique, case .int(let id) = feature.id, id > 0, ids.insert(id).inserted {
                lowest = min(lowest, id)
                highest = max(highest, id)
            } else {
                evidence.idsArePositiveAndUnique = false
                ids.removeAll()
            }
        }
        if evidence.idsArePositiveAndUnique, lowest <= highest { evidence.idRanges.append(lowest...highest) }
    }

    /// Pass 2: the rows of `messages` in ``Layout``.
    @discardableResult
    package static func appendRows(_ messages: [EsriFeatureLoader.Message], layout: Layout, file: String,
                                   to builder: inout FeatureTableBuilder, selection: LoadedRowSelection? = nil) throws(FeatureLoadError) -> LoadedRows {
        var loaded = LoadedRows()
        let plan = layout.plan
        var values = [AttributeValue](repeating: .null, count: plan.schema.fields.count)
        var checkpoint = CancellationCheckpoint()
        for message in messages {
            if checkpoint.isCancelled() { throw .cancelled(file: file) }
            let feature = try parse(message, file: file)
            for index in values.indices { values[index] = .null }
            func set(_ value: AttributeValue, source: Int) throws(FeatureLoadError) {
                let target = plan.finalIndex(ofSource: source)
                if let selection, !selection.converts(target) { return }
                guard let converted = AttributeTypeInference.convert(value, to: plan.types[target]) else {
                    let field = plan.schema.fields[target]
                    throw FeatureLoadError(file: file, line: message.line, .cannotHold(field: field.name, field.type, value))
                }
                values[target] = converted
            }
            if let idField = layout.idField { try set(feature.id, source: idField) }
            for (property, value) in feature.properties {
                guard let index = layout.indexByFolded[Schema.fold(property)] else { continue }   // learned in pass 1
                try set(value, source: index + layout.propertyOffset)
            }
            let point = layout.sawGeometry ? feature.point : nil
            try loaded.append(values, point: point, wkid: layout.wkid, selection: selection, to: &builder, file: file, line: message.line)
        }
        return loaded
    }

    /// Parses one Feature object.
    static func parse(_ message: EsriFeatureLoader.Message, file: String) throws(FeatureLoadError) -> Parsed {
        func fail(_ reason: FeatureLoadError.Reason) -> FeatureLoadError { FeatureLoadError(file: file, line: message.line, reason) }
        let value: JSONValue
        do throws(JSONError) { value = try JSONParser.parse(Array(message.bytes)) } catch { throw fail(.featureNotJSON(error)) }
        guard let object = value.objectValue else { throw fail(.featureNotObject) }
        guard object["type"]?.stringValue == "Feature" else {
            throw fail(.notFeature(type: object["type"]))
        }
        var point: Point?
        if let geometry = object["geometry"], !geometry.isNull {
            guard let type = geometry["type"]?.stringValue else { throw fail(.geometryWithoutType) }
            guard type == "Point" else { throw fail(.notPointGeometry(type)) }
            guard let coordinates = geometry["coordinates"]?.arrayValue else { throw fail(.pointWithoutCoordinates) }
            if !coordinates.isEmpty {
                let numbers = coordinates.compactMap(\.doubleValue)
                guard numbers.count == coordinates.count, (2...3).contains(numbers.count), numbers.allSatisfy(\.isFinite) else {
                    throw fail(.badCoordinates(coordinates))
                }
                point = Point(x: numbers[0], y: numbers[1], z: numbers.count > 2 ? numbers[2] : nil)
            }
        }
        var properties: [(name: String, value: AttributeValue)] = []
        if let members = object["properties"], !members.isNull {
            guard let members = members.objectValue else { throw fail(.propertiesNotObject) }
            var seen: Set<String> = []
            for member in members.members {
                guard seen.insert(member.key).inserted else { throw fail(.propertyTwice(member.key)) }
                properties.append((member.key, attributeValue(member.value)))
            }
        }
        let id = object["id"].map(attributeValue) ?? .null
        return Parsed(point: point, properties: properties, id: id)
    }

    /// A JSON value as an attribute: scalars as they are, objects and arrays as their JSON text.
    static func attributeValue(_ value: JSONValue) -> AttributeValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array, .object:
            var writer = JSONWriter(capacity: 64)
            writer.append(value)
            return .string(String(decoding: writer.bytes, as: UTF8.self))
        }
    }
}
