#if canImport(Glibc)
import Glibc
#endif

/// Decodes ArcGIS stream-service messages (Esri JSON point features as UTF-8
/// WebSocket text) straight into ``StreamMessage`` values, learning unknown
/// attribute names into its ``schema``.
///
/// A message may be a feature `{"geometry":…,"attributes":…}`, a
/// `{"type":"create"|"update"|"delete","feature":{…}}` object, a filter reply
/// (any object with a `"filter"` key), or a JSON array whose elements are any
/// of those objects (each element yields one message, in order). Members may
/// come in any order; unknown members (`symbol`, `popupTemplate`, …) are
/// skipped but validated. A feature needs a `geometry` or an `attributes`
/// member; `"attributes": null` means no attribute values.
///
/// Attribute values are decoded into `[AttributeValue]` aligned to
/// `schema.fields` (count = `schema.fields.count` after the feature; absent
/// fields are `.null`), typed by the declared field type: date field +
/// integral number → `.date`, integer field + integral number (5, 5.0, 5e0)
/// → `.int`, float field + any number → `.double`; otherwise the JSON type is
/// kept (int for integer tokens within Int64, double for the rest; a string
/// stays a string in any field). Keys match field names ASCII
/// case-insensitively; a repeated key's last value wins. Unknown names are
/// appended to the schema with a type inferred from the value (string →
/// string, integer → integer, other number → double, bool →
/// `other("boolean")`, null → string).
///
/// Geometry: a point `{"x","y"[,"z"][,"m"][,"spatialReference":{"wkid"|"latestWkid"…}]}`
/// becomes a ``Point`` (wkid from `wkid`, else `latestWkid`); `null`, an
/// absent or empty geometry, or an empty point (`x`/`y` null or `"NaN"`)
/// gives geometry nil; `paths`/`rings`/`points`/`xmin` geometries yield
/// ``StreamMessage/nonPointGeometry(kind:_:)``.
///
/// The whole message is validated against RFC 8259 (see ``JSONParser``).
/// Throwing ``JSONError`` means: the bytes are not JSON, or they are JSON but
/// not a stream message (e.g. `42`, `{"foo":1}`, `"attributes": 5`,
/// `"x": true`); the offset points at the offending byte or value. A throw is
/// atomic: `output` and ``schema`` are left exactly as before the call — in
/// particular one invalid element makes a whole array message throw and
/// nothing of it is appended.
///
/// A value type, deliberately not `Sendable`: its copies share the slab
/// that decoded values are copied to, so the compiler keeps every copy in
/// the task (or actor) that made it. Use one decoder per stream.
public struct EsriFeatureDecoder {
    /// The fields attribute values align to; grows as names are learned.
    public private(set) var schema: Schema
    /// Maximum nesting of arrays/objects in a message (512 like JSONSerialization).
    public let maxDepth: Int
    /// The spatial reference (its code) of points whose message names none:
    /// the stream's (its description's, or the `outSR` it was asked for).
    /// Nil leaves such points without one.
    public var spatialReference: Int?

    /// Key bytes → field index, mirroring `schema`.
    var fieldTable: FieldNameTable
    /// Schema and table as they were before the current call first learned a
    /// field; restored if the call throws.
    private var stateBeforeLearning: LearningSnapshot?
    /// The message being decoded (valid during one decode call): where
    /// observations' source texts are copied from.
    private nonisolated(unsafe) var currentMessage: UnsafeRawBufferPointer?
    /// Where decoded observations' attribute values and source texts are
    /// copied to (a new slab when either part is full). Shared by a copy of
    /// the decoder, which is why the decoder is not `Sendable`.
    private var slab: ObservationSlab?
    /// The array a message's attribute values are read into, reused message
    /// after message (its values are moved to the slab).
    var attributeScratch: [AttributeValue] = []
    /// True when every value of `attributeScratch` is null (its values were
    /// moved to the slab, which leaves nulls in their place).
    var scratchIsAllNull = false

    public init(schema: Schema, maxDepth: Int = 512) {
        self.schema = schema
        self.maxDepth = maxDepth
        self.fieldTable = FieldNameTable(schema: schema)
        self.stateBeforeLearning = nil
    }

