import EntityStreamCore
import EntityStreamProjection
import EntityStreamModel

/// The stored observations a hot-spot analysis of a live stream reads: every
/// observation of a store snapshot matching an ``ObservationScan`` (time
/// extent, where clause, envelope, track ids — not only each entity's latest
/// position), as incidents (no value field) or weighted points (a numeric
/// field of the stream's schema).
///
/// Points are read as ``HotSpotPointReading`` says for the first point's
/// spatial reference and the processing reference, if any (converted
/// through PROJ in one batch). Observations in more than one spatial
/// reference cannot be analysed together (thrown as
/// ``HotSpotSelectionError``). ``sourceIDs`` maps each record number to the
/// store's observation id. Linear in the observations visited; polls
/// `shouldStop` every 4,096 and throws `CancellationError` when it says so.
/// A value type.
public struct HotSpotStoreSelection: Sendable {
    public let input: HotSpotInput
    public let reading: HotSpotPointReading
    /// The observation id of each input record, by record number.
    public let sourceIDs: [Int64]
    /// Observations matching the scan (the records offered to the input).
    public let matchedCount: Int
    /// The value field's name as the schema spells it (nil for incidents).
    public let valueField: String?

    public static func select(from contents: StoreContents, scan: ObservationScan, valueField: String? = nil, processing: Int? = nil,
                              maximumCount: Int = 50_000_000, shouldStop: () -> Bool = { false }) throws -> HotSpotStoreSelection {
        let schema = contents.schema
        let valueIndex = try valueField.map { (name) throws(HotSpotSelectionError) in try HotSpotValueField.resolve(name, in: schema) }
        // The first point decides how every point is read.
        var firstWKID: Int?? = .none
        contents.scan(scan) { row in
            guard let point = row.point else { return true }
            firstWKID = .some(point.wkid)
            return false
        }
        let reading: HotSpotPointReading
        do { reading = try HotSpotPointReading(wkid: firstWKID ?? nil, processing: processing) } catch {
            throw HotSpotSelectionError.spatialReference(error.description)
        }
        let inputReference = SpatialReference(code: reading.inputWKID) ?? .wgs84
        var input = HotSpotInput(kind: valueIndex == nil ? .incidents : .weighted, coordinates: reading.coordinates,
                                 maximumCount: maximumCount)
        var sourceIDs: [Int64] = []
        var records = SelectedRecords()
        var matched = 0
        var mixed: Int??
        var stopped = false
        contents.scan(scan) { row in
            if matched & 4095 == 0, shouldStop() {
                stopped = true
                return false
            }
            matched += 1
            if let point = row.point, (SpatialReference(code: point.wkid) ?? .wgs84) != inputReference {
                mixed = .some(point.wkid)
                return false
            }
            records.append(row.point, value: valueIndex.flatMap { HotSpotValueField.number(row.value(at: $0)) })
            sourceIDs.append(row.id)
            return true
        }
        records.offer(to: &input, reading: reading)
        if stopped { throw CancellationError() }
        if let mixed {
            let other = mixed.map { String($0) } ?? "none"
            throw HotSpotSelectionError.mixedSpatialReferences(first: reading.inputWKID.map(String.init) ?? "none", other: other)
        }
        return HotSpotStoreSelection(input: input, reading: reading, sourceIDs: sourceIDs, matchedCount: matched,
                                     valueField: valueIndex.map { schema.fields[$0].name })
    }

    /// The source id of a result feature's record number (−1 for fishnet cells).
    public func sourceID(_ recordNumber: Int32) -> Int64 {
        recordNumber >= 0 && Int(recordNumber) < sourceIDs.count ? sourceIDs[Int(recordNumber)] : -1
    }
}
