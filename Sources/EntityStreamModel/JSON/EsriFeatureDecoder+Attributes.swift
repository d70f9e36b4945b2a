extension EsriFeatureDecoder {
    /// Reads a feature's "attributes" value (after its key) into `feature`:
    /// values aligned to the schema as it is now, plus names still to learn.
    mutating func readAttributes(_ scanner: inout JSONScanner, depth: Int, into feature: inout FeatureParts) throws(JSONError) {
        let first = scanner.skipWhitespace()
        let start = scanner.position
        feature.hasAttributes = true
        if first == ASCII.n {
            _ = try scanner.scanLiteral(first)
            feature.attributes = nil
            return
        }
        guard first == ASCII.openBrace else {
            throw scanner.mismatch("\"attributes\" must be an object or null", found: first)
        }
        guard depth < maxDepth else { throw JSONScanner.depthError(maxDepth: maxDepth, at: start) }
        let fieldCount = fieldTable.fieldCount
        let trackIndex = schema.trackIDIndex ?? -1
        // The scratch array of the previous message (no allocation once it is
        // large enough), left all null when its values moved to the slab.
        var values: [AttributeValue] = []
        swap(&values, &attributeScratch)
        if !scratchIsAllNull || values.count != fieldCount {
            values.removeAll(keepingCapacity: true)
            values.append(contentsOf: repeatElement(AttributeValue.null, count: fieldCount))
        }
        scratchIsAllNull = false
        if scanner.enterObject() {
            var keyPosition = 0
            repeat {
                let key = try scanner.scanKey()
                let index = key.hasEscapes ? nil
                    : fieldTable.lookup(scanner.base + key.start, count: key.byteCount,
                                        readable: scanner.count - key.start, keyPosition: keyPosition)
                if let index {
                    values[index] = try Self.readAttributeValue(&scanner, kind: fieldTable.valueKinds[index], isTrackID: index == trackIndex)
                } else {
                    try readUnmatchedAttribute(&scanner, key: key, values: &values, learned: &feature.learned)
                }
                keyPosition += 1
            } while try scanner.nextMember()
        }
        feature.attributes = values
    }

    /// A key the fast lookup did not match (or that has escapes): resolve it
    /// through the schema's own lookup (remembering the spelling), or queue
    /// it to be learned when the feature is committed.
    @inline(never)
    private mutating func readUnmatchedAttribute(_ scanner: inout JSONScanner, key: JSONStringToken,
                                                 values: inout [AttributeValue], learned: inout [LearnedAttribute]) throws(JSONError) {
        if let index = scanner.withDecodedBytes(key, { fieldTable.lookup($0) }) {
            values[index] = try Self.readAttributeValue(&scanner, kind: fieldTable.valueKinds[index], isTrackID: index == schema.trackIDIndex)
            return
        }
        let name = scanner.decodeString(key)
        if let index = schema.index(ofField: name), index < values.count {
            scanner.withDecodedBytes(key) { fieldTable.addAlias($0, fieldIndex: index) }
            values[index] = try Self.readAttributeValue(&scanner, kind: fieldTable.valueKinds[index], isTrackID: index == schema.trackIDIndex)
            return
        }
        let value = try Self.readAttributeValue(&scanner, kind: .plain)
        learned.append(LearnedAttribute(name: name, value: value))
    }

    /// A string, number, boolean or null; numbers typed for the field. For
    /// the track-id field a number is converted only when nothing is lost:
    /// an integer beyond Int64 keeps the service's text (as a string), one
    /// that a float field could not hold exactly stays an integer — so two
    /// entities never merge into one.
    ///
    /// Static, like every reader a mutating method calls: an instance method
    /// would be handed a copy of the whole decoder (280 bytes) per value.
    @inline(__always)
    private static func readAttributeValue(_ scanner: inout JSONScanner, kind: FieldValueKind, isTrackID: Bool = false) throws(JSONError) -> AttributeValue {
        let next = scanner.skipWhitespace()
        switch next {
        case ASCII.quote:
            return .string(scanner.decodeString(try scanner.scanString()))
        case ASCII.minus, ASCII.zero...ASCII.nine:
            let start = scanner.position
            let number = try scanner.scanNumber()
            if isTrackID, let exact = EsriFeatureDecoder.exactTrackID(number, kind: kind, text: scanner, from: start) { return exact }
            return EsriFeatureDecoder.typed(number, kind: kind)
        case ASCII.t, ASCII.f, ASCII.n:
            switch try scanner.scanLiteral(next) {
            case .true: return .bool(true)
            case .false: return .bool(false)
            case .null: return .null
            }
        default:
            throw scanner.mismatch("an attribute value must be a string, number, boolean or null", found: next)
        }
    }

    /// The track id a number must keep to stay distinct, when typing it for
    /// its field would lose precision; nil when ``typed(_:kind:)`` is exact.
    @inline(never)
    static func exactTrackID(_ number: JSONNumber, kind: FieldValueKind, text scanner: JSONScanner, from start: Int) -> AttributeValue? {
        switch number {
        case .int(let whole):
            guard kind == .floatingPoint, Int64(exactly: Double(whole)) != whole else { return nil }
            return .int(whole)
        case .double:
            let end = scanner.position
            var integral = true
            for offset in start..<end {
                let byte = scanner.base[offset]
                if byte == ASCII.dot || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { integral = false }
            }
            guard integral else { return nil }
            return .string(String(decoding: UnsafeBufferPointer(start: scanner.base + start, count: end - start), as: UTF8.self))
        }
    }

    /// Applies the field-type rules to a JSON number (never lossy except that a
    /// float field turns an integer beyond 2^53 into the nearest double).
    @inline(__always)
    static func typed(_ number: JSONNumber, kind: FieldValueKind) -> AttributeValue {
        switch (number, kind) {
        case (.int(let i), .date): return .date(milliseconds: i)
        case (.int(let i), .floatingPoint): return .double(Double(i))
        case (.int(let i), _): return .int(i)
        case (.double(let d), .integer): return Int64(exactly: d).map(AttributeValue.int) ?? .double(d)
        case (.double(let d), .date): return Int64(exactly: d).map { .date(milliseconds: $0) } ?? .double(d)
        case (.double(let d), _): return .double(d)
        }
    }
}
