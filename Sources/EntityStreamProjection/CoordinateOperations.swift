import Dispatch
import EntityStreamLocking

/// The process's ``CoordinateOperation``s, made once per pair of spatial
/// references and reused: a caller borrows one (made on first need, later
/// taken from the pool), transforms with it on its own thread, and gives it
/// back. Several threads transforming between the same pair each get their
/// own. A pair PROJ cannot transform between is remembered with its error,
/// so asking again fails at once.
///
/// Batches go to PROJ in one call per batch; a batch of at least
/// ``parallelThreshold`` points is split across the machine's cores, each
/// part with its own operation. Thread-safe.
public enum CoordinateOperations {
    /// Idle operations kept per pair.
    static let idlePerPair = 8
    /// Pairs remembered (beyond it the pool starts over).
    static let maximumPairs = 512
    /// Points from which a batch is split across cores.
    public static let parallelThreshold = 8192

    private struct Pair: Hashable {
        var source: Int
        var target: Int
    }

    private enum Entry {
        case idle([CoordinateOperation])
        case failed(ProjectionError)
    }

    private static let pool = LockedState<[Pair: Entry]>([:])

    /// An operation from `source` to `target`, for this thread's use until
    /// ``giveBack(_:)``.
    /// - Throws: ``ProjectionError`` naming the reference or pair PROJ cannot use.
    public static func borrow(from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) -> CoordinateOperation {
        let pair = Pair(source: source.code, target: target.code)
        let taken: Result<CoordinateOperation, ProjectionError>? = pool.withLock { pool in
            switch pool[pair] {
            case .failed(let error)?: return .failure(error)
            case .idle(var operations)? where !operations.isEmpty:
                let operation = operations.removeLast()
                pool[pair] = .idle(operations)
                return .success(operation)
            default: return nil
            }
        }
        if let taken { return try taken.get() }
        do {
            return try CoordinateOperation(from: source, to: target)
        } catch {
            pool.withLock { pool in
                if pool.count >= maximumPairs { pool.removeAll() }
                pool[pair] = .failed(error)
            }
            throw error
        }
    }

    /// Returns a borrowed operation to the pool.
    public static func giveBack(_ operation: CoordinateOperation) {
        let pair = Pair(source: operation.source.code, target: operation.target.code)
        pool.withLock { pool in
            if pool.count >= maximumPairs, pool[pair] == nil { pool.removeAll() }
            guard case .idle(var operations)? = pool[pair] else {
                if pool[pair] == nil { pool[pair] = .idle([operation]) }
                return
            }
            if operations.count < idlePerPair { operations.append(operation) }
            pool[pair] = .idle(operations)
        }
    }

    /// Throws when there is no transformation from `source` to `target`
    /// (either unknown to PROJ, or no operation between them).
    public static func check(from source: SpatialReference, to target: SpatialReference) throws(ProjectionError) {
        giveBack(try borrow(from: source, to: target))
    }

    /// One point from `source` to `target`.
    /// - Throws: ``ProjectionError`` for an unknown reference, a missing
    ///   transformation, or a point outside the projection's domain.
    public static func transform(x: Double, y: Double, from source: SpatialReference, to target: SpatialReference)
        throws(ProjectionError) -> (x: Double, y: Double) {
        if source == target { return (x, y) }
        let operation = try borrow(from: source, to: target)
        defer { giveBack(operation) }
        return try operation.forward(x: x, y: y)
    }

    /// Transforms the points in place (see
    /// ``CoordinateOperation/transform(x:xStride:y:yStride:count:_:)``),
    /// from `source` to `target` or, `.inverse`, from `target` to `source`
    /// (the same operation run backwards), in parts on every core when there
    /// are many; returns how many points could not be transformed (now NaN).
    /// - Throws: ``ProjectionError`` for an unknown reference or a missing transformation.
    @discardableResult
    public static func transform(x: UnsafeMutablePointer<Double>, xStride: Int, y: UnsafeMutablePointer<Double>, yStride: Int, count: Int,
                                 from source: SpatialReference, to target: SpatialReference,
                                 _ direction: CoordinateOperation.Direction = .forward) throws(ProjectionError) -> Int {
        if source == target || count <= 0 {
            if source == target { try source.validate() }
            return 0
        }
        if partCount(of: count) == 1 {
            let operation = try borrow(from: source, to: target)
            defer { giveBack(operation) }
            return operation.transform(x: x, xStride: xStride, y: y, yStride: yStride, count: count, direction)
        }
        let failures = LockedState(0)
        let xBase = UncheckedPointer(value: x), yBase = UncheckedPointer(value: y)
        try forEachPart(of: count, from: source, to: target) { operation, range in
            let px = UnsafeMutableRawPointer(xBase.value).advanced(by: range.lowerBound * xStride).assumingMemoryBound(to: Double.self)
            let py = UnsafeMutableRawPointer(yBase.value).advanced(by: range.lowerBound * yStride).assumingMemoryBound(to: Double.self)
            let failed = operation.transform(x: px, xStride: xStride, y: py, yStride: yStride, count: range.count, direction)
            if failed > 0 { failures.withLock { $0 += failed } }
        }
        return failures.withLock { $0 }
    }

