import EntityStreamTestSupport
import EntityStreamCore
@testable import EntityStreamJetStream
import EntityStreamStatistics
import Testing
import EntityStreamModel
import EntityStreamFeatures

@Suite("JetStream value types: subject tokens, partitions, the publish window, the ack tracker", .bounded)
struct JetStreamValueTests {
    @Test("Track ids become valid subject tokens and come back unchanged")
    func subjectTokensRoundTrip() {
        let ids = ["367673950", "TRUCK 7", "a.b", "*", ">", "~", "", "Zürich", "tab\tand\nnewline", "-_", String(repeating: "x", count: 160)]
        var tokens = Set<String>()
        for id in ids {
            let token = SubjectToken.encode(id)
            #expect(!token.isEmpty)
            #expect(!token.contains(".") && !token.contains(" ") && token != "*" && token != ">")
            #expect(token.utf8.allSatisfy { $0 > 32 && $0 < 127 })
            #expect(SubjectToken.decode(token) == id, "\(id) → \(token)")
            tokens.insert(token)
        }
        #expect(tokens.count == ids.count)
        let long = String(repeating: "y", count: 1000)
        #expect(SubjectToken.encode(long).utf8.count < 200)
        #expect(SubjectToken.encode(long) != SubjectToken.encode(long + "z"))
        #expect(SubjectToken.decode("a.b") == nil)
        #expect(SubjectToken.decode("~4") == nil)
    }

