#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a file in chunks (``FileChunkReader``) on one thread, processes
/// the chunks on `workers` threads at once, and hands the results to one
/// consumer **in file order** through ``next()``: how the file analyses use
/// every core on files of any size.
///
/// Bounded: at most `inFlight` chunks are read and not yet consumed, so
/// memory is about `inFlight` × (chunk size + what a chunk's result holds),
/// whatever the file's size; the reader waits for the consumer. A result
/// (or the error of reading or processing a chunk) reaches the consumer
/// only after every earlier chunk's, so the first error in file order is the
/// one seen, and nothing after it.
///
/// Each chunk's processing may ask its ``Context`` for the number of records
/// in all earlier chunks (``Context/recordBase(records:)``, after reporting
/// its own count), which waits only for the earlier chunks' counts, never
/// for their processing to finish; and may poll ``Context/isStopped``.
///
/// Stopping: ``stop()`` (or cancelling the task waiting in ``next()``)
/// ends the reader and the workers at their next check (between reads and
/// chunks, or when a chunk's processing polls); ``next()`` then throws
/// `CancellationError`. The threads are created by the calling thread and
/// so share its scheduling priority (an analysis of a live session stays
/// in the background, a one-shot command's runs at normal priority).
/// Thread-safe; one consumer.
public final class ChunkScan<Partial: Sendable>: @unchecked Sendable {
    /// What a chunk's processing can ask of the scan.
    public struct Context: Sendable {
        let scan: ChunkScan<Partial>
        let index: Int

        /// Reports this chunk's record count and returns the number of
        /// records in all earlier chunks (waiting until they are known);
        /// nil when the scan was stopped meanwhile.
        public func recordBase(records: Int) -> Int? { scan.recordBase(index: index, records: records) }

        /// True once the scan has been stopped: a long chunk may end early (its result is discarded).
        public var isStopped: Bool { scan.isStopped }
    }

    public typealias Process = @Sendable (FileChunk, Context) throws -> Partial

    /// One chunk's result with where the chunk lay.
    public struct Delivery: Sendable {
        public let index: Int
        public let offset: Int
        public let byteCount: Int
        public let isLast: Bool
        public let partial: Partial
    }

    private enum Step { case deliver(Result<Delivery, any Error>), finished, stopped, wait }

    private struct State {
        var queue: [FileChunk] = []
        var queueHead = 0
        var results: [Int: Result<Delivery, any Error>] = [:]
        var nextToDeliver = 0
        var inFlight = 0
        /// Chunks read so far (also the index of the next one).
        var chunksRead = 0
        var readerDone = false
        var stopped = false
        var consumer: CheckedContinuation<Void, Never>?
        var recordCounts: [Int: Int] = [:]
        var recordBases: [Int: Int] = [:]
        var folded = 0
        var recordsFolded = 0
        var bytesRead = 0
        var liveThreads = 0
    }

    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var state = State()
    private let process: Process
    private let maximumInFlight: Int