    /// Decodes one message, appending what it carries to `output`. On throw,
    /// `output` and `schema` are unchanged.
    public mutating func decode(_ message: UnsafeRawBufferPointer, receivedAt: Int64, into output: inout [StreamMessage]) throws(JSONError) {
        let countBefore = output.count
        stateBeforeLearning = nil
        currentMessage = message
        defer { currentMessage = nil }
        do throws(JSONError) {
            var scanner = try JSONScanner(message)
            try decodeTopLevel(&scanner, receivedAt: receivedAt, into: &output)
            try scanner.expectEndOfInput()
        } catch {
            if output.count > countBefore { output.removeSubrange(countBefore...) }
            if let snapshot = stateBeforeLearning {
                schema = snapshot.schema
                fieldTable = snapshot.fieldTable
            }
            stateBeforeLearning = nil
            throw error
        }
        stateBeforeLearning = nil
    }

    /// Decodes one message given as bytes (see ``decode(_:receivedAt:into:)-(UnsafeRawBufferPointer,_,_)``).
    public mutating func decode(_ message: [UInt8], receivedAt: Int64, into output: inout [StreamMessage]) throws(JSONError) {
        try decode(message, range: message.startIndex..<message.endIndex, receivedAt: receivedAt, into: &output)
    }

    /// Decodes the message at `range` of `bytes` (e.g. one message of a
    /// received batch). Observations carry a copy of their geometry and
    /// attributes text (``SourceText``), never a reference to `bytes`.
    public mutating func decode(_ bytes: [UInt8], range: Range<Int>, receivedAt: Int64, into output: inout [StreamMessage]) throws(JSONError) {
        let result = bytes.withUnsafeBytes { all in
            let message = UnsafeRawBufferPointer(rebasing: all[range])
            return Result { () throws(JSONError) in try decode(message, receivedAt: receivedAt, into: &output) }
        }
        try result.get()
    }

    /// Decodes one message given as a String (its UTF-8).
    public mutating func decode(_ message: String, receivedAt: Int64, into output: inout [StreamMessage]) throws(JSONError) {
        var message = message
        let result = message.withUTF8 { buffer in
            Result { () throws(JSONError) in try decode(UnsafeRawBufferPointer(buffer), receivedAt: receivedAt, into: &output) }
        }
        try result.get()
    }

    // MARK: Message level

    private mutating func decodeTopLevel(_ scanner: inout JSONScanner, receivedAt: Int64, into output: inout [StreamMessage]) throws(JSONError) {
        let first = scanner.skipWhitespace()
        if first == ASCII.openBrace {
            output.append(try readMessage(&scanner, depth: 0, receivedAt: receivedAt))
            return
        }
        guard first == ASCII.openBracket else {
            throw scanner.mismatch("not a stream message: expected a feature object or an array of them", found: first)
        }
        guard maxDepth >= 1 else { throw JSONScanner.depthError(maxDepth: maxDepth, at: scanner.position) }
        scanner.position += 1
        if scanner.skipWhitespace() == ASCII.closeBracket {
            scanner.position += 1
            return
        }
        while true {
            let element = scanner.skipWhitespace()
            guard element == ASCII.openBrace else {
                throw scanner.mismatch("not a stream message: array elements must be feature objects", found: element)
            }
            output.append(try readMessage(&scanner, depth: 1, receivedAt: receivedAt))
            let separator = scanner.skipWhitespace()
            if separator == ASCII.comma {
                scanner.position += 1
                continue
            }
            guard separator == ASCII.closeBracket else { throw scanner.expected("',' or ']' after array element") }
            scanner.position += 1
            return
        }
    }

