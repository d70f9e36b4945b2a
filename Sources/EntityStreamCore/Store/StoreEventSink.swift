/// Where ``EntityStoreState`` writes what happened, as `Event`s appended to
/// ``events``; `time` is the event's own time when it has one (an
/// observation's receive time), nil for "now".
protocol StoreEventSink {
    associatedtype Event
    var events: [Event] { get set }
    mutating func append(_ event: StoreEvent, time: Int64?)
}

/// Collects plain store events.
struct StoreEventList: StoreEventSink {
    var events: [StoreEvent] = []
    mutating func append(_ event: StoreEvent, time: Int64?) { events.append(event) }
}

/// Collects bus events, stamping those without a time of their own with `now`.
struct StreamEventList: StoreEventSink {
    let now: Int64
    var events: [StreamEvent] = []
    init(now: Int64) { self.now = now }
    mutating func append(_ event: StoreEvent, time: Int64?) {
        events.append(StreamEvent(time: time ?? now, payload: .store(event)))
    }
}
