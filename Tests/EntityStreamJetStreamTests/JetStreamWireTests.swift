@testable import EntityStreamJetStream
import Testing
import EntityStreamTestSupport

/// What the consumer reads from a delivered message's bytes, without
/// libnats' metadata call or Swift strings: the acknowledgement subject's
/// numbers, the publisher's `"epoch"`, and the partition of a subject.
@Suite("JetStream consumer: acknowledgement subjects, epochs and partitions read from bytes", .bounded)
struct JetStreamWireTests {
    static func read(_ subject: String) -> AckSubject? {
        Array(subject.utf8).withUnsafeBytes { AckSubject($0) }
    }

    @Test("Acknowledgement subjects of both forms give deliveries, sequences and pending; anything else gives nil")
    func acknowledgementSubjects() {
        // As nats-server 2.9 sent it to a pull consumer on this machine.
        #expect(Self.read("$JS.ACK.ES.cpeer12250.1.1.1.1795818052327082798.999999")
                == AckSubject(deliveries: 1, streamSequence: 1, consumerSequence: 1, pending: 999_999))
        #expect(Self.read("$JS.ACK.AIS.relay.3.8400.17.1795818052327082798.0")
                == AckSubject(deliveries: 3, streamSequence: 8400, consumerSequence: 17, pending: 0))
        // With a domain and an account hash, and with a random token after the numbers.
        #expect(Self.read("$JS.ACK.hub.ACCHASH.AIS.relay.2.500.499.1795818052327082798.12")
                == AckSubject(deliveries: 2, streamSequence: 500, consumerSequence: 499, pending: 12))
        #expect(Self.read("$JS.ACK._.ACCHASH.AIS.relay.1.18446744073709551615.7.1.0.r4nd0m")
                == AckSubject(deliveries: 1, streamSequence: .max, consumerSequence: 7, pending: 0))
        for bad in ["", "$JS.ACK.", "$JS.ACK.ES.c.1.2.3.4", "$JS.ACK.ES.c.1.2.3.4.5.6", "$JS.NAK.ES.c.1.1.1.1.1",
                    "$JS.ACK.ES.c.1.x.1.1.1", "$JS.ACK.ES.c.1..1.1.1", "$JS.ACK.ES.c.1.18446744073709551616.1.1.1",
                    "$JS.ACK.ES.c.1.1.1.1.-1", "_INBOX.abc"] {
            #expect(Self.read(bad) == nil, "\(bad)")
        }
    }

    @Test("The epoch of a line is the number after the first \"epoch\": member, found wherever it is")
    func epochs() {
        func epoch(_ line: String) -> Int64? { Array(line.utf8).withUnsafeBytes { JetStreamConsumer.epoch(in: $0) } }
        let line = #"{"event":"observation","track":"367673950","entity":1,"observation":1,"time":"2026-11-27T22:34:23.941Z","epoch":1795818863941,"geometry":{"x":1,"y":2}}"#
        #expect(epoch(line) == 1_795_818_863_941)
        // Quotation marks and near misses before it; the key at the very end; no digits; none at all.
        #expect(epoch(#"{"a":"\"epoc","epoch ":1,"epoch":42}"#) == 42)
        #expect(epoch(#"{"x":"y","epoch":7"#) == 7)
        #expect(epoch(#"{"x":1,"epoch":}"#) == nil)
        #expect(epoch(#"{"x":1,"epoch":"#) == nil)
        #expect(epoch(#"{"event":"observation"}"#) == nil)
        #expect(epoch(#""epoch":"#) == nil)
        #expect(epoch("") == nil)
    }

    @Test("A subject's partition, read from its bytes, is the one the string form computes, and its last token must say so")
    func partitionsFromBytes() throws {
        let partition = try TrackPartition(index: 2, count: 4)
        var inside = 0
        for track in 0..<400 {
            let trackToken = SubjectToken.encode("vessel \(track)")
            let expected = TrackPartition.partition(serviceToken: "ais", trackToken: trackToken, count: 4)
            for mapped in 0..<4 {
                let subject = "feeds.ais.\(trackToken).\(mapped)"
                let belongs = Array(subject.utf8).withUnsafeBytes { JetStreamConsumer.belongs(subject: $0, prefix: "feeds", partition: partition) }
                #expect(belongs == (expected == 2 && mapped == 2), "\(subject)")
                if belongs { inside += 1 }
            }
        }
        #expect(inside > 50 && inside < 150)
        for bad in ["feeds.ais.t", "feeds.ais.t.2.9", "feeds.ais.t.", "feeds.ais.t.02", "feeds", ""] {
            #expect(!Array(bad.utf8).withUnsafeBytes { JetStreamConsumer.belongs(subject: $0, prefix: "feeds", partition: partition) }, "\(bad)")
        }
    }

    @Test("Acknowledgement subjects are kept per batch until an acknowledgement covers their batch")
    func subjectsPerBatch() {
        var subjects = AcknowledgementSubjects()
        let first = subjects.append(Array("a.1\u{0}a.2\u{0}".utf8))
        let second = subjects.append(Array("b.1\u{0}".utf8))
        #expect(subjects.subject(first << 32 | 4) == Array("a.2\u{0}".utf8))
        #expect(subjects.subject(second << 32) == Array("b.1\u{0}".utf8))
        subjects.release(before: second << 32)
        #expect(subjects.subject(first << 32) == nil)
        #expect(subjects.subject(second << 32) == Array("b.1\u{0}".utf8))
    }
}
