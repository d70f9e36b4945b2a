/// The extents of recently identified cells in the spatial references they
/// were asked in: a cell's extent in another reference than the raster's
/// costs four PROJ transformations (its corners), so a cell identified again
/// (a vehicle that stays in or comes back to a cell, many points in one
/// cell) takes its extent from here instead.
///
/// Direct-mapped: ``slotCount`` slots, a cell's slot chosen by a hash of
/// its index and the reference's code; a new entry replaces whatever held
/// its slot, so a lookup is one hash and one comparison and memory is fixed
/// (48 bytes a slot). An entry is the extent exactly as computed, so a hit
/// answers what a miss would have.
///
/// Not thread-safe: owned by one raster and used by its thread (see
/// ``GeoTIFFRaster``). Buffers are allocated on first use (a raster only
/// identified in its own CRS never needs them).
final class CellExtentCache {
    /// Slots (a power of two).
    static let slotCount = 4096
    private static let shift = UInt64(64 - 12)

    private struct Entry {
        /// Cell index + 1 (0: empty).
        var cell: Int
        var code: Int
        var xmin: Double
        var ymin: Double
        var xmax: Double
        var ymax: Double
    }

    private var entries: UnsafeMutablePointer<Entry>?
    private(set) var hits = 0

    init() {}

    deinit { entries?.deallocate() }

    @inline(__always) private static func slot(cell: Int, code: Int) -> Int {
        let mixed = UInt64(bitPattern: Int64(cell &+ code &* 0x1_0000_0001)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: mixed >> shift)
    }

    /// The extent of cell number `cell` (row · width + column) in the
    /// reference with `code`, when held.
    @inline(__always) func lookup(cell: Int, code: Int) -> (xmin: Double, ymin: Double, xmax: Double, ymax: Double)? {
        guard let entries else { return nil }
        let entry = entries[Self.slot(cell: cell, code: code)]
        guard entry.cell == cell &+ 1, entry.code == code else { return nil }
        hits &+= 1
        return (entry.xmin, entry.ymin, entry.xmax, entry.ymax)
    }

    /// Keeps the extent of cell number `cell` in the reference with `code`.
    @inline(__always) func insert(cell: Int, code: Int, xmin: Double, ymin: Double, xmax: Double, ymax: Double) {
        let entries = self.entries ?? allocate()
        entries[Self.slot(cell: cell, code: code)] = Entry(cell: cell &+ 1, code: code, xmin: xmin, ymin: ymin, xmax: xmax, ymax: ymax)
    }

    private func allocate() -> UnsafeMutablePointer<Entry> {
        let made = UnsafeMutablePointer<Entry>.allocate(capacity: Self.slotCount)
        made.initialize(repeating: Entry(cell: 0, code: 0, xmin: 0, ymin: 0, xmax: 0, ymax: 0), count: Self.slotCount)
        entries = made
        return made
    }
}
