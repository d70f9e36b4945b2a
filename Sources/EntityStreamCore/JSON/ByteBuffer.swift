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
