import EntityStreamCore
import EntityStreamLocking
import EntityStreamModel

/// The current schema, shared between the task that learns it (the
/// connection or the replay) and the tasks that format output. Thread-safe.
///
/// It may run ahead of events still queued: sources only ever grow a schema
/// by appending fields (filters never reshape it), so a newer schema formats
/// older observations correctly.
public final class SchemaBox: Sendable {
    private let state: LockedState<Schema>

    public init(_ schema: Schema = Schema(fields: [])) {
        state = LockedState(schema)
    }

    public var schema: Schema {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