    /// Reads one message object (at `{`); `depth` containers are open around it.
    ///
    /// Errors about meaning (a member of the wrong type) are deferred until
    /// the object is known not to be a filter reply: the offending member is
    /// re-validated as plain JSON (so a syntax error in it still throws at
    /// once) and the first such error is thrown at the end of the object.
    private mutating func readMessage(_ scanner: inout JSONScanner, depth: Int, receivedAt: Int64) throws(JSONError) -> StreamMessage {
        let objectStart = scanner.position
        guard depth < maxDepth else { throw JSONScanner.depthError(maxDepth: maxDepth, at: objectStart) }
        var feature = FeatureParts()
        var messageType: MessageType?
        var wrappedFeature: FeatureParts?
        var wrappedFeatureOffset = 0
        var deferredError: JSONError?

        guard scanner.enterObject() else { throw EsriFeatureDecoder.notAMessage(at: objectStart) }
        repeat {
            let key = scanner.withDecodedBytes(try scanner.scanKey(), MessageKey.init(classifying:))
            _ = scanner.skipWhitespace()
            let valueStart = scanner.position
            do throws(JSONError) {
                switch key {
                case .geometry:
                    try Self.readGeometry(&scanner, depth: depth + 1, maxDepth: maxDepth, into: &feature)
                    feature.geometryRange = valueStart..<scanner.position
                case .attributes:
                    try readAttributes(&scanner, depth: depth + 1, into: &feature)
                    feature.attributesRange = valueStart..<scanner.position
                case .type:
                    messageType = try Self.readMessageType(&scanner)
                case .feature:
                    wrappedFeatureOffset = valueStart
                    wrappedFeature = try readWrappedFeature(&scanner, depth: depth + 1)
                case .filter:
                    // Any object with a "filter" key is a filter reply: parse it whole.
                    scanner.position = objectStart
                    guard case .object(let reply) = try scanner.parseValue(depth: depth, maxDepth: maxDepth) else {
                        throw EsriFeatureDecoder.notAMessage(at: objectStart)   // unreachable: it starts with '{'
                    }
                    return .filterReply(reply)
                case .other:
                    try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
                }
            } catch {
                if key == .filter { throw error }   // a syntax error in the reply
                // Re-validate the member as plain JSON: a syntax error there wins.
                scanner.position = valueStart
                try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
                if deferredError == nil { deferredError = error }
            }
        } while try scanner.nextMember()
        if let deferredError { throw deferredError }

        if let messageType {
            guard var wrapped = wrappedFeature else {
                throw scanner.error("a \"type\" message needs a \"feature\" object", at: objectStart)
            }
            wrappedFeature = nil
            let observation = makeObservation(&wrapped, receivedAt: receivedAt)
            if messageType == .delete { return .delete(observation) }
            return EsriFeatureDecoder.message(for: observation, geometry: wrapped.geometry)
        }
        if wrappedFeature != nil {
            throw scanner.error("a \"feature\" member needs \"type\": \"create\", \"update\" or \"delete\"", at: wrappedFeatureOffset)
        }
        guard feature.hasGeometry || feature.hasAttributes else {
            throw EsriFeatureDecoder.notAMessage(at: objectStart)
        }
        let observation = makeObservation(&feature, receivedAt: receivedAt)
        return EsriFeatureDecoder.message(for: observation, geometry: feature.geometry)
    }

    /// Reads the object of a `{type, feature}` message's "feature" member.
    private mutating func readWrappedFeature(_ scanner: inout JSONScanner, depth: Int) throws(JSONError) -> FeatureParts {
        let first = scanner.skipWhitespace()
        let objectStart = scanner.position
        guard first == ASCII.openBrace else {
            throw scanner.mismatch("\"feature\" must be an object", found: first)
        }
        guard depth < maxDepth else { throw JSONScanner.depthError(maxDepth: maxDepth, at: objectStart) }
        var feature = FeatureParts()
        if scanner.enterObject() {
            repeat {
                let key = scanner.withDecodedBytes(try scanner.scanKey(), MessageKey.init(classifying:))
                _ = scanner.skipWhitespace()
                let valueStart = scanner.position
                switch key {
                case .geometry:
                    try Self.readGeometry(&scanner, depth: depth + 1, maxDepth: maxDepth, into: &feature)
                    feature.geometryRange = valueStart..<scanner.position
                case .attributes:
                    try readAttributes(&scanner, depth: depth + 1, into: &feature)
                    feature.attributesRange = valueStart..<scanner.position
                default: try scanner.skipValue(depth: depth + 1, maxDepth: maxDepth)
                }
            } while try scanner.nextMember()
        }
        guard feature.hasGeometry || feature.hasAttributes else {
            throw scanner.error("\"feature\" has neither \"geometry\" nor \"attributes\"", at: objectStart)
        }
        return feature
    }