    @Test("--partition K/N is parsed and checked")
    func partitionsParse() throws {
        let partition = try TrackPartition(parsing: "2/4")
        #expect(partition.index == 2 && partition.count == 4)
        #expect(partition.filterSubject(prefix: "ais") == "ais.*.*.2")
        for bad in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", "0/2000"] {
            #expect(throws: PartitionError.self) { try TrackPartition(parsing: bad) }
        }
        let index = #expect(throws: PartitionError.indexOutOfRange(4, count: 4)) { try TrackPartition(parsing: "4/4") }
        #expect(index?.description == "K must be 0 to 3 for N = 4, not 4")
        let count = #expect(throws: PartitionError.countOutOfRange(2000)) { try TrackPartition(parsing: "0/2000") }
        #expect(count?.description == "N must be 1 to 1024, not 2000")
        let form = #expect(throws: PartitionError.notKOfN("a/b")) { try TrackPartition(parsing: "a/b") }
        #expect(form?.description == "expected K/N (partition K of N, K from 0), not 'a/b'")
        #expect(throws: FleetError.notAnObject) { try FleetStatisticsRequest(json: "[1]") }
    }

    @Test("Partition numbers are FNV-1a 32 of the service and track tokens modulo N, every track in exactly one")
    func partitionFunction() throws {
        // FNV-1a 32 written out here, over the two tokens written one after the other.
        func reference(_ text: String) -> UInt32 {
            var hash: UInt32 = 0x811C_9DC5
            for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
            return hash
        }
        #expect(reference("") == 0x811C_9DC5 && reference("a") == 0xE40C_292C)
        for track in (0..<500).map({ "track-\($0)" }) {
            let expected = Int(reference("ais-feed" + track) % 4)
            #expect(TrackPartition.partition(serviceToken: "ais-feed", trackToken: track, count: 4) == expected)
            let owners = try (0..<4).filter { try TrackPartition(index: $0, count: 4).contains(serviceToken: "ais-feed", trackToken: track) }
            #expect(owners == [expected])
        }
    }

    @Test("The publish window bounds what is in flight, resends failures in order before anything new, abandons rejections")
    func publishWindow() {
        var window = PublishWindow<String>(capacity: 4)
        for sequence in 0..<4 { window.sent(UInt64(sequence), at: 900 + Int64(sequence)) }
        #expect(!window.hasRoom)
        #expect(window.oldestUnansweredSentAt() == 900)
        window.stored(0, duplicate: false)
        #expect(window.hasRoom && window.inFlight == 3)
        #expect(window.oldestUnansweredSentAt() == 901)
        // The broker dies: 1 times out, 3 fails at once; 2 is still unanswered.
        #expect(window.failed(3, "m3", .connection, now: 1000) == .retry)
        #expect(window.failed(1, "m1", .timeout, now: 1100) == .retry)
        // Nothing new goes out while failures wait, and nothing is resent while 2 is unanswered.
        #expect(!window.hasRoom)
        #expect(window.retriesDue == nil)
        #expect(window.takeDueRetries(now: 5000).isEmpty)
        window.stored(2, duplicate: false)
        // Due after the connection failure's delay; then oldest first.
        #expect(window.retriesDue == 1250)
        #expect(window.takeDueRetries(now: 1249).isEmpty)
        let resent = window.takeDueRetries(now: 1250)
        #expect(resent.map(\.sequence) == [1, 3] && resent.map(\.message) == ["m1", "m3"])
        #expect(window.resent == 2 && window.inFlight == 2 && window.hasRoom)
        window.stored(1, duplicate: true)
        window.stored(3, duplicate: false)
        #expect(window.duplicates == 1 && window.stored == 3 && window.isDrained)
        #expect(window.oldestUnansweredSentAt() == nil)
        window.sent(4, at: 1999)
        if case .abandon(let reason) = window.failed(4, "m4", .rejected(code: 10054, text: "message size exceeds maximum allowed"), now: 2000) {
            #expect(reason.contains("10054") && reason.contains("maximum"))
        } else {
            Issue.record("a rejection must abandon")
        }
        #expect(window.isDrained && window.abandoned == 1 && window.hasRoom)
        // An answer for a message not in flight changes nothing.
        window.stored(99, duplicate: false)
        #expect(window.stored == 3)
    }

    @Test("Messages held through a leader election are resent at most once per acknowledgement wait, and all stored once it ends")
    func publishWindowThroughAnElection() {
        // The shell's rules, driven by a millisecond clock: due retries go out; a message unanswered
        // for the acknowledgement wait is taken back, with every other unanswered one, as a timeout.
        let ackWait: Int64 = 1000
        var window = PublishWindow<Int>(capacity: 8)
        for sequence in 0..<8 { window.sent(UInt64(sequence), at: 0) }
        // No responders for all of them while the stream's leader is being elected.
        for sequence in 0..<8 { #expect(window.failed(UInt64(sequence), Int(sequence), .noResponders, now: 5) == .retry) }
        var electionEnds: Int64 = 10_000
        var now: Int64 = 5
        var rounds: [Int64] = []
        // What the client holds: sent and not answered.
        var held: [UInt64] = []
        func step() {
            if let due = window.retriesDue, due <= now {
                rounds.append(now)
                for entry in window.takeDueRetries(now: now) {
                    if now >= electionEnds { window.stored(entry.sequence, duplicate: false) } else { held.append(entry.sequence) }
                }
            }
            if let oldest = window.oldestUnansweredSentAt(), oldest + ackWait <= now {
                for sequence in held { window.failed(sequence, Int(sequence), .timeout, now: now) }
                held = []
            }
        }
        while now < electionEnds {
            step()
            if now == 255 {
                // Resent at 255: due from that send, not from the first one at 0.
                #expect(rounds == [255])
                #expect(window.oldestUnansweredSentAt() == 255)
            }
            now += 1
        }
        // Sent again when each wait ran out (1255, 2255, ...): 10 rounds in 10 s, not one a millisecond.
        #expect(rounds.count == 10, "\(rounds.count) rounds")
        #expect(zip(rounds, rounds.dropFirst()).allSatisfy { $1 - $0 >= PublishWindow<Int>.minimumRetryInterval })
        #expect(window.resent == 80)
        // The leader is elected: the next round is stored, everything once.
        electionEnds = now
        while !window.isDrained && now < 20_000 {
            step()
            now += 1
        }
        #expect(window.isDrained && window.stored == 8 && window.abandoned == 0)
    }

    @Test("A round of retries waits the least retry interval after the last, whatever failed")
    func retriesBoundedByInterval() {
        var window = PublishWindow<Int>(capacity: 2)
        window.sent(0, at: 0)
        window.failed(0, 0, .timeout, now: 100)
        #expect(window.retriesDue == 100)
        #expect(window.takeDueRetries(now: 100).map(\.sequence) == [0])
        // A timeout that comes back at once: not resent before 100 + the interval.
        window.failed(0, 0, .timeout, now: 101)
        #expect(window.retriesDue == 100 + PublishWindow<Int>.minimumRetryInterval)
        #expect(window.takeDueRetries(now: 349).isEmpty)
        #expect(window.takeDueRetries(now: 350).count == 1)
        // A longer delay (the failure's own) still wins.
        window.failed(0, 0, .connection, now: 500)
        #expect(window.retriesDue == 750)
    }

    @Test("A consumed message is acknowledged only once its observation and every earlier one is written")
    func ackTracker() {
        var tracker = AckTracker<String>()
        tracker.handed("a", observations: 1)
        tracker.handed("status", observations: 0)
        tracker.handed("b", observations: 1)
        tracker.handed("c", observations: 1)
        #expect(tracker.acknowledgeable(written: 0) == nil)
        let first = tracker.acknowledgeable(written: 1)
        #expect(first?.last == "status" && first?.covered == ["a", "status"])
        #expect(tracker.acknowledgeable(written: 1) == nil)
        let rest = tracker.acknowledgeable(written: 3)
        #expect(rest?.last == "c" && rest?.covered == ["b", "c"])
        #expect(tracker.unacknowledged == 0)
    }

    @Test("nats:// addresses: servers, names and credentials that are never printed")
    func addresses() throws {
        let address = try NATSAddress(parsing: "nats://s3cret@127.0.0.1:4222,127.0.0.1:4223/ais.feeds", nameIs: "subject")
        #expect(address.servers == ["nats://127.0.0.1:4222", "nats://127.0.0.1:4223"])
        #expect(address.name == "ais.feeds")
        #expect(address.credentials == .token("s3cret"))
        #expect(!address.description.contains("s3cret"))
        let user = try NATSAddress(parsing: "nats://me:pw@h:1/S", nameIs: "stream")
        #expect(user.credentials == .user("me", password: "pw"))
        let fromEnvironment = try NATSAddress(parsing: "nats://h:1/S", nameIs: "stream", environment: ["NATS_TOKEN": "t"])
        #expect(fromEnvironment.credentials == .token("t"))
        for bad in ["http://h:1/S", "nats://h/S", "nats://h:0/S", "nats://h:1/", "nats://h:1", "nats://h:1/a.b", "nats://h:1/a*"] {
            #expect(throws: NATSAddressError.self) { try NATSAddress(parsing: bad, nameIs: "stream") }
        }
        #expect(throws: NATSAddressError.self) { try NATSAddress(parsing: "nats://h:1/a..b", nameIs: "subject") }
        // Each refusal is a case naming what was wrong, with the message users read.
        let cases: [(String, NATSAddressError, String)] = [
            ("http://h:1/S", .notNATS(what: "stream", start: "http://h"), "expected nats://HOST:PORT/STREAM, not a URL starting 'http://h'"),
            ("nats://h:1", .missingPath(what: "stream"), "missing the /STREAM after the servers"),
            ("nats://h/S", .invalidServer("h"), "each server must be HOST:PORT with a port from 1 to 65535, not 'h'"),
            ("nats://h:1/", .missingName(what: "stream"), "missing the stream after the '/'"),
            ("nats://h:1/a.b", .dotInStreamName("a.b"), "a stream name cannot contain '.': 'a.b'"),
            ("nats://@h:1/S", .emptyCredentials, "empty credentials before '@'"),
        ]
        for (text, expected, message) in cases {
            let error = #expect(throws: expected) { try NATSAddress(parsing: text, nameIs: "stream") }
            #expect(error?.description == message)
        }
        #expect(throws: NATSAddressError.emptyToken(what: "subject", name: "a..b")) { try NATSAddress(parsing: "nats://h:1/a..b", nameIs: "subject") }
    }
}

