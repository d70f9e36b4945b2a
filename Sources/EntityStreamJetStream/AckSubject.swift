import EntityStreamModel

/// What JetStream's acknowledgement subject of a delivered message says
/// about it, read from the subject's bytes (a value type tests drive
/// directly): the consumer reads it for every message, so it makes no
/// `String`s and allocates nothing (libnats' `natsMsg_GetMetaData` allocates
/// a structure and copies of the stream and consumer names per message).
///
/// The subject is `$JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>`
/// (9 tokens), or, from servers with domains and account hashes,
/// `$JS.ACK.<domain>.<account hash>.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>[.<random>…]`
/// (11 tokens or more), as libnats and the Go client read it.
public struct AckSubject: Sendable, Hashable {
    /// How many times JetStream has delivered the message (1: the first time).
    public var deliveries: UInt64
    /// The message's sequence in the stream.
    public var streamSequence: UInt64
    /// Its sequence among the consumer's deliveries.
    public var consumerSequence: UInt64
    /// Messages pending for the consumer after this one when it was delivered.
    public var pending: UInt64

    public init(deliveries: UInt64, streamSequence: UInt64, consumerSequence: UInt64, pending: UInt64) {
        self.deliveries = deliveries
        self.streamSequence = streamSequence
        self.consumerSequence = consumerSequence
        self.pending = pending
    }

    /// Reads `subject`; nil when it is not an acknowledgement subject of
    /// either form, or a number in it is not a decimal that fits 64 bits.
    public init?(_ subject: UnsafeRawBufferPointer) {
        let prefix: StaticString = "$JS.ACK."
        let prefixLength = prefix.utf8CodeUnitCount
        guard subject.count > prefixLength, LiteralBytes.hasPrefix(subject, prefix) else { return nil }
        // The tokens after "$JS.ACK.": 7 (stream, consumer, then the 5 numbers), or 9 and more
        // (domain and account hash first; anything after the numbers is ignored).
        var tokens = 1
        for index in prefixLength..<subject.count where subject[index] == UInt8(ascii: ".") { tokens += 1 }
        let first: Int
        switch tokens {
        case 7: first = 2
        case 9...: first = 4
        default: return nil
        }
        // The five numbers, tokens first to first + 4, each a decimal that fits 64 bits.
        var numbers: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        var token = 0
        var value: UInt64 = 0
        var digits = 0
        for index in prefixLength...subject.count {
            if index == subject.count || subject[index] == UInt8(ascii: ".") {
                if token >= first && token < first + 5 {
                    guard digits > 0 else { return nil }
                    switch token - first {
                    case 0: numbers.0 = value
                    case 1: numbers.1 = value
                    case 2: numbers.2 = value
                    case 3: numbers.3 = value
                    default: numbers.4 = value
                    }
                }
                token += 1
                value = 0
                digits = 0
                if token >= first + 5 { break }
                continue
            }
            guard token >= first else { continue }
            let digit = subject[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(digit))
            guard !overflowTimes && !overflowSum else { return nil }
            value = sum
            digits += 1
        }
        let (deliveries, streamSequence, consumerSequence, _, pending) = numbers
        self.init(deliveries: deliveries, streamSequence: streamSequence, consumerSequence: consumerSequence, pending: pending)
    }
}
