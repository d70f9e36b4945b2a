import CLibWebSockets

/// The receive side of one WebSocket connection on the service thread:
/// reassembling libwebsockets' chunks into messages, enforcing the size
/// limit, and collecting what one service turn completed for a single
/// hand-off to the connection's ``InboundChannel``. Client and server
/// connections share it.
struct InboundAssembly {
    enum Outcome {
        /// Nothing new for the hand-off, or the turn already had messages.
        case nothing
        /// The first complete message of this turn: mark the connection for hand-off.
        case firstMessageOfTurn
        /// A message outgrew the limit: fail the connection and close with 1009.
        case tooLarge
    }

    private var assembler: MessageAssembler
    private var turn = TurnBatch()
    private var hasMessages = false
    private var discardingRestOfMessage = false
    private var stopped = false

    init(maximumMessageSize: Int) {
        assembler = MessageAssembler(maximumMessageSize: maximumMessageSize)
    }

    /// A RECEIVE callback's chunk.
    mutating func receive(wsi: OpaquePointer, input: UnsafeMutableRawPointer?, length: Int) -> Outcome {
        let isFinal = lws_is_final_fragment(wsi) != 0
        if discardingRestOfMessage {
            if isFinal { discardingRestOfMessage = false }
            return .nothing
        }
        if stopped { return .nothing }
        let chunk = UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length)
        switch assembler.append(chunk, isFirst: lws_is_first_fragment(wsi) != 0, isFinal: isFinal,
                                isBinary: lws_frame_is_binary(wsi) != 0, into: &turn) {
        case .complete:
            guard !hasMessages else { return .nothing }
            hasMessages = true
            return .firstMessageOfTurn
        case .incomplete:
            return .nothing
        case .tooLarge:
            discardingRestOfMessage = !isFinal
            stopped = true
            return .tooLarge
        }
    }

    /// End of a service turn: hands the turn's messages over. Returns true
    /// when the consumer is behind and reading must pause.
    mutating func handOff(to channel: InboundChannel) -> Bool {
        hasMessages = false
        guard !turn.isEmpty else { return false }
        let (bytes, messages) = (turn.bytes.count, turn.ends.count)
        let pause = channel.deliver(&turn)
        // The next turn is sized like this one: grown message by message, its
        // arrays were reallocated and copied a dozen times a turn.
        turn.bytes.reserveCapacity(bytes)
        turn.ends.reserveCapacity(messages)
        return pause
    }
}
