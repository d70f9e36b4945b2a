import CLibWebSockets
import Foundation

/// Keeps libwebsockets quiet (its failures reach callers as typed errors), so stdout stays
/// clean and stderr readable. `ENTITYSTREAM_LWS_LOG=error`, `warn` or `all` shows its log
/// when debugging the transport.
enum LibWebSocketsLogging {
    private static let configured: Void = {
        let level: Int32
        switch ProcessInfo.processInfo.environment["ENTITYSTREAM_LWS_LOG"] {
        case "all": level = 0xFFFF
        case "warn": level = es_log_level_warnings()
        case "error": level = es_log_level_errors()
        default: level = 0
        }
        lws_set_log_level(level, nil)
    }()

    static func configureOnce() { _ = configured }
}
