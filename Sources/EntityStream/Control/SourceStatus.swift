import EntityStreamCore
import EntityStreamModel

/// What a running source says of itself, as a value: its status in one
/// word, while a live connection retries the attempt and why the last one
/// failed, and each source's own facts (its service, file or stream,
/// counters). The terminal's progress line reads the typed members; the
/// `status` command and `serve`'s status page write ``json``.
public protocol SourceStatus: Sendable {
    /// The stream's status (`connected`, `replaying`, `consuming`, …).
    var status: StreamStatus { get }
    /// The connection attempt (0 before the first retry); nil for a source that does not connect.
    var attempt: Int? { get }
    /// Why the last connection attempt failed, if one did.
    var lastError: String? { get }
    /// The facts as the `status` command writes them, `status` first.
    var json: JSONObject { get }
}

extension SourceStatus {
    public var attempt: Int? { nil }
    public var lastError: String? { nil }
    /// Only `status`: a source with no other facts.
    public var json: JSONObject { JSONObject([("status", .string(status.description))]) }
}