    /// Starts reading `reader` at once; `workers` threads (at least 1) process chunks with `process`.
    public init(reader: FileChunkReader, workers: Int, inFlight: Int? = nil, process: @escaping Process) {
        mutex.initialize(to: pthread_mutex_t())
        condition.initialize(to: pthread_cond_t())
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
        self.process = process
        let workers = max(1, workers)
        maximumInFlight = max(workers + 1, inFlight ?? 2 * workers + 2)
        state.liveThreads = workers + 1
        let box = ReaderBox(reader)
        DetachedThread.start { [self] in readLoop(box.reader) }
        for _ in 0..<workers { DetachedThread.start { [self] in workLoop() } }
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The next chunk's result in file order, nil after the last one.
    /// Throws the first error (reading or processing) in file order, or
    /// `CancellationError` once stopped.
    public func next() async throws -> Delivery? {
        while true {
            let step: Step = locked { state in
                if state.stopped { return .stopped }
                if let result = state.results.removeValue(forKey: state.nextToDeliver) {
                    state.nextToDeliver += 1
                    state.inFlight -= 1
                    return .deliver(result)
                }
                if state.readerDone && state.nextToDeliver >= state.chunksRead { return .finished }
                return .wait
            }
            switch step {
            case .deliver(let result):
                pthread_cond_broadcast(condition)
                switch result {
                case .success(let delivery): return delivery
                case .failure(let error):
                    stop()
                    throw error
                }
            case .finished:
                return nil
            case .stopped:
                throw CancellationError()
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let resumeNow = locked { state -> Bool in
                            if state.stopped || state.results[state.nextToDeliver] != nil
                                || (state.readerDone && state.nextToDeliver >= state.chunksRead) { return true }
                            state.consumer = continuation
                            return false
                        }
                        if resumeNow { continuation.resume() }
                    }
                } onCancel: {
                    self.stop()
                }
                if Task.isCancelled { stop() }
            }
        }
    }

    /// Stops reading and processing; the consumer's ``next()`` throws `CancellationError`.
    public func stop() {
        let waiting = locked { state -> CheckedContinuation<Void, Never>? in
            state.stopped = true
            defer { state.consumer = nil }
            return state.consumer
        }
        pthread_cond_broadcast(condition)
        waiting?.resume()
    }

    /// True once ``stop()`` was called (or an error ended the scan).
    public var isStopped: Bool { locked { $0.stopped } }

    /// Bytes read from the file so far.
    public var bytesRead: Int { locked { $0.bytesRead } }

    // MARK: Threads

    private func readLoop(_ reader: FileChunkReader) {
        defer { threadEnded() }
        while true {
            pthread_mutex_lock(mutex)
            waitUntil { $0.inFlight < maximumInFlight || $0.stopped }
            let go = !state.stopped
            pthread_mutex_unlock(mutex)
            guard go else { return }
            let chunk: FileChunk?
            do {
                chunk = try reader.next()
            } catch {
                locked { state in
                    state.results[state.chunksRead] = .failure(error)
                    state.chunksRead += 1
                    state.inFlight += 1
                    state.readerDone = true
                }
                wakeConsumer()
                return
            }
            guard let chunk else {
                locked { $0.readerDone = true }
                wakeConsumer()
                return
            }
            locked { state in
                state.queue.append(chunk)
                state.chunksRead += 1
                state.inFlight += 1
                state.bytesRead += chunk.bytes.count
                if chunk.isLast { state.readerDone = true }
            }
            pthread_cond_broadcast(condition)
            if chunk.isLast {
                wakeConsumer()
                return
            }
        }
    }

    private func workLoop() {
        defer { threadEnded() }
        while true {
            pthread_mutex_lock(mutex)
            waitUntil { $0.queueHead < $0.queue.count || $0.readerDone || $0.stopped }
            pthread_mutex_unlock(mutex)
            let taken = locked { state -> FileChunk? in
                guard !state.stopped, state.queueHead < state.queue.count else { return nil }
                let chunk = state.queue[state.queueHead]
                state.queue[state.queueHead] = FileChunk(index: -1, offset: 0, bytes: [], isLast: false)
                state.queueHead += 1
                if state.queueHead == state.queue.count {
                    state.queue.removeAll(keepingCapacity: true)
                    state.queueHead = 0
                }
                return chunk
            }
            guard let chunk = taken else { return }
            let context = Context(scan: self, index: chunk.index)
            let result: Result<Delivery, any Error>
            do {
                let partial = try process(chunk, context)
                result = .success(Delivery(index: chunk.index, offset: chunk.offset, byteCount: chunk.bytes.count, isLast: chunk.isLast, partial: partial))
            } catch {
                result = .failure(error)
            }
            locked { state in state.results[chunk.index] = result }
            wakeConsumer()
        }
    }

    private func threadEnded() {
        locked { $0.liveThreads -= 1 }
        pthread_cond_broadcast(condition)
    }

    private func wakeConsumer() {
        let waiting = locked { state -> CheckedContinuation<Void, Never>? in
            defer { state.consumer = nil }
            return state.consumer
        }
        waiting?.resume()
    }

    private func recordBase(index: Int, records: Int) -> Int? {
        locked { state in
            state.recordCounts[index] = records
            while let count = state.recordCounts.removeValue(forKey: state.folded) {
                state.recordBases[state.folded] = state.recordsFolded
                state.recordsFolded += count
                state.folded += 1
            }
        }
        pthread_cond_broadcast(condition)
        pthread_mutex_lock(mutex)
        waitUntil { $0.folded > index || $0.stopped }
        pthread_mutex_unlock(mutex)
        return locked { $0.recordBases.removeValue(forKey: index) }
    }

    /// Waits on the condition, the mutex held, until `done` holds. The state
    /// is read afresh from the object after every wake-up: never wait
    /// inside ``locked(_:)``, whose `inout` state the optimizer may keep in
    /// registers across the wait (a release build then waits forever).
    private func waitUntil(_ done: (State) -> Bool) {
        while !done(state) { pthread_cond_wait(condition, mutex) }
    }

    @inline(__always)
    private func locked<R>(_ body: (inout State) -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&state)
    }

    /// Holds the reader for the thread that owns it.
    private final class ReaderBox: @unchecked Sendable {
        let reader: FileChunkReader
        init(_ reader: FileChunkReader) { self.reader = reader }
    }

}