    /// How many parts `count` items of `pointsEach` points are split into:
    /// one below ``parallelThreshold`` points, else one per core (each part at
    /// least half the threshold).
    public static func partCount(of count: Int, pointsEach: Int = 1) -> Int {
        let points = count * max(1, pointsEach)
        guard count > 1, points >= parallelThreshold else { return 1 }
        return max(1, min(ProcessorCount.value, count, points / (parallelThreshold / 2)))
    }

    /// Runs `body` on consecutive parts of `0..<count` that together cover it
    /// once, in order (``partCount(of:pointsEach:)`` parts, `pointsEach` being
    /// the points each item sends to PROJ), each part on its own thread with
    /// its own operation from `source` to `target` (a PROJ context serves one
    /// thread at a time), and returns once every part has ended. One part
    /// runs on the calling thread. What `body` writes must be the part's own
    /// (its range of a buffer): the parts run at the same time.
    /// - Throws: ``ProjectionError`` for an unknown reference or a missing
    ///   transformation (before any part runs).
    public static func forEachPart(of count: Int, pointsEach: Int = 1, from source: SpatialReference, to target: SpatialReference,
                                   _ body: @Sendable (CoordinateOperation, Range<Int>) -> Void) throws(ProjectionError) {
        guard count > 0 else { return }
        let first = try borrow(from: source, to: target)
        defer { giveBack(first) }
        let parts = partCount(of: count, pointsEach: pointsEach)
        guard parts > 1 else { return body(first, 0..<count) }
        var operations = [first]
        for _ in 1..<parts {
            guard let another = try? borrow(from: source, to: target) else { break }
            operations.append(another)
        }
        defer { for operation in operations.dropFirst() { giveBack(operation) } }
        let shared = UncheckedOperations(value: operations)
        let pieces = operations.count
        DispatchQueue.concurrentPerform(iterations: pieces) { part in
            body(shared.value[part], (count * part / pieces)..<(count * (part + 1) / pieces))
        }
    }

    /// Transforms two arrays of equal length in place (`direction` as above);
    /// returns how many points could not be transformed (now NaN).
    @discardableResult
    public static func transform(x: inout [Double], y: inout [Double], from source: SpatialReference, to target: SpatialReference,
                                 _ direction: CoordinateOperation.Direction = .forward) throws(ProjectionError) -> Int {
        let count = min(x.count, y.count)
        let result: Result<Int, ProjectionError> = x.withUnsafeMutableBufferPointer { xs in
            y.withUnsafeMutableBufferPointer { ys in
                guard let xBase = xs.baseAddress, let yBase = ys.baseAddress else { return .success(0) }
                return Result { () throws(ProjectionError) in
                    try transform(x: xBase, xStride: 8, y: yBase, yStride: 8, count: count, from: source, to: target, direction)
                }
            }
        }
        return try result.get()
    }

    /// Drops every pooled operation and remembered failure (tests).
    public static func reset() {
        pool.withLock { $0.removeAll() }
    }
}

/// A pointer handed to the parts of one batch, each touching its own range.
private struct UncheckedPointer: @unchecked Sendable {
    let value: UnsafeMutablePointer<Double>
}

/// The operations of one batch, one per part.
private struct UncheckedOperations: @unchecked Sendable {
    let value: [CoordinateOperation]
}

/// The cores this process may use.
enum ProcessorCount {
    static let value: Int = {
        #if canImport(Glibc)
        return max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        #else
        return 1
        #endif
    }()
}

#if canImport(Glibc)
import Glibc
#endif
