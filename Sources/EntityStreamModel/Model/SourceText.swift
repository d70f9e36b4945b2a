/// Where an observation's geometry and attributes text is: its own copy of
/// the service's bytes for those two members (not the message, and never
/// the receive batch it arrived in), kept in a shared ``ObservationSlab``.
///
/// The text is validated JSON on one line (no line breaks), so output may
/// copy it verbatim. Small (a reference and three 32-bit numbers) because
/// observations are copied often. What it keeps alive is its slab: slabs
/// are filled in arrival order, so observations written in order release
/// them in order, and the memory a queue of observations pins is about the
/// size of their own text (see ``byteCount``).
public struct SourceText: Sendable {
    let slab: ObservationSlab
    let range: SourceTextRange

    init(slab: ObservationSlab, range: SourceTextRange) {
        self.slab = slab
        self.range = range
    }

    /// True when the feature had a `geometry` member.
    public var hasGeometry: Bool { range.geometryCount >= 0 }
    /// True when the feature had an `attributes` member.
    public var hasAttributes: Bool { range.attributesCount >= 0 }

    /// The bytes of this text.
    public var byteCount: Int { range.byteCount }

    /// Calls `body` with the `geometry` member's value text, or nil when the feature had none.
    public func withGeometry<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(slab) { try body(range.geometry(in: slab)) }
    }

    /// Calls `body` with the `attributes` member's value text, or nil when the feature had none.
    public func withAttributes<Result>(_ body: (UnsafeRawBufferPointer?) throws -> Result) rethrows -> Result {
        try withExtendedLifetime(slab) { try body(range.attributes(in: slab)) }
    }

    /// The geometry text as a String (for tests and diagnostics).
    public var geometryText: String? { withGeometry { $0.map { String(decoding: $0, as: UTF8.self) } } }
    /// The attributes text as a String (for tests and diagnostics).
    public var attributesText: String? { withAttributes { $0.map { String(decoding: $0, as: UTF8.self) } } }
}


/// Where a source text is in its slab: the geometry's bytes, then the
/// attributes' (a count of -1: the feature had no such member).
struct SourceTextRange: Sendable {
    var start: Int32
    var geometryCount: Int32
    var attributesCount: Int32

    var byteCount: Int { Int(max(geometryCount, 0)) + Int(max(attributesCount, 0)) }

    /// The geometry member's bytes in `slab`, nil when the feature had none.
    func geometry(in slab: ObservationSlab) -> UnsafeRawBufferPointer? {
        geometryCount < 0 ? nil : UnsafeRawBufferPointer(start: slab.base + Int(start), count: Int(geometryCount))
    }

    /// The attributes member's bytes in `slab`, nil when the feature had none.
    func attributes(in slab: ObservationSlab) -> UnsafeRawBufferPointer? {
        attributesCount < 0 ? nil
            : UnsafeRawBufferPointer(start: slab.base + Int(start) + Int(max(geometryCount, 0)), count: Int(attributesCount))
    }
}
