import EntityStreamCore
import Foundation
import EntityStreamStatistics
import EntityStreamModel
import EntityStreamWhere

/// The statistics benchmark's data: `count` observations of five fields,
/// packed the way the entity store keeps them (one 8-byte word per value;
/// doubles as their bits, integers and NULL tagged in the NaN space,
/// strings as an interned id), so the engine's identity-keyed path runs
/// on the same kind of rows as over the live store. Deterministic for a seed.
///
/// `scan(into:)` is the row source: to measure the live store instead,
/// give the benchmark a scan of the store's rows with the same signature.
struct StatisticsBenchmarkTable {
    static let schema = Schema(fields: [
        Field(name: "vehicletype", type: .string),
        Field(name: "agency", type: .integer),
        Field(name: "speed", type: .double),
        Field(name: "payload", type: .integer),
        Field(name: "heading", type: .double),
    ])
    static let vehicleTypes = ["Plow", "Salt Truck", "Grader", "Loader", "Pickup", "Sweeper", "Dump Truck", "Tanker",
                               "Blower", "Inspector"]
    static let stride = 5
    static let nullWord: UInt64 = 0xFFF9 << 48
    static let intTag: UInt64 = 0xFFFB
    static let stringTag: UInt64 = 0xFFFD

    let count: Int
    private(set) var words: [UInt64] = []
    let strings = vehicleTypes

    /// `count` rows: 10 vehicle types × 10 agencies (0.1% NULL agency) ≈ 100 groups,
    /// speed 0–120 (1% NULL), payload 0–20000, heading 0–360, in random order.
    init(count: Int, seed: UInt64) {
        self.count = count
        var random = SplitMix64(seed: seed)
        words.reserveCapacity(count * Self.stride)
        for _ in 0..<count {
            words.append(Self.stringTag << 48 | UInt64(random.next(below: Self.vehicleTypes.count)))
            words.append(random.chance(0.001) ? Self.nullWord : Self.pack(Int64(1 + random.next(below: 10))))
            words.append(random.chance(0.01) ? Self.nullWord : random.uniform(0, 120).bitPattern)
            words.append(Self.pack(Int64(random.next(below: 20_001))))
            words.append(random.uniform(0, 360).bitPattern)
        }
    }

    static func pack(_ value: Int64) -> UInt64 {
        intTag << 48 | (UInt64(bitPattern: value) & ((1 << 48) - 1))
    }

    /// Feeds every row to `accumulator` as identity-keyed rows.
    func scan(into accumulator: inout StatisticsAccumulator) {
        words.withUnsafeBufferPointer { words in
            strings.withUnsafeBufferPointer { strings in
                guard let base = words.baseAddress else { return }
                for row in 0..<count {
                    accumulator.add(PackedBenchmarkRow(words: base + row &* Self.stride, strings: strings))
                }
            }
        }
    }

    /// Feeds every row as plain rows (group values hashed as values), to measure the fallback path.
    func scanPlain(into accumulator: inout StatisticsAccumulator) {
        words.withUnsafeBufferPointer { words in
            strings.withUnsafeBufferPointer { strings in
                guard let base = words.baseAddress else { return }
                for row in 0..<count {
                    accumulator.add(PlainBenchmarkRow(row: PackedBenchmarkRow(words: base + row &* Self.stride, strings: strings)))
                }
            }
        }
    }

    /// The rows ingested into an entity store that keeps them all: the
    /// five fields plus a track id (`vehicle`, `tracks` vehicles in turn),
    /// a point each, received one per millisecond.
    func store(tracks: Int) -> EntityStoreState {
        var fields = Self.schema.fields
        fields.append(Field(name: "vehicle", type: .string))
        var state = EntityStoreState(schema: Schema(fields: fields, trackIDField: "vehicle"),
                                     options: PurgeOptions(maximumDuration: 0, maximumObservations: 0))
        let vehicles = (0..<max(1, tracks)).map { AttributeValue.string("V\($0)") }
        var events: [StoreEvent] = []
        words.withUnsafeBufferPointer { words in
            strings.withUnsafeBufferPointer { strings in
                guard let base = words.baseAddress else { return }
                for row in 0..<count {
                    let view = PackedBenchmarkRow(words: base + row &* Self.stride, strings: strings)
                    var attributes = (0..<Self.stride).map { view.value(at: $0) }
                    attributes.append(vehicles[row % vehicles.count])
                    let observation = Observation(geometry: Point(x: -112 + Double(row % 1000) / 1000, y: 40.5, wkid: 4326),
                                                  attributes: attributes, receivedAt: Int64(row))
                    events.removeAll(keepingCapacity: true)
                    state.ingest(observation, now: Int64(row), into: &events)
                }
            }
        }
        return state
    }

    /// Writes the rows as CSV (header, shortest round-trip doubles, empty for NULL) for the peers.
    func writeCSV(to path: String) throws {
        var text = "vehicletype,agency,speed,payload,heading\n"
        text.reserveCapacity(count * 48)
        words.withUnsafeBufferPointer { words in
            strings.withUnsafeBufferPointer { strings in
                guard let base = words.baseAddress else { return }
                for row in 0..<count {
                    let view = PackedBenchmarkRow(words: base + row &* Self.stride, strings: strings)
                    for field in 0..<Self.stride {
                        if field > 0 { text += "," }
                        switch view.value(at: field) {
                        case .string(let s): text += s
                        case .int(let i): text += String(i)
                        case .double(let x): text += x.description
                        default: break
                        }
                    }
                    text += "\n"
                }
            }
        }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }
}

/// One packed row, read in place: values unpacked on demand, identity words as stored.
struct PackedBenchmarkRow: IdentityKeyedRow {
    let words: UnsafePointer<UInt64>
    let strings: UnsafeBufferPointer<String>

    @inline(__always)
    func identityWord(at fieldIndex: Int) -> UInt64 {
        fieldIndex < StatisticsBenchmarkTable.stride ? words[fieldIndex] : StatisticsBenchmarkTable.nullWord
    }

    @inline(__always)
    func value(at fieldIndex: Int) -> AttributeValue {
        guard fieldIndex < StatisticsBenchmarkTable.stride else { return .null }
        let word = words[fieldIndex]
        switch word >> 48 {
        case 0xFFF9: return .null
        case StatisticsBenchmarkTable.intTag: return .int(Int64(bitPattern: word << 16) >> 16)
        case StatisticsBenchmarkTable.stringTag:
            let id = Int(word & 0xFFFF_FFFF)
            return id < strings.count ? .string(strings[id]) : .null
        default: return .double(Double(bitPattern: word))
        }
    }
}

/// The same row seen only as an ``AttributeRow``, so the engine hashes its group values.
struct PlainBenchmarkRow: AttributeRow {
    let row: PackedBenchmarkRow

    @inline(__always)
    func value(at fieldIndex: Int) -> AttributeValue { row.value(at: fieldIndex) }
}
