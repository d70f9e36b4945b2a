import EntityStreamCore
import EntityStreamModel
import EntityStreamFiles

/// One subscriber's position in a service's feed: yields what to send next
/// and when it is due (epoch ms; nil = at once, in burst mode).
struct FeedCursor {
    enum Item {
        case observation(Observation)
        /// A message as recorded: a slice of the cursor's read-ahead buffer, no
        /// copy (one kept past the next call makes the cursor's next read copy
        /// the buffer instead).
        case raw(ArraySlice<UInt8>)
    }

    private let feed: SimulatedService.Feed
    private let pacing: SimulatorPacing
    private let start: Int64
    private var fleet: SnowplowFleet?
    /// A streamed file: its reader (opened on first use) and the messages read ahead.
    private var reader: RecordingFileReader?
    private var readAhead = RecordingChunkParser.Batch()
    private var readIndex = 0
    private var fileEnded = false
    /// Messages of the streamed file yielded in the current pass.
    private var yieldedInPass = 0
    private var index = 0
    private var pass = 0
    /// Items yielded so far, across loops.
    private var sequence: Int64 = 0

    /// `serverStart` anchors the fleet's timeline (all subscribers see the same
    /// vehicles at the same time); `now` is when this subscriber joined.
    init(feed: SimulatedService.Feed, pacing: SimulatorPacing, serverStart: Int64, now: Int64) {
        self.feed = feed
        self.pacing = pacing
        self.start = now
        if case .fleet(let configuration) = feed {
            var fleet = SnowplowFleet.served(configuration: configuration, serverStart: serverStart)
            if !pacing.burst {
                while fleet.nextTime < now { _ = fleet.next() }
            }
            self.fleet = fleet
        }
    }

    mutating func next() -> (due: Int64?, item: Item)? {
        switch feed {
        case .fleet:
            // In place: a local copy would share the vehicles' array, and advancing
            // it would copy the whole fleet for every message.
            guard let observation = fleet?.next() else { return nil }
            return (pacing.burst ? nil : observation.receivedAt, .observation(observation))
        case .messages(let entries, let timed):
            guard let position = advance(count: entries.count) else { return nil }
            let entry = entries[position]
            return (due(offset: timed ? entry.offsetMilliseconds : nil,
                        span: timed ? Double(entries.last?.offsetMilliseconds ?? 0) + 1 : nil), .raw(entry.message[...]))
        case .file(let path, let timed, let span):
            guard let (message, offset) = nextFromFile(path: path) else { return nil }
            defer { sequence += 1 }
            return (due(offset: timed ? offset : nil, span: timed ? Double(span) : nil), .raw(message))
        case .observations(let observations):
            guard let position = advance(count: observations.count) else { return nil }
            let observation = observations[position]
            let first = observations.first?.receivedAt ?? 0
            let span = Double(observations.last?.receivedAt ?? first) - Double(first) + 1000
            return (due(offset: observation.receivedAt &- first, span: span), .observation(observation))
        case .live:
            // A live service's subscribers are sent to by its stream, not by a cursor.
            return nil
        }
    }

    /// The next message of a streamed file (reading ahead in chunks, starting
    /// again at the end when looping); nil at the end, or when the file can
    /// no longer be read (the subscriber's feed then ends). Malformed
    /// recording lines are skipped (the server announced them when it loaded
    /// the file); a looped file with nothing playable ends.
    private mutating func nextFromFile(path: String) -> (message: ArraySlice<UInt8>, offset: Int64?)? {
        while true {
            guard let index = nextReadAhead(path: path) else { return nil }
            if readAhead.problems[index] != nil { continue }
            yieldedInPass += 1
            return (readAhead.bytes[readAhead.range(index)], readAhead.offsets[index])
        }
    }

    /// The index in `readAhead` of the file's next message, reading on as needed.
    private mutating func nextReadAhead(path: String) -> Int? {
        if readIndex == readAhead.count {
            readAhead.removeAll()
            readIndex = 0
            do {
                if reader == nil { reader = try RecordingFileReader(path: path) }
                while readAhead.isEmpty {
                    if fileEnded {
                        guard pacing.loop, yieldedInPass > 0 else { return nil }
                        try reader?.rewind()
                        fileEnded = false
                        yieldedInPass = 0
                        pass += 1
                    }
                    let more = try reader?.read(into: &readAhead, minimum: 1024) ?? false
                    if !more { fileEnded = true }
                    if readAhead.isEmpty && fileEnded && pass == 0 && !pacing.loop { return nil }
                    if readAhead.isEmpty && fileEnded && sequence == 0 { return nil }
                }
            } catch {
                return nil
            }
        }
        let index = readIndex
        readIndex += 1
        return index
    }

    /// The index to play now, moving on (and looping when allowed).
    private mutating func advance(count: Int) -> Int? {
        if index == count {
            guard pacing.loop, count > 0 else { return nil }
            index = 0
            pass += 1
        }
        defer {
            index += 1
            sequence += 1
        }
        return index
    }

    /// When the current item is due (see ``PlaybackSchedule``: saturating, never trapping).
    private func due(offset: Int64?, span: Double?) -> Int64? {
        if pacing.burst { return nil }
        if let offset, let span {
            return PlaybackSchedule.due(start: start, offset: offset, pass: pass, span: span, speed: pacing.speed)
        }
        return PlaybackSchedule.due(start: start, sequence: sequence, interval: pacing.intervalMilliseconds)
    }
}

/// How the simulator paces what it sends.
public struct SimulatorPacing: Sendable, Hashable {
    /// Speed-up of recorded timing (recordings with times, CSV timestamps).
    public var speed: Double = 1
    /// Pause between messages of untimed files (feature lines, arrays), like Esri's samples.
    public var intervalMilliseconds: Int64 = 10
    /// Start again at the end.
    public var loop = false
    /// Send as fast as each socket takes, ignoring time (for benchmarks).
    public var burst = false

    public init(speed: Double = 1, intervalMilliseconds: Int64 = 10, loop: Bool = false, burst: Bool = false) {
        self.speed = speed
        self.intervalMilliseconds = intervalMilliseconds
        self.loop = loop
        self.burst = burst
    }
}
