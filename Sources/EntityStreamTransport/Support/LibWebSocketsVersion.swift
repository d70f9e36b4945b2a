import CLibWebSockets

/// The libwebsockets the program runs with (its own version string, e.g.
/// "4.1.6-…"), and what that version can do.
public enum LibWebSocketsVersion {
    /// The version string libwebsockets reports.
    public static var text: String { String(cString: lws_get_library_version()) }

    /// The major version (4 for "4.1.6-…"; 0 when the text cannot be read).
    public static var major: Int { Int(text.prefix { $0.isNumber }) ?? 0 }

    /// Whether its server closes a connection whose client sends an unmasked
    /// frame (RFC 6455 §5.1, status 1002). libwebsockets 4.x does not:
    /// `lws_ws_rx_sm` (lib/roles/ws/ops-ws.c) keeps the mask bit only in its
    /// private `this_frame_masked` and skips the key of an unmasked frame,
    /// whose payload then reads exactly like a masked frame with the legal
    /// key 00 00 00 00 (`all_zero_nonce` is set at every frame start); no
    /// callback or public function reports the bit. The check ("client
    /// unmasked") arrived upstream in commit cae06c63a, first released in 5.0.0.
    public static var closesUnmaskedClientFrames: Bool { major >= 5 }
}
