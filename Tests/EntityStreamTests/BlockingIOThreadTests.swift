import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamTestSupport
import Testing

@Suite("Blocking I/O thread", .bounded)
struct BlockingIOThreadTests {
    /// Jobs run on the named thread, one at a time, in the order they were started.
    @Test func runsJobsInOrderOnItsThread() async {
        let thread = BlockingIOThread(name: "es-test-io-thread")
        let pending = (0..<50).map { index in thread.start { (index, ThreadName.current) } }
        var results: [Int] = []
        for job in pending {
            let (index, name) = await job.value
            #expect(name == "es-test-io-thre", "the system keeps 15 bytes of the name")
            results.append(index)
        }
        #expect(results == Array(0..<50))
        thread.shutdown()
        #expect(await thread.run { 7 } == 7, "after shutdown a job still runs")
    }

    /// Writers blocked on full pipes (nobody reading) block their own threads, not Swift's
    /// cooperative pool: with three of them stuck — more than the pool has threads on this
    /// machine — other tasks still run, and once the pipes are read everything arrives.
    @Test func blockedWritesLeaveThePoolFree() async throws {
        signal(SIGPIPE, SIG_IGN)
        var pipes: [(read: Int32, write: Int32)] = []
        var writers: [Task<JSONLinesWriter.Ending, Never>] = []
        var subscribers: [Subscriber] = []
        let events = (0..<2_000).map { StreamEvent(time: Int64($0), payload: .error(StreamErrorReport(source: .message, message: String(repeating: "x", count: 200), count: $0))) }
        for _ in 0..<3 {
            var ends: [Int32] = [0, 0]
            #expect(pipe(&ends) == 0)
            pipes.append((ends[0], ends[1]))
            let subscriber = Subscriber(name: "stdout")
            subscribers.append(subscriber)
            await subscriber.deliver(events)
            subscriber.finish()
            let writer = JSONLinesWriter(subscriber: subscriber, schema: SchemaBox(), format: .esri, fileDescriptor: ends[1])
            writers.append(Task { await writer.run() })
        }
        // The pool is free: a burst of small tasks completes while all three writers are stuck.
        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 0..<100 { group.addTask(executorPreference: globalConcurrentExecutor) { await Task.yield(); return value } }
            return await group.reduce(0, +)
        }
        #expect(sum == 4_950)
        var lineCounts: [Int] = []
        for (index, ends) in pipes.enumerated() {
            let reader = FileHandle(fileDescriptor: ends.read, closeOnDealloc: true)
            let received = Task.detached { reader.readDataToEndOfFile() }
            #expect(await writers[index].value == .finished)
            close(ends.write)
            lineCounts.append((await received.value).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
        }
        #expect(lineCounts == [2_000, 2_000, 2_000])
    }
}
