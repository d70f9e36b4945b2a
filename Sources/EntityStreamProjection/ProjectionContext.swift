import CPROJ

/// One PROJ context (`PJ_CONTEXT`) with network grids disabled and PROJ's
/// messages kept off stderr (the last error is kept for ``lastError``).
///
/// PROJ contexts are not thread-safe: a context, and every PROJ object made
/// in it, is used by one thread at a time; its owner (a
/// ``CoordinateOperation``, the catalog under its lock, a raster) confines
/// it. ``pointer`` is handed to other C libraries that take a PROJ context
/// (libgeotiff's `GTIFAttachPROJContext`) so that only this module imports
/// PROJ. Creating one opens PROJ's database lazily, on first use.
public final class ProjectionContext: @unchecked Sendable {
    /// The `PJ_CONTEXT *`, as an opaque pointer for C APIs that take one.
    public let pointer: OpaquePointer
    private let messages: UnsafeMutablePointer<es_proj_messages>

    public init() throws(ProjectionError) {
        let messages = UnsafeMutablePointer<es_proj_messages>.allocate(capacity: 1)
        guard let context = es_proj_context_create(messages) else {
            messages.deallocate()
            throw .databaseMissing(detail: "PROJ could not create a context")
        }
        pointer = context
        self.messages = messages
    }

    deinit {
        proj_context_destroy(pointer)
        messages.deallocate()
    }

    /// True when PROJ found its database (`proj.db`).
    var hasDatabase: Bool { proj_context_get_database_path(pointer) != nil }

    /// The last error PROJ logged on this context, else its errno's text.
    var lastError: String {
        let logged = String(cString: es_proj_messages_last_error(messages))
        if !logged.isEmpty { return logged }
        return String(cString: proj_context_errno_string(pointer, proj_context_errno(pointer)))
    }

    /// Forgets the last error (after a failure that was reported).
    func clearError() {
        messages.pointee.errors = 0
        messages.pointee.last_error.0 = 0
    }

    /// The CRS PROJ makes of `definition` (`EPSG:4326`, WKT, a PROJ string),
    /// or nil when it is not one (the caller destroys it).
    func crs(_ definition: String) -> OpaquePointer? {
        clearError()
        guard let object = proj_create(pointer, definition) else { return nil }
        guard proj_is_crs(object) != 0 else {
            proj_destroy(object)
            return nil
        }
        return object
    }
}

/// The PROJ library this process runs on.
public enum ProjectionLibrary {
    /// PROJ's release (`9.1.1`).
    public static var version: String { String(cString: proj_info().version) }
}
