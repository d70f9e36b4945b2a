import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamLocking
import Testing
import EntityStreamModel

/// The analysis lines of `events` as (job, phase) pairs.
private func phases(_ events: [StreamEvent]) -> [String] {
    events.compactMap { event in
        guard case .analysis(let analysis) = event.payload else { return nil }
        return "\(analysis.job.stringValue ?? "\(analysis.job)") \(analysis.phase.rawValue)"
    }
}

/// A job that emits `count` records, then completes.
private struct CountingJob: AnalysisJob {
    let count: Int
    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        for index in 0..<count {
            await context.emit(results: [.statistics(StatisticsRecord(group: [], statistics: [NamedValue(name: "n", value: .int(Int64(index)))]))])
        }
        return AnalysisSummary(TestReport(JSONObject([("count", .int(Int64(count)))])))
    }
}

/// A job that reports it started, then waits until it is cancelled (or released).
private struct WaitingJob: AnalysisJob {
    let started: AsyncStreamBox<Void>
    let release: AsyncStreamBox<Void>
    func run(in context: AnalysisContext) async throws -> AnalysisSummary {
        started.yield(())
        _ = await release.next()
        try Task.checkCancellation()
        return AnalysisSummary(TestReport())
    }
}

private struct FailingJob: AnalysisJob {
    func run(in context: AnalysisContext) async throws -> AnalysisSummary { throw AnalysisFailure("unknown field 'x'") }
}

private func makeRuntime(_ published: PublishedEvents, status: StreamStatus? = .connection(.connected),
                         limits: AnalysisRuntime.Limits = .standard) -> AnalysisRuntime {
    var streamStatus: (@Sendable () async -> StreamStatus)?
    if let status { streamStatus = { @Sendable in status } }
    let environment = AnalysisEnvironment(streamStatus: streamStatus, clock: ManualClock())
    return AnalysisRuntime(environment: environment, limits: limits) { published.append($0) }
}

