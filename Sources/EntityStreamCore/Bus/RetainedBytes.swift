import EntityStreamModel
/// Estimates of the memory an event or a decoded message keeps alive while
/// it waits in a queue, so queues can be bounded by bytes rather than by
/// count: an observation costs its values and its own source text (see
/// ``SourceText``); other events a small constant. Estimates, cheap to
/// compute (no walk over strings).
extension Observation {
    public var retainedBytes: Int {
        96 &+ attributeCount &* 32 &+ sourceByteCount
    }
}

extension StreamMessage {
    /// The estimate for a batch of messages.
    public static func retainedBytes(of messages: [StreamMessage]) -> Int {
        var total = 0
        for message in messages { total &+= message.retainedBytes }
        return total
    }

    public var retainedBytes: Int {
        switch self {
        case .observation(let observation), .delete(let observation), .nonPointGeometry(_, let observation):
            return observation.retainedBytes
        case .filterReply: return 1024
        }
    }
}

extension StreamEvent {
    /// What one event takes inline, in the array that carries it.
    public static let inlineBytes = MemoryLayout<StreamEvent>.stride

    /// The estimate for a batch of events.
    public static func retainedBytes(of events: [StreamEvent]) -> Int {
        var total = 0
        for event in events { total &+= event.retainedBytes }
        return total
    }

    public var retainedBytes: Int {
        switch payload {
        case .store(.entityReceived(_, _, let observation)), .store(.observation(_, _, let observation)):
            return Self.inlineBytes &+ observation.retainedBytes
        case .store, .status, .filter, .error, .dropped:
            return Self.inlineBytes &+ 96
        case .response, .analysis:
            return 4096
        }
    }
}
