import EntityStreamTestSupport
import Testing
@testable import EntityStreamTransport

@Suite("Message assembly", .bounded)
struct MessageAssemblerTests {
    private func append(_ assembler: inout MessageAssembler, _ text: String, first: Bool, final: Bool,
                        into batch: inout TurnBatch) -> MessageAssembler.Outcome {
        Array(text.utf8).withUnsafeBytes { assembler.append($0, isFirst: first, isFinal: final, isBinary: false, into: &batch) }
    }

    /// Chunks of one message are joined; complete messages land back to back in the batch.
    @Test func joinsChunksIntoWholeMessages() {
        var assembler = MessageAssembler(maximumMessageSize: 100)
        var batch = TurnBatch()
        #expect(append(&assembler, "whole", first: true, final: true, into: &batch) == .complete)
        #expect(append(&assembler, "par", first: true, final: false, into: &batch) == .incomplete)
        #expect(append(&assembler, "ti", first: false, final: false, into: &batch) == .incomplete)
        #expect(append(&assembler, "al", first: false, final: true, into: &batch) == .complete)
        let messages = batch.takeBatch()
        #expect(messages.count == 2)
        #expect(messages.text(at: 0) == "whole")
        #expect(messages.text(at: 1) == "partial")
    }

    /// A message growing past the limit is refused, whether it arrives whole or in chunks.
    @Test func refusesOversizedMessages() {
        var assembler = MessageAssembler(maximumMessageSize: 4)
        var batch = TurnBatch()
        #expect(append(&assembler, "12345", first: true, final: true, into: &batch) == .tooLarge)
        #expect(append(&assembler, "123", first: true, final: false, into: &batch) == .incomplete)
        #expect(append(&assembler, "45", first: false, final: true, into: &batch) == .tooLarge)
        #expect(append(&assembler, "1234", first: true, final: true, into: &batch) == .complete)
        #expect(batch.takeBatch().text(at: 0) == "1234")
    }
}

@Suite("Server outbound queue", .bounded)
struct ServerOutboundQueueTests {
    private func enqueue(_ queue: inout ServerOutboundQueue, _ text: String) {
        Array(text.utf8).withUnsafeBytes { queue.append(text: $0, fragmentSize: nil) }
    }

    /// Queued messages come out as framed bytes, in order, in one write.
    @Test func framesMessagesIntoOneWrite() throws {
        var queue = ServerOutboundQueue()
        enqueue(&queue, "a")
        enqueue(&queue, "bc")
        #expect(queue.queuedBytes == 3 + 4)
        let taken = queue.takeWrite()
        let write = try #require(taken)
        #expect(write.joined == [0x81, 1, 0x61, 0x81, 2, 0x62, 0x63])
        #expect(write.messageCount == 2)
        #expect(queue.isEmpty)
        #expect(queue.queuedBytes == 0)
    }

    /// Dropping makes room by removing the oldest messages first and counts them.
    @Test func dropsOldestFirstAndCounts() throws {
        var queue = ServerOutboundQueue()
        for index in 0..<10 { enqueue(&queue, "m\(index)") }
        queue.dropOldest(toFit: 4 * 4)
        #expect(queue.droppedMessages == 6)
        let taken = queue.takeWrite()
        let bytes = try #require(taken).joined
        let payloads = stride(from: 0, to: bytes.count, by: 4).map {
            String(decoding: bytes[($0 + 2)..<($0 + 4)], as: UTF8.self)
        }
        #expect(payloads == ["m6", "m7", "m8", "m9"])
    }
}

@Suite("Frame encoding", .bounded)
struct WebSocketFrameEncoderTests {
    /// Payload lengths use the 7-bit, 16-bit and 64-bit forms at their boundaries.
    @Test(arguments: [(125, 2), (126, 4), (65_535, 4), (65_536, 10)])
    func lengthForms(count: Int, header: Int) {
        var buffer: [UInt8] = []
        [UInt8](repeating: 0x41, count: count).withUnsafeBytes {
            WebSocketFrameEncoder.appendText($0, fragmentSize: nil, to: &buffer)
        }
        #expect(buffer.count == count + header)
        #expect(buffer[0] == 0x81)
    }

    /// Fragmented messages start with TEXT, continue with CONTINUATION and only the last has FIN.
    @Test func fragmentsCarryOpcodesAndFin() {
        var buffer: [UInt8] = []
        Array("abcdefg".utf8).withUnsafeBytes { WebSocketFrameEncoder.appendText($0, fragmentSize: 3, to: &buffer) }
        #expect(buffer == [0x01, 3, 0x61, 0x62, 0x63, 0x00, 3, 0x64, 0x65, 0x66, 0x80, 1, 0x67])
    }
}

@Suite("URLs and encoding", .bounded)
struct URLAndEncodingTests {
    /// URLs split into scheme, host, port and path with query, with default ports.
    @Test func parsesURLs() throws {
        let url = try TransportURL("wss://realtimegis2016.esri.com:6443/arcgis/ws/services/SandyVehicles/StreamServer/subscribe?outSR=4326")
        #expect(url.scheme == .wss)
        #expect(url.host == "realtimegis2016.esri.com")
        #expect(url.port == 6443)
        #expect(url.pathAndQuery == "/arcgis/ws/services/SandyVehicles/StreamServer/subscribe?outSR=4326")
        let plain = try TransportURL("http://[::1]?f=json")
        #expect(plain.host == "::1")
        #expect(plain.port == 80)
        #expect(plain.pathAndQuery == "/?f=json")
        #expect(plain.hostHeader == "[::1]")
    }

    /// Relative redirects resolve against the current URL.
    @Test func resolvesRedirects() throws {
        let base = try TransportURL("https://host:8443/a/b/c?x=1")
        #expect(try base.resolving("/root").description == "https://host:8443/root")
        #expect(try base.resolving("sibling").description == "https://host:8443/a/b/sibling")
        #expect(try base.resolving("http://other/x").description == "http://other/x")
    }

    /// Percent-encoding round-trips text with reserved and non-ASCII characters.
    @Test func percentEncodingRoundTrips() {
        let text = "speed > 0 AND name LIKE 'TRUCK%' & ü+"
        let encoded = PercentEncoding.encode(text)
        #expect(!encoded.contains(" ") && !encoded.contains("&") && !encoded.contains("+"))
        #expect(PercentEncoding.decode(Substring(encoded)) == text)
        let form = PercentEncoding.parseForm("a=1+2&b=%26") ?? []
        #expect(form.map { "\($0.0)=\($0.1)" } == ["a=1 2", "b=&"])
        #expect(PercentEncoding.decode("%zz") == nil)
    }
}