@Suite("Analysis runtime", .bounded(.io))
struct AnalysisRuntimeTests {
    /// A job publishes accepted (with the stream's status), its results in order, then one summary with the stream's status.
    @Test func jobReportsInOrder() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published)
        let running = Task { await runtime.run() }
        try await runtime.start(CountingJob(count: 3), id: .int(1), command: "count")
        let events = await published.wait(for: 5)
        #expect(phases(events) == ["1 accepted", "1 result", "1 result", "1 result", "1 summary"])
        guard case .analysis(let accepted) = events[0].payload, case .analysis(let summary) = events[4].payload else { return }
        #expect(accepted.members["stream"]?["status"] == .string("connected"))
        #expect(summary.members["count"] == .int(3))
        #expect(summary.members["stream"]?["status"] == .string("connected"))
        await runtime.close()
        await running.value
    }

    /// Under load: `running` jobs run, `queued` more wait (accepted, nothing computed), the next is refused with a
    /// clear error; waiting jobs start in order as slots free, can be cancelled while waiting, and each ends once.
    @Test func boundedRunningAndQueued() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published, limits: AnalysisRuntime.Limits(running: 1, queued: 2))
        let running = Task { await runtime.run() }
        let started = [AsyncStreamBox<Void>(), AsyncStreamBox<Void>(), AsyncStreamBox<Void>()]
        let release = [AsyncStreamBox<Void>(), AsyncStreamBox<Void>(), AsyncStreamBox<Void>()]
        for index in 0..<3 {
            try await runtime.start(WaitingJob(started: started[index], release: release[index]), id: .int(Int64(index)), command: "wait")
        }
        _ = await started[0].next()
        await #expect(throws: AnalysisRuntime.StartError.busy(running: 1, queued: 2)) {
            try await runtime.start(CountingJob(count: 1), id: .int(9), command: "count")
        }
        #expect("\(AnalysisRuntime.StartError.busy(running: 1, queued: 2))".contains("too many analyses"))
        // Job 2 is cancelled while it waits; job 1 starts only when job 0 ends.
        #expect(await runtime.cancel(.int(2)) == .cancelling)
        release[0].yield(())
        _ = await started[1].next()
        release[1].yield(())
        let events = await published.wait(for: 6)
        let lines = phases(events)
        #expect(Array(lines.prefix(3)) == ["0 accepted", "1 accepted", "2 accepted"])
        #expect(lines.filter { $0.hasPrefix("0 ") }.last == "0 summary" && lines.filter { $0.hasPrefix("1 ") }.last == "1 summary")
        #expect(lines.filter { $0.hasPrefix("2 ") } == ["2 accepted", "2 cancelled"])
        #expect(lines.firstIndex(of: "0 summary")! < lines.firstIndex(of: "1 summary")!)
        // A slot is free again: a new job runs.
        try await runtime.start(CountingJob(count: 1), id: .int(9), command: "count")
        #expect(phases(await published.wait(for: 9)).suffix(3) == ["9 accepted", "9 result", "9 summary"])
        await runtime.close()
        await running.value
    }

    /// Jobs still waiting when the runtime is cancelled end with one cancelled line each.
    @Test func queuedJobsCancelledWithTheRuntime() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published, limits: AnalysisRuntime.Limits(running: 1, queued: 3))
        let running = Task { await runtime.run() }
        let started = AsyncStreamBox<Void>(), release = AsyncStreamBox<Void>()
        try await runtime.start(WaitingJob(started: started, release: release), id: .int(0), command: "wait")
        _ = await started.next()
        for index in 1...3 { try await runtime.start(CountingJob(count: 1), id: .int(Int64(index)), command: "count") }
        running.cancel()
        await running.value
        let lines = phases(published.all)
        for index in 0...3 { #expect(lines.filter { $0.hasPrefix("\(index) ") } == ["\(index) accepted", "\(index) cancelled"], "\(lines)") }
    }

    /// Cancel stops a running job, which ends with one cancelled line; cancelling again or an unknown job says so.
    @Test func cancelStopsAJob() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published)
        let running = Task { await runtime.run() }
        let started = AsyncStreamBox<Void>(), release = AsyncStreamBox<Void>()
        try await runtime.start(WaitingJob(started: started, release: release), id: .string("w"), command: "wait")
        _ = await started.next()
        #expect(await runtime.cancel(.string("w")) == .cancelling)
        #expect(await runtime.cancel(.string("w")) == .alreadyCancelling || phases(published.all).contains("w cancelled"))
        let events = await published.wait(for: 2)
        #expect(phases(events) == ["w accepted", "w cancelled"])
        #expect(await runtime.cancel(.string("w")) == .notRunning)
        #expect(await runtime.cancel(.int(99)) == .notRunning)
        await runtime.close()
        await running.value
    }

    /// An id that names a running job is refused; after the job ends it may be used again.
    @Test func idsAreUniqueWhileRunning() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published)
        let running = Task { await runtime.run() }
        let started = AsyncStreamBox<Void>(), release = AsyncStreamBox<Void>()
        try await runtime.start(WaitingJob(started: started, release: release), id: .int(5), command: "wait")
        await #expect(throws: AnalysisRuntime.StartError.jobRunning(.int(5))) {
            try await runtime.start(CountingJob(count: 1), id: .int(5), command: "count")
        }
        _ = await started.next()
        release.yield(())
        _ = await published.wait(for: 2)
        try await runtime.start(CountingJob(count: 1), id: .int(5), command: "count")
        #expect(phases(await published.wait(for: 5)) == ["5 accepted", "5 summary", "5 accepted", "5 result", "5 summary"])
        await runtime.close()
        await running.value
    }

    /// A failing job ends with its reason; other jobs running beside it are not disturbed.
    @Test func failuresAreReportedAndIsolated() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published, status: nil)
        let running = Task { await runtime.run() }
        try await runtime.start(FailingJob(), id: .int(1), command: "fail")
        try await runtime.start(CountingJob(count: 50), id: .int(2), command: "count")
        let events = await published.wait(for: 2 + 52)
        let failed = events.compactMap { event -> AnalysisEvent? in
            guard case .analysis(let analysis) = event.payload, analysis.phase == .failed else { return nil }
            return analysis
        }
        #expect(failed.map(\.job) == [.int(1)])
        #expect(failed.first?.members["error"] == .string("unknown field 'x'"))
        let second = phases(events).filter { $0.hasPrefix("2 ") }
        #expect(second.first == "2 accepted" && second.last == "2 summary" && second.count == 52)
        #expect(failed.first?.members["stream"] == nil, "no stream, no stream member")
        await runtime.close()
        await running.value
    }

    /// Cancelling the runtime's task cancels every running job; after close no job starts.
    @Test func endingTheRuntimeCancelsJobs() async throws {
        let published = PublishedEvents()
        let runtime = makeRuntime(published)
        let running = Task { await runtime.run() }
        let boxes = (0..<3).map { _ in (AsyncStreamBox<Void>(), AsyncStreamBox<Void>()) }
        for (index, box) in boxes.enumerated() {
            try await runtime.start(WaitingJob(started: box.0, release: box.1), id: .int(Int64(index)), command: "wait")
        }
        for box in boxes { _ = await box.0.next() }
        await runtime.close()
        await #expect(throws: AnalysisRuntime.StartError.closed) { try await runtime.start(CountingJob(count: 1), id: .int(9), command: "count") }
        running.cancel()
        await running.value
        #expect(phases(published.all).filter { $0.hasSuffix("cancelled") }.count == 3)
        #expect(await runtime.runningJobs.isEmpty)
    }
}