    private static func readMessageType(_ scanner: inout JSONScanner) throws(JSONError) -> MessageType {
        let first = scanner.skipWhitespace()
        let valueStart = scanner.position
        guard first == ASCII.quote else {
            throw scanner.mismatch("\"type\" must be the string \"create\", \"update\" or \"delete\"", found: first)
        }
        let token = try scanner.scanString()
        guard let type = scanner.withDecodedBytes(token, MessageType.init(bytes:)) else {
            throw scanner.error("unknown message \"type\"; expected \"create\", \"update\" or \"delete\"", at: valueStart)
        }
        return type
    }

    // MARK: Building results

    /// Commits the feature's learned fields to the schema and builds its
    /// observation, moving the feature's values into the slab (its array,
    /// taken from `feature`, becomes the scratch array for the next message).
    private mutating func makeObservation(_ feature: inout FeatureParts, receivedAt: Int64) -> Observation {
        var values = feature.attributes ?? []
        feature.attributes = nil
        if !feature.learned.isEmpty {
            if stateBeforeLearning == nil { stateBeforeLearning = LearningSnapshot(schema: schema, fieldTable: fieldTable) }
            for learned in feature.learned {
                let index = schema.appendField(Field(name: learned.name, type: learned.inferredType))
                fieldTable.synchronize(with: schema)
                if index >= values.count {
                    values.append(contentsOf: repeatElement(AttributeValue.null, count: index + 1 - values.count))
                }
                values[index] = learned.value
            }
        }
        if values.count < schema.fields.count {
            values.append(contentsOf: repeatElement(AttributeValue.null, count: schema.fields.count - values.count))
        }
        var geometry: Point?
        if case .point(var point) = feature.geometry {
            if point.wkid == nil { point.wkid = spatialReference }
            geometry = point
        }
        let text = keptText(of: feature)
        let needed = (text?.geometry?.count ?? 0) + (text?.attributes?.count ?? 0)
        if slab == nil || slab!.remaining < needed || slab!.remainingValues < values.count {
            slab = ObservationSlab(textCapacity: max(ObservationSlab.standardTextCapacity, needed),
                                   valueCapacity: max(ObservationSlab.standardValueCapacity, values.count))
        }
        let slab = slab!
        let textRange = text.map { slab.append(geometry: $0.geometry, attributes: $0.attributes) }
        let start = values.withUnsafeMutableBufferPointer { slab.append(movingFrom: $0) }
        let observation = Observation(geometry: geometry, slab: slab, start: start, count: values.count,
                                      text: textRange, receivedAt: receivedAt)
        attributeScratch = values
        scratchIsAllNull = true
        return observation
    }

    /// The feature's own geometry and attributes text, to be copied beside
    /// its values, when neither holds a line break (so it can stand in one
    /// output line).
    private func keptText(of feature: FeatureParts) -> (geometry: UnsafeRawBufferPointer?, attributes: UnsafeRawBufferPointer?)? {
        guard let message = currentMessage else { return nil }
        let geometry = feature.geometryRange.map { UnsafeRawBufferPointer(rebasing: message[$0]) }
        let attributes = feature.attributesRange.map { UnsafeRawBufferPointer(rebasing: message[$0]) }
        if geometry?.containsLineBreak == true || attributes?.containsLineBreak == true { return nil }
        guard (geometry?.count ?? 0) + (attributes?.count ?? 0) < Int(Int32.max) else { return nil }
        return (geometry, attributes)
    }

    private static func message(for observation: Observation, geometry: GeometryResult) -> StreamMessage {
        if case .nonPoint(let kind) = geometry { return .nonPointGeometry(kind: kind.name, observation) }
        return .observation(observation)
    }

    private static func notAMessage(at offset: Int) -> JSONError {
        JSONError(offset: offset, message: "not a stream message: expected \"geometry\"/\"attributes\", \"type\" and \"feature\", or \"filter\"")
    }
}

/// What a throwing decode call restores.
private struct LearningSnapshot {
    var schema: Schema
    var fieldTable: FieldNameTable
}
