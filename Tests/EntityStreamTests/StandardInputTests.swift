import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamTestSupport
import Testing
import EntityStreamModel

private struct QuietTarget: ControlTarget {
    func setFilter(_ filter: StreamFilter) async -> FilterOutcome { FilterOutcome(result: .rejected, requested: filter, error: "not here") }
    func sourceStatus() async -> any SourceStatus { FixedSourceStatus(.connection(.connected)) }
}

@Suite("Standard input: one line is one command", .bounded(.io))
struct StandardInputTests {
    /// Lines come out whole however the input was cut into reads (one byte at
    /// a time, or all at once); empty lines are skipped; the last line needs no newline.
    @Test func linesAreWholeAcrossReads() throws {
        let text = Array("{\"id\":1}\n\n{\"id\":2,\"x\":\"\(String(repeating: "y", count: 3_000_000))\"}\r\nlast".utf8)
        var whole = InputLineSplitter(maximumLength: 4 << 20)
        var lines = whole.append(text)
        if let last = whole.finish() { lines.append(last) }
        var bytewise = InputLineSplitter(maximumLength: 4 << 20)
        var pieces: [StandardInputLine] = []
        var start = 0
        var generator = SplitMix64(seed: 9)
        while start < text.count {
            let end = min(text.count, start + 1 + generator.next(below: 70_000))
            pieces += bytewise.append(text[start..<end])
            start = end
        }
        if let last = bytewise.finish() { pieces.append(last) }
        #expect(lines == pieces)
        try #require(lines.count == 3)
        #expect(lines.first == .line(Array("{\"id\":1}".utf8)))
        if case .line(let second) = lines[1] { #expect(second.count == 3_000_000 + 16) } else { Issue.record("second line lost") }
        #expect(lines.last == .line(Array("last".utf8)))
    }

    /// A line over the limit is reported by its length, without being kept, and
    /// the lines around it are untouched; the limit itself is allowed.
    @Test func overlongLinesAreReportedNotSplit() {
        var splitter = InputLineSplitter(maximumLength: 10)
        let lines = splitter.append(Array("0123456789\n0123456789A\nok\n\(String(repeating: "z", count: 1_000))".utf8))
        #expect(lines == [.line(Array("0123456789".utf8)), .tooLong(byteCount: 11), .line(Array("ok".utf8))])
        #expect(splitter.finish() == .tooLong(byteCount: 1_000))
        #expect(splitter.finish() == nil)
    }

    /// An overlong line is answered like any bad command: a `response` event
    /// with `"ok":false`, saying the size and the limit.
    @Test func overlongLineGetsAnErrorResponse() async throws {
        let pipeline = StreamPipeline(purgeOptions: PurgeOptions(), clock: ManualClock())
        let subscriber = Subscriber(name: "test", filter: EventFilter(kinds: [.response]))
        await pipeline.bus.subscribe(subscriber)
        let runtime = AnalysisRuntime(environment: AnalysisEnvironment()) { [pipeline] in await pipeline.publish($0) }
        let handler = ControlCommandHandler(session: ControlSession(pipeline: pipeline, target: QuietTarget(), runtime: runtime))
        await handler.handle(.tooLong(byteCount: 20_000_000))
        await handler.handle(.line(Array(#"{"id":7,"command":"status"}"#.utf8)))
        var responses: [ControlResponse] = []
        while responses.count < 2, let batch = await subscriber.next() {
            for event in batch { if case .response(let response) = event.payload { responses.append(response) } }
        }
        try #require(responses.count == 2)
        #expect(responses[0].ok == false && responses[0].id == .null)
        #expect(responses[0].error?.contains("20000000 bytes") == true)
        #expect(responses[0].error?.contains("\(StandardInputLines.maximumLineLength)") == true)
        #expect(responses[1].ok && responses[1].id == .int(7))
        await pipeline.close()
    }

    /// Through a real pipe: a 3 MB command arrives as one line (it used to be
    /// cut at 1 MiB and answered piece by piece).
    @Test func pipeDeliversLongLinesWhole() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let ids = (0..<300_000).map { "\"T\($0)\"" }.joined(separator: ",")
        let command = Array(#"{"id":1,"command":"query-entities","trackIds":[\#(ids)]}"#.utf8)
        let writeEnd = ends[1]
        let writer = Thread {
            let data = command + [UInt8(ascii: "\n")]
            data.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(writeEnd, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { break }
                    offset += written
                }
            }
            close(writeEnd)
        }
        writer.start()
        var lines: [StandardInputLine] = []
        for await line in StandardInputLines.stream(fileDescriptor: ends[0]) { lines.append(line) }
        close(ends[0])
        #expect(lines == [.line(command)])
        let parsed = try ControlCommandRegistry.standard.parse(line: command)
        #expect((parsed as? QueryEntitiesCommand)?.trackIDs?.count == 300_000)
    }
}
