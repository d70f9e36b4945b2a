import EntityStream
import EntityStreamCore

/// The source status of a test's control target: a status and nothing
/// else (its `json` is `{"status":…}`).
public struct FixedSourceStatus: SourceStatus {
    public var status: StreamStatus

    public init(_ status: StreamStatus) { self.status = status }
}
