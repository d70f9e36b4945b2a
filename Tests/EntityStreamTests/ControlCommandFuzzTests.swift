import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import Testing
import EntityStreamModel

/// Mutated control commands through the real command handling: every line
/// gets exactly one answer (a response, ok or with an error naming the
/// problem, or one analysis job's lines ending in a final phase), never a trap.
@Suite("Control command fuzzing", .bounded(.compute, limit: FuzzRounds.timeLimit))
struct ControlCommandFuzzTests {
    static let schema = Schema(fields: [Field(name: "id", type: .string), Field(name: "t", type: .date), Field(name: "speed", type: .double),
                                        Field(name: "vehicletype", type: .string)],
                               trackIDField: "id", startTimeField: "t")

    /// Valid commands of every kind a session without remote services can run (`ID` is replaced by the line's id).
    static let templates: [String] = [
        #"{"id":"ID","command":"status"}"#,
        #"{"id":"ID","command":"purge-all"}"#,
        #"{"id":"ID","command":"cancel","job":"f1"}"#,
        #"{"id":"ID","command":"set-filter","filter":{"where":"speed > 1","outFields":["speed"]}}"#,
        #"{"id":"ID","command":"query-entities","where":"speed > 5","geometry":{"xmin":-112,"ymin":40,"xmax":-111,"ymax":41},"trackIds":["T1",7],"observations":-1}"#,
        #"{"id":"ID","command":"query-entities","geometry":"-112,40,-111,41,4326"}"#,
        #"{"id":"ID","command":"query-observations","timeExtent":{"start":"2026-11-23T08:00:00Z","end":null},"where":"vehicletype = 'PLOW'","limit":10,"orderBy":"t DESC","outFields":["speed","id"]}"#,
        #"{"id":"ID","command":"query-observations","timeExtent":["2026-11-23T08:00:00Z",1795424400000],"returnCountOnly":true,"trackIds":["T2"]}"#,
        #"{"id":"ID","command":"statistics","of":"observations","statistics":[{"type":"avg","field":"speed"},{"type":"count","field":"id","alias":"n"}],"groupBy":["vehicletype"],"orderBy":["n DESC"],"having":"COUNT(id) > 1","where":"speed >= 0"}"#,
        #"{"id":"ID","command":"statistics","statistics":["max:speed","count:*:all"],"geometry":"-112,40.5,-111.8,40.7"}"#,
        #"{"id":"ID","command":"hotspots","cellSize":500,"fdr":true,"force":true,"aggregation":"fishnet","where":"speed > 0"}"#,
        #"{"id":"ID","command":"hotspots","valueField":"speed","distanceBand":1000,"force":true,"timeExtent":{"start":null,"end":null}}"#,
        #"{"id":"ID","command":"hotspots","aggregation":"collect","force":true}"#,
        #"{"id":"ID","command":"identify","raster":"dem","points":[{"x":-111.9,"y":40.6},{"x":425000,"y":4496000,"sr":32612}],"sr":4326}"#,
    ]

    /// Member names, values and command names the mutations splice in (no remote `layer` or `task`: no network here).
    static let dictionary: [String] = [
        #""where""#, #""geometry""#, #""trackIds""#, #""timeExtent""#, #""limit""#, #""statistics""#, #""groupBy""#, #""orderBy""#,
        #""having""#, #""of""#, #""points""#, #""cellSize""#, #""distanceBand""#, #""valueField""#, #""aggregation""#, #""job""#,
        #""filter""#, #""outFields""#, #""returnCountOnly""#, #""timeField""#, #""observations""#, #""id""#, #""command""#,
        #""status""#, #""purge-all""#, #""query-entities""#, #""query-observations""#, #""hotspots""#, #""identify""#, #""cancel""#,
        #""speed > 1 AND""#, #""speed""#, #""received""#, #""sum:speed""#, #"{"type":"stddev","field":"vehicletype"}"#,
        #"{"start":"2026-11-23","end":"2026-11-22"}"#, #""-1e308,-1e308,1e308,1e308""#, #"{"xmin":1e308,"ymin":-1e308,"xmax":0,"ymax":0}"#,
    ]

    /// A store of a few vehicles: enough for every analysis to find rows.
    static func harness() async -> AnalysisHarness {
        let harness = await AnalysisHarness(schema: schema)
        await fill(harness)
        return harness
    }

    /// Adds the vehicles' observations (again after a `purge-all`).
    static func fill(_ harness: AnalysisHarness) async {
        let start: Int64 = 1_795_420_800_000
        var observations: [Observation] = []
        for index in 0..<60 {
            let time = start + Int64(index) * 60_000
            let point = Point(x: -111.9 + Double(index % 7) * 0.01, y: 40.6 + Double(index % 5) * 0.01, wkid: 4326)
            let attributes: [AttributeValue] = [.string("T\(index % 6)"), .date(milliseconds: time), .double(Double(index % 9)),
                                                .string(index % 2 == 0 ? "PLOW" : "TRUCK")]
            observations.append(Observation(geometry: point, attributes: attributes, receivedAt: time))
        }
        await harness.ingest(observations)
    }

