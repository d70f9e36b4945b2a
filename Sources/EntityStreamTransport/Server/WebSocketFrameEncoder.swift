/// Encodes unmasked server-to-client WebSocket frames (RFC 6455 §5.2).
///
/// The server queues framed bytes so the service thread can write many
/// messages with one `lws_write` per WRITEABLE callback.
enum WebSocketFrameEncoder {
    /// Appends `payload` as one text message: one frame, or several
    /// (first TEXT, then CONTINUATION) of at most `fragmentSize` bytes.
    static func appendText(_ payload: UnsafeRawBufferPointer, fragmentSize: Int?, to buffer: inout [UInt8]) {
        guard let fragmentSize, fragmentSize > 0, payload.count > fragmentSize else {
            appendFrame(opcode: 0x1, final: true, payload, to: &buffer)
            return
        }
        var offset = 0
        while offset < payload.count {
            let end = min(offset + fragmentSize, payload.count)
            appendFrame(opcode: offset == 0 ? 0x1 : 0x0, final: end == payload.count,
                        UnsafeRawBufferPointer(rebasing: payload[offset..<end]), to: &buffer)
            offset = end
        }
    }

    static func appendFrame(opcode: UInt8, final: Bool, _ payload: UnsafeRawBufferPointer, to buffer: inout [UInt8]) {
        buffer.append((final ? 0x80 : 0) | opcode)
        let count = payload.count
        if count < 126 {
            buffer.append(UInt8(count))
        } else if count <= 0xFFFF {
            buffer.append(126)
            buffer.append(UInt8(count >> 8))
            buffer.append(UInt8(count & 0xFF))
        } else {
            buffer.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { buffer.append(UInt8((UInt64(count) >> UInt64(shift)) & 0xFF)) }
        }
        buffer.append(contentsOf: payload)
    }

    /// Size of the frame header(s) `appendText` adds for a payload of `count` bytes.
    static func headerSize(payloadCount count: Int) -> Int {
        count < 126 ? 2 : (count <= 0xFFFF ? 4 : 10)
    }
}