@Suite("Statistics partials: written as JSON, read back and merged", .bounded)
struct StatisticsPartialTests {
    @Test("Rows split among four accumulators, sent as partials and merged, answer as one pass does")
    func partialsMergeAsOnePass() throws {
        let schema = Schema(fields: [Field(name: "kind", type: .string), Field(name: "speed", type: .double), Field(name: "count", type: .integer)])
        let request = try StatisticsRequest(statistics: [
            StatisticDefinition(parsing: "count:speed"), StatisticDefinition(parsing: "sum:count"), StatisticDefinition(parsing: "avg:speed"),
            StatisticDefinition(parsing: "min:speed"), StatisticDefinition(parsing: "max:kind"), StatisticDefinition(parsing: "stddev:speed"),
        ], groupBy: ["kind"])
        let plan = try StatisticsPlan(request, schema: schema)
        var random = SplitMix64(seed: 23)
        var whole = plan.makeAccumulator()
        var parts = (0..<4).map { _ in plan.makeAccumulator() }
        for row in 0..<5000 {
            let kind: AttributeValue = row % 17 == 0 ? .null : .string(["tug", "ferry", "cargo"][Int(random.next() % 3)])
            let speed: AttributeValue = row % 13 == 0 ? .null : .double(Double(random.next() % 100_000) / 7.0)
            let observation = Observation(geometry: nil, attributes: [kind, speed, .int(Int64(random.next() % 1000) - 500)], receivedAt: 0)
            whole.add(observation)
            parts[row % 4].add(observation)
        }
        var merged = plan.makeAccumulator()
        for part in parts {
            // Through text, as a consumer's answer travels.
            var writer = JSONWriter(capacity: 1024)
            writer.append(part.partial())
            merged.merge(try StatisticsAccumulator(plan: plan, partial: try JSONParser.parse(writer.bytes)))
        }
        let expected = whole.finish()
        let got = merged.finish()
        #expect(got.rowCount == 5000 && got.groupCount == expected.groupCount)
        #expect(got.records.count == expected.records.count)
        for (a, b) in zip(got.records, expected.records) {
            #expect(a.group == b.group)
            for (x, y) in zip(a.statistics.map(\.value), b.statistics.map(\.value)) {
                switch (x, y) {
                case (.double(let p), .double(let q)): #expect(abs(p - q) <= 1e-12 * max(1, abs(q)), "\(p) vs \(q)")
                default: #expect(x == y)
                }
            }
        }
        let notPartial = #expect(throws: StatisticsPartialError.notAPartial) { try StatisticsAccumulator(plan: plan, partial: .object(JSONObject())) }
        #expect(notPartial?.description == "not a statistics partial")
        func partial(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }
        let counts = #"{"rowCount":1,"ignoredValues":0,"rowsOverGroupLimit":0,"#
        #expect(throws: StatisticsPartialError.groupShape(groupFields: 1, statistics: 3)) {
            try StatisticsAccumulator(plan: plan, partial: try partial(counts + #""groups":[{"values":[],"rows":1,"fields":[]}]}"#))
        }
        let threeNulls = "[null,null,null]"
        #expect(throws: StatisticsPartialError.unknownTag) {
            try StatisticsAccumulator(plan: plan, partial: try partial(counts + #""groups":[{"values":[{"x":1}],"rows":1,"fields":"# + threeNulls + "}]}"))
        }
        #expect(throws: StatisticsPartialError.fieldSummary(member: "n")) {
            try StatisticsAccumulator(plan: plan, partial: try partial(counts + #""groups":[{"values":[{"s":"tug"}],"rows":1,"fields":"# + threeNulls + "}]}"))
        }
    }
}

@Suite("Outgoing JetStream batches: offsets checked, oversize messages refused", .bounded)
struct OutgoingBatchTests {
    /// The messages a batch holds, read back through its offsets: subject, id, line.
    func messages(_ batch: OutgoingBatch) -> [[String]] {
        batch.entries.map { entry in
            func text(_ start: Int32, _ end: Int) -> String { String(decoding: batch.bytes[Int(start)..<end], as: UTF8.self) }
            let subjectEnd = batch.bytes[Int(entry.subject)...].firstIndex(of: 0)!
            let idEnd = batch.bytes[Int(entry.id)...].firstIndex(of: 0)!
            return [text(entry.subject, subjectEnd), text(entry.id, idEnd), text(entry.line, Int(entry.line) + Int(entry.length))]
        }
    }

    @Test("A message larger than the server takes is refused with its size and the limit; the batch is as it was")
    func messageTooLarge() throws {
        var batch = OutgoingBatch(maximumMessageBytes: 200)
        batch.trackField = "MMSI"
        try batch.append(subject: "ais.s.1", id: "s.1.a") { $0 += Array("{\"event\":\"observation\"}".utf8) }
        let before = (batch.count, batch.byteCount)
        // The headers as the client sends them: "NATS/1.0\r\n", "Nats-Msg-Id: s.1.b\r\n",
        // "Entitystream-Track-Field: MMSI\r\n", "\r\n": 10 + 20 + 32 + 2 bytes.
        let headers = 10 + 20 + 32 + 2
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 200 - headers + 1)
        #expect(throws: OutgoingBatchError.messageTooLarge(bytes: 201, limit: 200)) {
            try batch.append(subject: "ais.s.1", id: "s.1.b") { $0 += line }
        }
        #expect(batch.count == before.0 && batch.byteCount == before.1)
        // One byte less fits.
        try batch.append(subject: "ais.s.1", id: "s.1.c") { $0 += line.dropLast() }
        #expect(messages(batch).map(\.[1]) == ["s.1.a", "s.1.c"])
        #expect(messages(batch)[1][2].utf8.count == 200 - headers)
    }

    @Test("A message the buffer's offsets cannot reach says the batch is full and leaves it whole; alone it is too large")
    func bufferFull() throws {
        var batch = OutgoingBatch(maximumMessageBytes: 1 << 20, largestBufferBytes: 100)
        // Each message: subject 7 + 1, id 3 + 1, line 20: 32 bytes.
        let line = Array(repeating: UInt8(ascii: "y"), count: 20)
        for index in 0..<3 { try batch.append(subject: "ais.s.\(index)", id: "i.\(index)") { $0 += line } }
        #expect(batch.byteCount == 96)
        #expect(throws: OutgoingBatchError.full) { try batch.append(subject: "ais.s.3", id: "i.3") { $0 += line } }
        #expect(batch.count == 3 && batch.byteCount == 96)
        #expect(messages(batch) == (0..<3).map { ["ais.s.\($0)", "i.\($0)", String(repeating: "y", count: 20)] })
        // In an empty batch, a message the buffer cannot hold at all is too large for any batch (not the server's max_payload).
        batch.removeAll()
        #expect(throws: OutgoingBatchError.largerThanABatch(bytes: 112, limit: 100)) {
            try batch.append(subject: "ais.s.4", id: "i.4") { $0 += Array(repeating: UInt8(ascii: "z"), count: 100) }
        }
        #expect(batch.isEmpty && batch.byteCount == 0)
    }
}