    /// Sends `line` and returns its answer events and any other events seen after the answer (up to a marker).
    static func answer(_ harness: AnalysisHarness, _ line: [UInt8]) async -> (answer: [StreamEvent], after: [StreamEvent]) {
        await harness.handler.handle(line: line)
        var answer: [StreamEvent] = []
        var after: [StreamEvent] = []
        var answered = false
        var marked = false
        let marker = ControlResponse(id: .string("fuzz-marker"), command: "marker", ok: true)
        while !marked, let batch = await harness.subscriber.next() {
            for event in batch {
                if case .response(let response) = event.payload, response.id == marker.id { marked = true; break }
                if answered { after.append(event); continue }
                answer.append(event)
                switch event.payload {
                case .response: answered = true
                case .analysis(let analysis) where analysis.phase.isFinal: answered = true
                default: break
                }
                if answered { await harness.pipeline.publish(StreamEvent(time: 0, payload: .response(marker))) }
            }
        }
        return (answer, after)
    }

    /// Checks that `events` are exactly one answer to one line: one response, or one job's lines from accepted to a final phase.
    static func checkOneAnswer(_ events: [StreamEvent], after: [StreamEvent], line: [UInt8], seed: UInt64) {
        let context = "\(FuzzRounds.label(seed)) line \(String(decoding: line, as: UTF8.self))"
        #expect(after.isEmpty, "events after the answer: \(after.map(\.kind)) — \(context)")
        let responses = events.compactMap { event -> ControlResponse? in
            if case .response(let response) = event.payload { return response }
            return nil
        }
        let analyses = AnalysisHarness.analyses(events)
        #expect(responses.count + analyses.count == events.count, "unexpected event kinds — \(context)")
        if let response = responses.first {
            #expect(responses.count == 1 && analyses.isEmpty, "a response and more — \(context)")
            let message = response.error ?? ""
            if !response.ok { #expect(!message.isEmpty, "an error response without a message — \(context)") }
            return
        }
        guard let first = analyses.first, let last = analyses.last else {
            Issue.record("no answer — \(context)")
            return
        }
        #expect(first.phase == .accepted, "the job did not start with accepted — \(context)")
        #expect(last.phase.isFinal && analyses.dropLast().allSatisfy { !$0.phase.isFinal }, "not exactly one final phase — \(context)")
        #expect(analyses.allSatisfy { $0.job == first.job && $0.command == first.command }, "lines of several jobs — \(context)")
        let reason = last.members["error"]?.stringValue ?? ""
        if last.phase == .failed { #expect(!reason.isEmpty, "a failed job without a reason — \(context)") }
    }

    /// Every mutated command line (1–4 byte-level mutations of a valid command) gets exactly one answer, never a trap.
    @Test func mutatedCommandsGetOneAnswerEach() async {
        await FuzzRounds.run("control commands", fixed: [0xC0_11, 0xC0_12, 0xC0_13]) { seed in
            let harness = await Self.harness()
            var mutator = ByteMutator(seed: seed, dictionary: Self.dictionary, allowNewlines: false)
            for index in 0..<200 {
                let template = mutator.pick(Self.templates).replacingOccurrences(of: "ID", with: "f\(index)")
                let line = mutator.mutate(Array(template.utf8), count: mutator.int(1...4))
                let (events, after) = await Self.answer(harness, line)
                Self.checkOneAnswer(events, after: after, line: line, seed: seed)
                if index % 20 == 19 { await Self.fill(harness) }
            }
            await harness.close()
        }
    }

    /// The unmutated templates are each answered once too (the analyses among them with a summary): the generator starts from valid input.
    @Test func templatesAreAnsweredOnce() async {
        let harness = await Self.harness()
        var finals: [AnalysisPhase] = []
        // purge-all last: the analyses before it find the vehicles.
        let templates = Self.templates.filter { !$0.contains("purge-all") } + Self.templates.filter { $0.contains("purge-all") }
        for (index, template) in templates.enumerated() {
            let line = Array(template.replacingOccurrences(of: "ID", with: "v\(index)").utf8)
            let (events, after) = await Self.answer(harness, line)
            Self.checkOneAnswer(events, after: after, line: line, seed: 0)
            if let last = AnalysisHarness.analyses(events).last { finals.append(last.phase) }
            if let response = AnalysisHarness.response(events), template.contains("query-entities") || template.contains("status") {
                #expect(response.ok, "\(template): \(response.error ?? "")")
            }
        }
        #expect(finals.count == 7 && finals.allSatisfy { $0 == .summary }, "\(finals)")
        await harness.close()
    }
}
