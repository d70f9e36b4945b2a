import EntityStreamProjection
import EntityStreamModel
import EntityStreamCore

/// Loads Esri JSON features into a ``FeatureTable``: feature lines, a JSON
/// array of features, a FeatureSet (`{"fields":…,"features":[…]}`), and
/// the messages of an `entitystream record` recording.
///
/// Each feature is decoded with the project's ``EsriFeatureDecoder`` twice
/// (two linear passes): first to learn the attribute names the file does
/// not declare and infer their types (``AttributeTypeInference``), then to
/// build the rows. Declared fields keep their declared types; a value that
/// cannot be one (text in an integer field) is an error naming the line.
/// Points in another spatial reference than the layer's are converted
/// (WGS84 ↔ Web Mercator) or refused. Only point features load: another
/// geometry is an error naming the line — except in recordings, where (as a
/// replay would) deletes, filter replies, non-point and undecodable messages
/// are skipped and counted in the table's ``FeatureLoadReport``.
package enum EsriFeatureLoader {
    /// What the file declares about its layer.
    package struct Declared {
        var fields: [Field] = []
        package var geometryType: FeatureGeometryType?
        var wkid: Int?
        var time = FeatureSchemaPlan.Declared()

        package init() {}
    }

    /// One message (feature, or recorded message) and its 1-based line.
    package struct Message {
        package var line: Int
        var bytes: ArraySlice<UInt8>
        /// Set for a malformed recording line (skipped and counted, not decoded).
        var malformed = false
    }

    // MARK: Formats

    package static func loadLines(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        try load(lineMessages(bytes), declared: Declared(), lenient: false, format: .esriFeatureLines,
                 file: file, name: name, mapping: mapping)
    }

    package static func loadArray(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        let ranges: [Range<Int>]
        do { ranges = try JSONParser.elementRanges(ofArray: bytes) } catch {
            throw FeatureLoadError(file: file, line: lineNumber(of: error.offset, in: bytes), .invalidArray(error))
        }
        return try load(messages(bytes, ranges), declared: Declared(), lenient: false, format: .esriFeatureArray,
                        file: file, name: name, mapping: mapping)
    }

    package static func loadFeatureSet(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        let members: [(key: String, value: Range<Int>)]
        do { members = try JSONParser.memberRanges(ofObject: bytes) } catch {
            throw FeatureLoadError(file: file, line: lineNumber(of: error.offset, in: bytes), .invalidFeatureSet(error))
        }
        func member(_ key: String) throws(FeatureLoadError) -> JSONValue? {
            guard let range = members.last(where: { $0.key == key })?.value else { return nil }
            do { return try JSONParser.parse(Array(bytes[range])) } catch {
                throw FeatureLoadError(file: file, line: lineNumber(of: range.lowerBound, in: bytes), .invalidMember(key: key, error))
            }
        }
        if let error = try member("error"), let answer = ArcGISError(json: .object(JSONObject([("error", error)]))) {
            throw FeatureLoadError(file: file, .arcGISError(answer))
        }
        var declared = Declared()
        let fieldsMember = try member("fields")
        do throws(FeatureFormatError) { declared.fields = try Field.esriFields(fieldsMember) } catch {
            throw FeatureLoadError(file: file, .fields(error))
        }
        declared.time.objectIDField = try member("objectIdFieldName")?.stringValue
        if let type = try member("geometryType"), !type.isNull {
            guard type.stringValue == "esriGeometryPoint" else {
                throw FeatureLoadError(file: file, .notPointLayer(geometryType: type))
            }
            declared.geometryType = .point
        }
        if let reference = try member("spatialReference") {
            declared.wkid = SpatialReference.code(ofJSON: reference)
        }
        guard let features = members.last(where: { $0.key == "features" })?.value else {
            throw FeatureLoadError(file: file, .featureSetWithoutFeatures)
        }
        let ranges: [Range<Int>]
        do throws(JSONError) {
            ranges = try EsriFeatureLoader.elementRanges(bytes, in: features)
        } catch {
            throw FeatureLoadError(file: file, line: lineNumber(of: features.lowerBound + error.offset, in: bytes), .featuresNotArray(error))
        }
        return try load(messages(bytes, ranges), declared: declared, lenient: false, format: .esriFeatureSet,
                        file: file, name: name, mapping: mapping)
    }

    package static func loadRecording(_ bytes: [UInt8], file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        let recording: RecordingFile
        do { recording = try RecordingFile(bytes: bytes) } catch {
            throw FeatureLoadError(file: file, line: error.line, .recording(error))
        }
        var declared = Declared()
        if let header = recording.header {
            do { declared = try Self.declared(by: header) } catch {
                var error = error
                error.file = file
                throw error
            }
        }
        let messages = recording.entries.map { Message(line: $0.line, bytes: $0.message[...], malformed: $0.problem != nil) }
        return try load(messages, declared: declared, lenient: true, format: .recording, file: file, name: name, mapping: mapping)
    }

    /// What a recording's header declares of its layer.
    package static func declared(by header: RecordingHeader) throws(FeatureLoadError) -> Declared {
        var declared = Declared()
        let description = header.description
        do { declared.fields = try Field.esriFields(description["fields"]) } catch {
            throw FeatureLoadError(file: "", line: 1, .recordedFields(error))
        }
        let timeInfo = description["timeInfo"]
        declared.time = FeatureSchemaPlan.Declared(objectIDField: description["objectIdField"]?.stringValue,
                                                   startTimeField: timeInfo?["startTimeField"]?.stringValue,
                                                   endTimeField: timeInfo?["endTimeField"]?.stringValue,
                                                   trackIDField: timeInfo?["trackIdField"]?.stringValue)
        declared.wkid = SpatialReference.code(ofJSON: description["spatialReference"])
        declared.geometryType = .point
        return declared
    }

    /// The messages of a run of recording lines (a whole recording, or one
    /// chunk of it) with their lines in it: each non-blank line (white space
    /// trimmed as ``RecordingFile`` does) after the header, which is the
    /// first non-blank line of the file (`atFileStart`).
    package static func recordingMessages(_ bytes: [UInt8], atFileStart: Bool) -> [Message] {
        var messages: [Message] = []
        var headerSkipped = !atFileStart
        var start = atFileStart && bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var line = 1
        func add(_ end: Int) {
            var lower = start, upper = end
            while upper > lower, [0x20, 0x09, 0x0D].contains(bytes[upper - 1]) { upper -= 1 }
            while lower < upper, [0x20, 0x09, 0x0D].contains(bytes[lower]) { lower += 1 }
            guard lower < upper else { return }
            guard headerSkipped else {
                headerSkipped = true
                return
            }
            let entry = RecordingFile.recordingEntry(bytes[lower..<upper], line: line)
            messages.append(Message(line: line, bytes: entry.message[...], malformed: entry.problem != nil))
        }
        var index = start
        while index < bytes.count {
            if bytes[index] == 0x0A {
                add(index)
                start = index + 1
                line += 1
            }
            index += 1
        }
        if start < bytes.count { add(bytes.count) }
        return messages
    }

    // MARK: The two passes

    /// What the first pass learns from a run of messages (a whole file, or
    /// one chunk of a streamed one): the fields the messages name beyond the
    /// declared ones (in order of first appearance) with the types their
    /// values allow, whether any has a point and its spatial reference, the
    /// rows, and what was skipped. Runs of consecutive chunks merge, in file
    /// order, into what one pass over them would have learned.
    package struct Evidence: Sendable {
        /// Fields beyond the declared ones, in order of first appearance.
        var learned: [Field] = []
        var inference: [AttributeTypeInference] = []
        var sawGeometry = false
        var firstWKID: Int?
        package var rows = 0
        var report: FeatureLoadReport
        /// The points' x and y ranges as given (NaN left out).
        var pointBounds: (xmin: Double, ymin: Double, xmax: Double, ymax: Double)?
        /// The references the points name (nil: none), up to two: a second means they differ.
        var pointWKIDs: [Int?] = []

        /// Whether ``pointBounds``, ``pointWKIDs`` and the fields' date ranges are kept (for ``Layout/index(_:declared:)``).
        var keepsIndex = false

        mutating func notePoint(_ point: Point) {
            guard keepsIndex else { return }
            if pointWKIDs.count < 2, !pointWKIDs.contains(point.wkid) { pointWKIDs.append(point.wkid) }
            guard !point.x.isNaN, !point.y.isNaN else { return }
            let (x, y) = (point.x, point.y)
            pointBounds = pointBounds.map { (min($0.xmin, x), min($0.ymin, y), max($0.xmax, x), max($0.ymax, y)) } ?? (x, y, x, y)
        }

        package init(format: FeatureFileFormat, keepsIndex: Bool = false) {
            report = FeatureLoadReport(format: format)
            self.keepsIndex = keepsIndex
        }

        /// Adds what the run that follows this one learned; `lineOffset`
        /// turns its line numbers into this run's.
        package mutating func merge(_ later: Evidence, lineOffset: Int) {
            var known = Schema(fields: learned)
            for (index, field) in later.learned.enumerated() {
                if let existing = known.index(ofField: field.name) {
                    inference[existing].merge(later.inference[index])
                } else {
                    learned.append(field)
                    inference.append(later.inference[index])
                    known = Schema(fields: learned)
                }
            }
            sawGeometry = sawGeometry || later.sawGeometry
            if firstWKID == nil { firstWKID = later.firstWKID }
            for wkid in later.pointWKIDs where pointWKIDs.count < 2 && !pointWKIDs.contains(wkid) { pointWKIDs.append(wkid) }
            if let bounds = later.pointBounds {
                pointBounds = pointBounds.map { (min($0.xmin, bounds.xmin), min($0.ymin, bounds.ymin), max($0.xmax, bounds.xmax), max($0.ymax, bounds.ymax)) }
                    ?? bounds
            }
            rows += later.rows
            report.merge(skipped: later.report, lineOffset: lineOffset)
        }
    }

    /// The table's layout, decided from the whole file's ``Evidence``.
    package struct Layout: Sendable {
        /// The fields messages are decoded with (declared, then learned).
        var sourceSchema: Schema
        package var plan: FeatureSchemaPlan
        package var geometryType: FeatureGeometryType
        var wkid: Int
        package var report: FeatureLoadReport
        var lenient: Bool

        package init(evidence: Evidence, declared: Declared, lenient: Bool, file: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) {
            let sourceFields = declared.fields + evidence.learned.indices.map { index in
                let name = evidence.learned[index].name
                return Field(name: name, type: evidence.inference[index].fieldType, alias: name)
            }
            sourceSchema = Schema(fields: sourceFields)
            plan = try FeatureSchemaPlan(sourceFields: sourceFields, mapping: mapping, declared: declared.time, file: file)
            geometryType = declared.geometryType == .point || evidence.sawGeometry ? .point : .none
            wkid = mapping.wkid ?? declared.wkid ?? evidence.firstWKID ?? 4326
            if geometryType == .point, mapping.wkid == nil, declared.wkid == nil, evidence.firstWKID == nil {
                plan.notes.append("the features name no spatial reference: taken as WGS84 (4326; choose another with --in-sr)")
            }
            report = evidence.report
            report.notes = plan.notes
            self.lenient = lenient
        }

        /// What a scan's tables of the whole file would say of it (rows, extent, time extent), from the
        /// ``Evidence`` alone, when that pass could not have failed and its tables hold the values as
        /// given: no declared fields (a recording's), object ids assigned in file order, every point in
        /// the layer's reference already, every value of the time fields a date. Nil otherwise: read the rows.
        package func index(_ evidence: Evidence, declared: Declared) -> FeatureFileIndex? {
            guard evidence.keepsIndex, declared.fields.isEmpty, plan.assignsObjectIDs else { return nil }
            if geometryType == .point {
                let target = SpatialReference(code: wkid)
                for given in evidence.pointWKIDs where SpatialReference(code: given).map({ $0 != target }) ?? false { return nil }
            }
            var earliest: Int64?, latest: Int64?
            for final in [plan.startTimeFieldIndex, plan.endTimeFieldIndex].compactMap({ $0 }) {
                let source = final - plan.shift
                guard source < evidence.inference.count else { continue }   // never given a value: null
                let inference = evidence.inference[source]
                guard inference.convertsToDates else { return nil }
                guard let bounds = inference.dateBounds else { continue }
                earliest = min(earliest ?? bounds.earliest, bounds.earliest)
                latest = max(latest ?? bounds.latest, bounds.latest)
            }
            let extent = geometryType == .point ? evidence.pointBounds.map { Envelope(xmin: $0.xmin, ymin: $0.ymin, xmax: $0.xmax, ymax: $0.ymax, wkid: wkid) } : nil
            let timeExtent = earliest.flatMap { start in latest.flatMap { try? TimeExtent(start: start, end: $0) } }
            return FeatureFileIndex(rows: evidence.rows, extent: extent, timeExtent: timeExtent)
        }

        /// An empty table of this layout.
        package func builder(name: String, file: String) throws(FeatureLoadError) -> FeatureTableBuilder {
            do throws(FeatureTableError) {
                return try FeatureTableBuilder(name: name, schema: plan.schema, objectIDFieldIndex: plan.objectIDFieldIndex,
                                               assignsObjectIDs: plan.assignsObjectIDs, geometryType: geometryType, spatialReference: wkid,
                                               startTimeFieldIndex: plan.startTimeFieldIndex, endTimeFieldIndex: plan.endTimeFieldIndex,
                                               report: report)
            } catch {
                throw FeatureLoadError(file: file, .table(error))
            }
        }
    }

    static func load(_ messages: [Message], declared: Declared, lenient: Bool, format: FeatureFileFormat,
                     file: String, name: String, mapping: FeatureColumnMapping) throws(FeatureLoadError) -> FeatureTable {
        var evidence = Evidence(format: format)
        try observe(messages, declared: declared, lenient: lenient, file: file, into: &evidence)
        let layout = try Layout(evidence: evidence, declared: declared, lenient: lenient, file: file, mapping: mapping)
        var builder = try layout.builder(name: name, file: file)
        builder.reserveCapacity(evidence.rows)
        try appendRows(messages, layout: layout, file: file, to: &builder)
        return builder.build()
    }

    /// Pass 1: learns fields, infers types, finds the spatial reference.
    package static func observe(_ messages: [Message], declared: Declared, lenient: Bool, file: String,
                        into evidence: inout Evidence) throws(FeatureLoadError) {
        var decoder = EsriFeatureDecoder(schema: Schema(fields: declared.fields))
        let declaredCount = decoder.schema.fields.count
        var inference: [AttributeTypeInference] = []
        var decoded: [StreamMessage] = []
        var checkpoint = CancellationCheckpoint()
        for message in messages {
            if checkpoint.isCancelled() { throw .cancelled(file: file) }
            decoded.removeAll(keepingCapacity: true)
            if message.malformed {
                evidence.report.skip("malformed recording line", line: message.line)
                continue
            }
            let result = message.bytes.withUnsafeBytes { buffer in
                Result { () throws(JSONError) in try decoder.decode(buffer, receivedAt: 0, into: &decoded) }
            }
            do throws(JSONError) { try result.get() } catch {
                guard lenient else { throw FeatureLoadError(file: file, line: message.line, .notEsriFeature(error)) }
                evidence.report.skip("undecodable message", line: message.line)
                continue
            }
            for item in decoded {
                switch item {
                case .observation(let observation):
                    evidence.rows += 1
                    if inference.count < decoder.schema.fields.count {
                        inference.append(contentsOf: repeatElement(AttributeTypeInference(keepsDateBounds: evidence.keepsIndex), count: decoder.schema.fields.count - inference.count))
                    }
                    for index in declaredCount..<max(declaredCount, observation.attributeCount) {
                        inference[index].observe(observation.attribute(index))
                    }
                    if let point = observation.geometry {
                        evidence.sawGeometry = true
                        if evidence.firstWKID == nil { evidence.firstWKID = point.wkid }
                        evidence.notePoint(point)
                    }
                case .nonPointGeometry(let kind, _):
                    guard lenient else {
                        throw FeatureLoadError(file: file, line: message.line, .nonPointFeature(kind: kind))
                    }
                    evidence.report.skip("\(kind) geometry (only points are kept)", line: message.line)
                case .delete:
                    guard lenient else { throw FeatureLoadError(file: file, line: message.line, .deleteMessage) }
                    evidence.report.skip("delete message", line: message.line)
                case .filterReply:
                    guard lenient else { throw FeatureLoadError(file: file, line: message.line, .filterReply) }
                    evidence.report.skip("filter reply", line: message.line)
                }
            }
        }
        var learned = Evidence(format: evidence.report.format ?? .esriFeatureLines)
        learned.learned = Array(decoder.schema.fields[declaredCount...])
        learned.inference = learned.learned.indices.map { declaredCount + $0 < inference.count ? inference[declaredCount + $0] : AttributeTypeInference(keepsDateBounds: evidence.keepsIndex) }
        evidence.merge(learned, lineOffset: 0)
    }

    /// Pass 2: the rows of `messages` in ``Layout`` (messages pass 1
    /// skipped are skipped again).
    @discardableResult
    package static func appendRows(_ messages: [Message], layout: Layout, file: String, to builder: inout FeatureTableBuilder,
                                   selection: LoadedRowSelection? = nil) throws(FeatureLoadError) -> LoadedRows {
        var loaded = LoadedRows()
        let plan = layout.plan
        let sourceCount = layout.sourceSchema.fields.count
        var rowDecoder = EsriFeatureDecoder(schema: layout.sourceSchema)
        var values = [AttributeValue](repeating: .null, count: plan.schema.fields.count)
        var decoded: [StreamMessage] = []
        var checkpoint = CancellationCheckpoint()
        for message in messages where !message.malformed {
            if checkpoint.isCancelled() { throw .cancelled(file: file) }
            decoded.removeAll(keepingCapacity: true)
            let result = message.bytes.withUnsafeBytes { buffer in
                Result { () throws(JSONError) in try rowDecoder.decode(buffer, receivedAt: 0, into: &decoded) }
            }
            do throws(JSONError) { try result.get() } catch {
                if layout.lenient { continue }   // counted in pass 1
                throw FeatureLoadError(file: file, line: message.line, .notEsriFeature(error))
            }
            for item in decoded {
                guard case .observation(let observation) = item else { continue }
                for index in 0..<sourceCount {
                    let target = plan.finalIndex(ofSource: index)
                    if let selection, !selection.converts(target) { continue }
                    let value = observation.attribute(index)
                    guard let converted = AttributeTypeInference.convert(value, to: plan.types[target]) else {
                        let field = plan.schema.fields[target]
                        throw FeatureLoadError(file: file, line: message.line, .cannotHold(field: field.name, field.type, value))
                    }
                    values[target] = converted
                }
                var point: Point?
                if layout.geometryType == .point, let given = observation.geometry {
                    point = try convert(given, to: layout.wkid, file: file, line: message.line)
                }
                try loaded.append(values, point: point, wkid: layout.wkid, selection: selection, to: &builder, file: file, line: message.line)
            }
        }
        return loaded
    }

    /// `point` in the layer's spatial reference `wkid` (through PROJ).
    static func convert(_ point: Point, to wkid: Int, file: String, line: Int) throws(FeatureLoadError) -> Point {
        guard let own = SpatialReference(code: point.wkid), let target = SpatialReference(code: wkid), own != target else { return point }
        do throws(ProjectionError) { return try point.converted(to: target) } catch {
            throw FeatureLoadError(file: file, line: line, .pointNotConvertible(error))
        }
    }

    // MARK: Splitting

    /// Each non-blank line (spaces, tabs and a CR trimmed) as a message.
    package static func lineMessages(_ bytes: [UInt8], atFileStart: Bool = true) -> [Message] {
        var messages: [Message] = []
        var start = 0
        var line = 1
        func add(_ end: Int) {
            var lower = start, upper = end
            if atFileStart, lower == 0, upper >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { lower = 3 }
            while lower < upper, [0x20, 0x09, 0x0D, 0x1E].contains(bytes[lower]) { lower += 1 }
            while upper > lower, [0x20, 0x09, 0x0D].contains(bytes[upper - 1]) { upper -= 1 }
            if lower < upper { messages.append(Message(line: line, bytes: bytes[lower..<upper])) }
        }
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            add(index)
            start = index + 1
            line += 1
        }
        if start < bytes.count { add(bytes.count) }
        return messages
    }

    /// The messages at `ranges` (ascending) with their line numbers.
    static func messages(_ bytes: [UInt8], _ ranges: [Range<Int>]) -> [Message] {
        var line = 1
        var scanned = 0
        return ranges.map { range in
            for index in scanned..<range.lowerBound where bytes[index] == UInt8(ascii: "\n") { line += 1 }
            scanned = range.lowerBound
            return Message(line: line, bytes: bytes[range])
        }
    }

    /// The ranges (in `bytes`) of the elements of the JSON array at `range`.
    static func elementRanges(_ bytes: [UInt8], in range: Range<Int>) throws(JSONError) -> [Range<Int>] {
        let result = bytes.withUnsafeBytes { all in
            Result { () throws(JSONError) in try JSONParser.elementRanges(ofArray: UnsafeRawBufferPointer(rebasing: all[range])) }
        }
        return try result.get().map { ($0.lowerBound + range.lowerBound)..<($0.upperBound + range.lowerBound) }
    }

    /// The 1-based line of byte `offset`.
    static func lineNumber(of offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<min(max(offset, 0), bytes.count)].count { $0 == UInt8(ascii: "\n") }
    }
}