@Suite("JetStream consumer state: pull requests and catching up", .bounded)
struct JetStreamConsumerStateTests {
    @Test("Two pull requests are open at a time, answered in order; each ends when all of it came, on its 408, on any other status, or past its deadline")
    func pullRequestLifecycle() throws {
        var pulls = PullRequests(batch: 3, maximumBytes: 4096, expiresMilliseconds: 1000)
        let sent = pulls.request(now: 0)
        let body = try #require(sent)
        // Bounded by count and by bytes.
        #expect(String(decoding: body, as: UTF8.self) == #"{"batch":3,"max_bytes":4096,"expires":1000000000}"#)
        // The second goes out at once (the server streams on while the first is read); a third waits.
        do { let request = pulls.request(now: 5); #expect(request != nil) }
        do { let request = pulls.request(now: 10); #expect(request == nil) }
        #expect(pulls.owed == 6 && pulls.open.map(\.deadline) == [2000, 2005])
        pulls.received()
        pulls.received()
        pulls.status("100")
        #expect(pulls.isOpen(now: 20) && pulls.owed == 4)
        do { let request = pulls.request(now: 20); #expect(request == nil) }
        // The first request's last message: it is done, the next may go.
        pulls.received()
        #expect(pulls.open.count == 1 && pulls.owed == 3)
        do { let request = pulls.request(now: 30); #expect(request != nil) }
        #expect(pulls.open.map(\.deadline) == [2005, 2030])
        // A 408 ends the oldest (it expired), not the newer one.
        pulls.received()
        pulls.status("408")
        #expect(pulls.open.count == 1 && pulls.owed == 3 && pulls.open[0].deadline == 2030)
        // Any other status ends them all.
        pulls.status("409")
        #expect(!pulls.isOpen(now: 40) && pulls.owed == 0)
        // A late message of an earlier request opens nothing and owes nothing.
        pulls.received()
        #expect(pulls.open.isEmpty)
        do { let request = pulls.request(now: 40); #expect(request != nil) }
        pulls.failed()
        #expect(pulls.open.isEmpty)
        do { let request = pulls.request(now: 60); #expect(request != nil) }
        do { let request = pulls.request(now: 61); #expect(request != nil) }
        // An end that never comes (lost with a connection): each is given up at twice the expiry.
        do { let request = pulls.request(now: 2059); #expect(request == nil) }
        do { let request = pulls.request(now: 2060); #expect(request != nil) }
        #expect(pulls.open.map(\.deadline) == [2061, 4060])

        var single = PullRequests(batch: 3, maximumBytes: 4096, expiresMilliseconds: 1000, depth: 1)
        do { let request = single.request(now: 0); #expect(request != nil) }
        do { let request = single.request(now: 1); #expect(request == nil) }
    }

    /// nats-server 2.9 ends a request whose next message does not fit in the bytes it has left
    /// with "409 Message Size Exceeds MaxBytes": that request only, the next one goes on.
    @Test("A request whose bytes are used up ends alone; one that ends so before delivering anything says the next message never fits")
    func requestBytesUsedUp() {
        var pulls = PullRequests(batch: 100, maximumBytes: 1000, expiresMilliseconds: 1000)
        _ = pulls.request(now: 0)
        _ = pulls.request(now: 1)
        pulls.received()
        pulls.received()
        #expect(pulls.status("409", description: "Message Size Exceeds MaxBytes") == .handled)
        #expect(pulls.open.count == 1 && pulls.owed == 100 && pulls.open[0].deadline == 2001)
        // The newer request delivers, then its bytes are used up too.
        pulls.received()
        #expect(pulls.status("409", description: "Message Size Exceeds MaxBytes") == .handled)
        #expect(pulls.open.isEmpty)
        // A request that ends so before its first message: that message is larger than a request.
        _ = pulls.request(now: 10)
        _ = pulls.request(now: 11)
        #expect(pulls.status("409", description: "Message Size Exceeds MaxBytes") == .messageLargerThanRequest)
        // Another 409 (a leadership change, a deleted consumer) ends every request.
        _ = pulls.request(now: 12)
        #expect(pulls.open.count == 2)
        #expect(pulls.status("409", description: "Leadership Change") == .handled)
        #expect(pulls.open.isEmpty)
    }

    @Test("Caught up once the acknowledgements cover the first message with none pending after it, or the stream's last at start")
    func catchingUp() {
        var empty = CatchUp(lastSequenceAtStart: 40, pendingAtStart: 0, unacknowledgedAtStart: 0)
        #expect(empty.isCaughtUp)
        empty.acknowledged(0)
        #expect(empty.isCaughtUp)

        var up = CatchUp(lastSequenceAtStart: 100, pendingAtStart: 3, unacknowledgedAtStart: 0)
        #expect(!up.isCaughtUp && up.target == nil)
        up.handed(streamSequence: 5, pendingAfter: 2)
        up.handed(streamSequence: 6, pendingAfter: 1)
        up.acknowledged(2)
        #expect(!up.isCaughtUp)
        up.handed(streamSequence: 7, pendingAfter: 0)
        #expect(up.target == 3 && !up.isCaughtUp)
        // Later messages do not move the target.
        up.handed(streamSequence: 8, pendingAfter: 0)
        #expect(up.target == 3)
        up.acknowledged(1)
        #expect(up.isCaughtUp)

        // A stream that keeps growing: its last sequence at start ends the catching up.
        var growing = CatchUp(lastSequenceAtStart: 10, pendingAtStart: 10, unacknowledgedAtStart: 0)
        for sequence in UInt64(1)...9 { growing.handed(streamSequence: sequence, pendingAfter: 500) }
        #expect(growing.target == nil)
        growing.handed(streamSequence: 10, pendingAfter: 499)
        #expect(growing.target == 10)
        growing.acknowledged(9)
        #expect(!growing.isCaughtUp)
        growing.acknowledged(1)
        #expect(growing.isCaughtUp)

        // Messages delivered and unacknowledged at start come again before it is caught up.
        let waiting = CatchUp(lastSequenceAtStart: 10, pendingAtStart: 0, unacknowledgedAtStart: 4)
        #expect(!waiting.isCaughtUp)
    }
}
