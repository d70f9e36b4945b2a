/// A growable byte buffer with cheap small appends, for ``JSONWriter``.
///
/// `Array.append(contentsOf:)` carries noticeable fixed cost per call, and
/// JSON output is mostly appends of a few bytes; this buffer reserves once and
/// copies with `memcpy`. Value semantics by copy-on-write: the storage is
/// copied before a mutation when shared, so sending a buffer across tasks is
/// safe (`@unchecked Sendable` on that basis).
struct ByteBuffer: @unchecked Sendable {
    final class Storage {
        var base: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = max(capacity, 16)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }

        func copy(minimumCapacity: Int) -> Storage {
            let copy = Storage(capacity: max(capacity, minimumCapacity))
            copy.base.update(from: base, count: count)
            copy.count = count
            return copy
        }
    }

    private var storage: Storage

    init(capacity: Int) {
        storage = Storage(capacity: capacity)
    }

    var count: Int { storage.count }
    var capacity: Int { storage.capacity }

    /// A pointer to room for `extra` more bytes, growing and un-sharing first.
    @inline(__always)
    private mutating func room(for extra: Int) -> UnsafeMutablePointer<UInt8> {
        let needed = storage.count + extra
        if !isKnownUniquelyReferenced(&storage) || needed > storage.capacity {
            storage = storage.copy(minimumCapacity: needed > storage.capacity ? max(needed, storage.capacity * 2) : storage.capacity)
        }
        return storage.base + storage.count
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        room(for: 1).pointee = byte
        storage.count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        room(for: bytes.count).update(from: source, count: bytes.count)
        storage.count += bytes.count
    }

    /// Appends `value` in decimal (a minus first when negative), written in
    /// place two digits at a time from a table, the way fast integer printers
    /// do: one division by 100 per pair instead of one by 10 per digit.
    mutating func appendDecimal(_ value: Int64) {
        var magnitude = value.magnitude
        let sign = value < 0 ? 1 : 0
        let length = sign + Self.decimalDigitCount(magnitude)
        let start = room(for: length)
        if sign == 1 { start.pointee = UInt8(ascii: "-") }
        var end = start + length
        Self.digitPairs.withUTF8Buffer { table in
            while magnitude >= 100 {
                let pair = Int(truncatingIfNeeded: magnitude % 100) &* 2
                magnitude /= 100
                end -= 2
                end[0] = table[pair]
                end[1] = table[pair &+ 1]
            }
            if magnitude >= 10 {
                let pair = Int(truncatingIfNeeded: magnitude) &* 2
                end -= 2
                end[0] = table[pair]
                end[1] = table[pair &+ 1]
            } else {
                end -= 1
                end[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            }
        }
        storage.count += length
    }

    /// "00", "01", … "99" back to back.
    private static let digitPairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Decimal digits of `value` (1 for 0).
    @inline(__always)
    static func decimalDigitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10_000 {
            rest /= 10_000
            count += 4
        }
        if rest >= 100 { count += rest >= 1000 ? 3 : 2 } else if rest >= 10 { count += 1 }
        return count
    }

    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// Empties the buffer, keeping its capacity.
    mutating func removeAll() {
        if !isKnownUniquelyReferenced(&storage) { storage = Storage(capacity: storage.capacity) }
        storage.count = 0
    }

    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.base, count: storage.count))
    }

    /// The bytes as an array (a copy).
    var array: [UInt8] { Array(UnsafeBufferPointer(start: storage.base, count: storage.count)) }
}
