import EntityStreamCore
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private let limit: Int64 = 1 << 47   // values in -2^47 ..< 2^47 are packed inline

@Suite("Stored values round-trip", .bounded)
struct StoredValueRoundTripTests {
    /// Dates and integers at and beyond the inline-packed range, and doubles
    /// including NaN, ±infinity and -0, come back from the track history
    /// with their values and their types; the interned text of the wide ones
    /// is freed with them.
    @Test func extremeValuesKeepValueAndType() {
        let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "when", type: .date),
                                     Field(name: "n", type: .bigInteger), Field(name: "x", type: .double)], trackIDField: "id")
        let wholes: [Int64] = [0, -1, limit - 1, -limit, limit, -limit - 1, limit * 4, Int64.max, Int64.min]
        let doubles: [Double] = [1.5, -0.0, .infinity, -.infinity, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -1e300, .nan, -.nan]
        var store = EntityStoreState(schema: schema, options: PurgeOptions())
        var events: [StoreEvent] = []
        for (index, whole) in wholes.enumerated() {
            let attributes: [AttributeValue] = [.string("T"), .date(milliseconds: whole), .int(whole), .double(doubles[index])]
            store.ingest(Observation(geometry: nil, attributes: attributes, receivedAt: Int64(index)), now: Int64(index), into: &events)
        }
        let history = store.observations(trackID: .string("T")).map(\.observation).reversed()
        #expect(history.map { $0.attribute(1) } == wholes.map { .date(milliseconds: $0) })
        #expect(history.map { $0.attribute(2) } == wholes.map { .int($0) })
        for (stored, original) in zip(history.map { $0.attribute(3) }, doubles) {
            guard case .double(let value) = stored else {
                Issue.record("\(original) came back as \(stored)")
                continue
            }
            if original.isNaN {
                #expect(value.isNaN)
            } else {
                #expect(value == original && value.sign == original.sign)
            }
        }

        store.delete(trackID: .string("T"), into: &events)
        #expect(store.internedStringCount == 0)
    }
}
