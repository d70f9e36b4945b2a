import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel
import EntityStreamFiles

/// An element the test sorts: a key with many ties, text of any length
/// (UTF-8, empty, longer than a block) and a double with its exact bits.
private struct Item: Spillable, Equatable {
    var key: Int64
    var text: String
    var number: Double

    var residentBytes: Int { 48 + text.utf8.count }

    func spill(into writer: inout SpillWriter) {
        writer.int(key)
        writer.string(text)
        writer.double(number)
    }

    static func unspill(from reader: inout SpillReader) throws(ExternalSortError) -> Item {
        Item(key: try reader.int(), text: try reader.string(), number: try reader.double())
    }

    static func == (a: Item, b: Item) -> Bool {
        a.key == b.key && a.text == b.text && a.number.bitPattern == b.number.bitPattern
    }
}

private func items(_ count: Int, seed: UInt64, longText: Bool = false) -> [Item] {
    var random = SplitMix64(seed: seed)
    let words = ["", "a", "Zürich", "日本語", "🛰️🚢", String(repeating: "x", count: 40)]
    return (0..<count).map { index in
        var text = words[random.next(below: words.count)] + "\(index)"
        if longText, index % 97 == 0 { text += String(repeating: "é", count: 200_000) }
        let number = random.chance(0.02) ? -0.0 : random.uniform(-1e6, 1e6)
        return Item(key: Int64(random.next(below: 40)), text: text, number: number)
    }
}

/// The test's own stable sort: by key (descending), ties in the order given.
private func oracle(_ items: [Item], limit: Int? = nil) -> [Item] {
    let sorted = items.indices.sorted { a, b in
        items[a].key != items[b].key ? items[a].key > items[b].key : a < b
    }.map { items[$0] }
    return limit.map { Array(sorted.prefix($0)) } ?? sorted
}

/// A fresh empty directory for one test's temporary files.
private func directory() throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sort-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    return path
}

/// The descriptors of this process open on a file in `directory` (unlinked or not).
private func openFiles(in directory: String) -> Int {
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return descriptors.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)"))?.hasPrefix(directory + "/") ?? false }.count
}

private func sorted(_ input: [Item], runBytes: Int, limit: Int? = nil, fanIn: Int = ExternalSorter<Item>.maximumFanIn,
                    in directory: String) async throws -> (output: [Item], runs: Int, records: Int) {
    let sorter = ExternalSorter<Item>(runBytes: runBytes, limit: limit, directory: directory, fanIn: fanIn) { $0.key > $1.key }
    for item in input { try sorter.append(item) }
    var output: [Item] = []
    try await sorter.finish(batchSize: 100) { output.append(contentsOf: $0) }
    return (output, sorter.runsWritten, sorter.recordsWritten)
}

@Suite("External sort: sorted runs in temporary files, merged in the in-memory order", .bounded)
struct ExternalSorterTests {
    /// Runs of a few kilobytes: hundreds of runs (more than are merged at
    /// once, so runs are merged as they come too), and the output is the
    /// test's stable sort exactly (ties keep their arrival order). A limit
    /// whose elements fit in half a run is a top-k in memory, with no files.
    @Test("many spilled runs give the stable in-memory order", arguments: [nil, 1, 10, 2500] as [Int?])
    func spilled(limit: Int?) async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = items(6000, seed: 41)
        let answer = try await sorted(input, runBytes: 4096, limit: limit, in: dir)
        #expect(answer.output == oracle(input, limit: limit))
        if limit == nil || limit == 2500 { #expect(answer.runs > ExternalSorter<Item>.maximumFanIn) }
        if limit == 1 || limit == 10 { #expect(answer.runs == 0, "a small limit is a top-k in memory") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(openFiles(in: dir) == 0)
    }

    /// Runs of half a kilobyte (about five elements each) and a fan-in of 2
    /// or 5: over five hundred runs merged as a tree, still the test's stable
    /// sort exactly; and each element is written about once per level of the
    /// tree, never near once per merge (a merge of everything whenever `fanIn`
    /// runs pile up writes the early elements once per merge: hundreds of
    /// times each here). What is counted is runs and levels, so 3,000 small
    /// elements make the same tree 12,000 in 2 KiB runs did.
    @Test("a merge tree of small fan-in keeps the order and writes each element once per level", arguments: [2, 5], [nil, 750] as [Int?])
    func mergeTree(fanIn: Int, limit: Int?) async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = items(3000, seed: 45)
        let answer = try await sorted(input, runBytes: 512, limit: limit, fanIn: fanIn, in: dir)
        #expect(answer.output == oracle(input, limit: limit))
        #expect(answer.runs > 500)
        // Levels of a tree over at most one run per element, plus the first write and the merges before the last.
        let levels = Int((log(Double(input.count)) / log(Double(fanIn))).rounded(.up))
        #expect(answer.records <= input.count * (levels + 2), "\(answer.records) records written for \(input.count) elements")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(openFiles(in: dir) == 0)
    }

    /// Elements larger than a read block, and a run size that holds them all: the same order either way.
    @Test("records longer than a read block, and no spill at all")
    func longRecordsAndMemoryOnly() async throws {
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = items(400, seed: 42, longText: true)
        let spilled = try await sorted(input, runBytes: 300_000, in: dir)
        #expect(spilled.runs > 1)
        #expect(spilled.output == oracle(input))
        let memory = try await sorted(input, runBytes: 1 << 40, in: dir)
        #expect(memory.runs == 0)
        #expect(memory.output == oracle(input))
    }

    /// The files are unlinked as soon as they are made (the directory stays
    /// empty while runs exist), and an error from the consumer closes them.
    @Test("temporary files are gone while sorting, and closed when the consumer fails")
    func filesRemovedOnError() async throws {
        struct Stop: Error {}
        let dir = try directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = items(3000, seed: 43)
        let sorter = ExternalSorter<Item>(runBytes: 4096, directory: dir) { $0.key > $1.key }
        for item in input { try sorter.append(item) }
        #expect(sorter.runsWritten > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        #expect(openFiles(in: dir) > 0)
        var batches = 0
        await #expect(throws: Stop.self) {
            try await sorter.finish(batchSize: 10) { _ in
                batches += 1
                if batches == 2 { throw Stop() }
            }
        }
        #expect(batches == 2)
        #expect(openFiles(in: dir) == 0)
    }

    /// A directory that cannot hold files: a clear error naming it, not a crash.
    @Test("a temporary directory that does not exist is named in the error")
    func missingDirectory() async throws {
        let dir = "/nonexistent-\(UUID().uuidString)"
        let sorter = ExternalSorter<Item>(runBytes: 100, directory: dir) { $0.key > $1.key }
        #expect(throws: ExternalSortError.temporaryFile(directory: dir, errno: ENOENT)) {
            for item in items(100, seed: 44) { try sorter.append(item) }
        }
    }
}
