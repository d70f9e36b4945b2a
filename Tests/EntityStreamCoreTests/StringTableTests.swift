@testable import EntityStreamCore
import EntityStreamTestSupport
import Testing
@testable import EntityStreamModel

@Suite("The store's string table", .bounded)
struct StringTableTests {
    /// Random retains and releases against a plain dictionary model: a held
    /// string keeps one id, its text comes back by id, equal strings share
    /// it, the count is the number of distinct strings held, and releasing
    /// everything empties the table. Thousands of strings of every length
    /// (empty, under, at and over a word, non-ASCII) make probe runs wrap and
    /// removals shift entries back.
    @Test(arguments: [UInt64(1), 2, 3])
    func agreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pool: [String] = (0..<3000).map { index in
            let length = Int(random.next() % 40)
            let stem = String(repeating: "x", count: length)
            switch index % 4 {
            case 0: return stem + String(index)
            case 1: return String(index) + stem
            case 2: return "é\(index)ß" + stem.prefix(length / 2)
            default: return index == 3 ? "" : "{\(index)-\(length)}"
            }
        }
        var table = StringTable()
        var held: [String: (id: UInt32, references: Int)] = [:]
        var references: [(String, UInt32)] = []
        for _ in 0..<20_000 {
            if references.isEmpty || random.next() % 5 < 3 {
                let string = pool[Int(random.next() % UInt64(pool.count))]
                let id = table.retain(string)
                if let known = held[string] {
                    #expect(known.id == id, "\(string) changed id while held")
                    held[string] = (id, known.references + 1)
                } else {
                    held[string] = (id, 1)
                }
                references.append((string, id))
            } else {
                let (string, id) = references.swapRemoveAt(Int(random.next() % UInt64(references.count)))
                table.release(id)
                let known = held[string]!
                held[string] = known.references == 1 ? nil : (id, known.references - 1)
            }
            if references.count % 97 == 0 { check(table, held) }
        }
        check(table, held)
        for (_, id) in references { table.release(id) }
        #expect(table.count == 0)
        // Every string can be interned again afterwards.
        for string in pool.prefix(500) {
            let id = table.retain(string)
            #expect(table.string(id) == string)
        }
        #expect(table.count == Set(pool.prefix(500)).count)
    }

    /// Every held string against the table, with one expectation per kind of
    /// mismatch rather than two per string: the check runs about 200 times over
    /// up to 2,500 strings, and recording millions of expectations took most of the
    /// test's time.
    private func check(_ table: StringTable, _ held: [String: (id: UInt32, references: Int)]) {
        #expect(table.count == held.count)
        var probe = table
        var wrongText: [(id: UInt32, expected: String)] = []
        var wrongID: [(string: String, expected: UInt32, found: UInt32)] = []
        for (string, entry) in held {
            if table.string(entry.id) != string { wrongText.append((entry.id, string)) }
            // Interning a held string finds its id (and takes a reference, dropped again).
            let id = probe.retain(string)
            if id != entry.id { wrongID.append((string, entry.id, id)) }
            probe.release(id)
        }
        #expect(wrongText.isEmpty, "\(wrongText.count) ids do not give their string back, e.g. \(wrongText.prefix(3))")
        #expect(wrongID.isEmpty, "\(wrongID.count) held strings interned to another id, e.g. \(wrongID.prefix(3))")
        #expect(probe.count == held.count)
    }

    /// Fingerprints depend on every byte, including a partial last word, and on the length.
    @Test func fingerprintsSeeEveryByte() {
        let base = Array("{3132E1E6-D6FB-9A27-B3D3-9BC3FBFC2168}".utf8)
        let fingerprint = { (bytes: [UInt8]) in bytes.withUnsafeBytes { StringTable.fingerprint($0) } }
        var seen: Set<UInt64> = [fingerprint(base)]
        for index in base.indices {
            var changed = base
            changed[index] ^= 1
            #expect(seen.insert(fingerprint(changed)).inserted, "byte \(index)")
        }
        for length in 0..<base.count { #expect(seen.insert(fingerprint(Array(base.prefix(length)))).inserted, "length \(length)") }
        #expect(fingerprint([0]) != fingerprint([0, 0]))
    }
}

private extension Array {
    /// Removes the element at `index` by moving the last one into its place.
    mutating func swapRemoveAt(_ index: Int) -> Element {
        swapAt(index, count - 1)
        return removeLast()
    }
}
