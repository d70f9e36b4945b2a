import CLibTIFF
#if canImport(Glibc)
import Glibc
#endif

/// One open libtiff handle and the messages libtiff reported on it.
///
/// libtiff's errors and warnings for this handle go into its own buffer
/// (never to stderr); ``takeError()`` reads and clears the first error.
/// Not thread-safe: a handle (and the file position libtiff keeps in it) is
/// used from one thread at a time — the owner's confinement. Closed on deinit.
final class TIFFHandle {
    let pointer: OpaquePointer
    let path: String
    private let messages: UnsafeMutablePointer<es_tiff_messages>

    /// Opens `path` with libtiff `mode` ("r" plus "m": no memory mapping, so a
    /// file truncated while open gives a read error instead of SIGBUS; "w",
    /// "w8", "wb" … for writing). `maximumAllocation` bounds any single libtiff
    /// allocation.
    init(path: String, mode: String, maximumAllocation: Int) throws(RasterError) {
        _ = TIFFTagRegistration.ensured
        let messages = UnsafeMutablePointer<es_tiff_messages>.allocate(capacity: 1)
        es_tiff_messages_reset(messages)
        guard let pointer = es_tiff_open(path, mode, messages, tmsize_t(maximumAllocation)) else {
            let detail = String(cString: es_tiff_messages_first_error(messages))
            messages.deallocate()
            throw TIFFHandle.openError(path: path, mode: mode, detail: detail)
        }
        self.pointer = pointer
        self.path = path
        self.messages = messages
    }

    deinit {
        TIFFClose(pointer)
        messages.deallocate()
    }

    /// Classifies a failed open: missing/unreadable file, not a TIFF, or a
    /// TIFF whose header or directory cannot be read.
    private static func openError(path: String, mode: String, detail: String) -> RasterError {
        if mode.hasPrefix("r") {
            var status = stat()
            if stat(path, &status) != 0 {
                return .cannotOpen(path: path, reason: String(cString: strerror(errno)))
            }
            if (status.st_mode & S_IFMT) == S_IFDIR { return .cannotOpen(path: path, reason: "it is a directory") }
            if access(path, R_OK) != 0 { return .cannotOpen(path: path, reason: String(cString: strerror(errno))) }
            if status.st_size < 8 { return .notTIFF(path: path, detail: "\(status.st_size) bytes, shorter than a TIFF header") }
            let lower = detail.lowercased()
            if lower.contains("magic") || lower.contains("not a tiff") || lower.contains("bad version") {
                return .notTIFF(path: path, detail: detail)
            }
            return .unreadableTIFF(path: path, detail: detail.isEmpty ? "libtiff could not read it" : detail)
        }
        return .writeFailed(path: path, detail: detail.isEmpty ? "libtiff could not create it" : detail)
    }

    /// The first error libtiff reported since the last call (or open), and clears it.
    func takeError() -> String? {
        defer { es_tiff_messages_reset(messages) }
        guard messages.pointee.errors > 0 else { return nil }
        return String(cString: es_tiff_messages_first_error(messages))
    }

    /// A uint16 tag, with libtiff's default when `defaulted`.
    func uint16(_ tag: UInt32, defaulted: Bool = true) -> UInt16? {
        var value: UInt16 = 0
        let found = defaulted ? es_tiff_get_uint16_defaulted(pointer, tag, &value) : es_tiff_get_uint16(pointer, tag, &value)
        return found == 1 ? value : nil
    }

    /// A uint32 tag, with libtiff's default when `defaulted`.
    func uint32(_ tag: UInt32, defaulted: Bool = true) -> UInt32? {
        var value: UInt32 = 0
        let found = defaulted ? es_tiff_get_uint32_defaulted(pointer, tag, &value) : es_tiff_get_uint32(pointer, tag, &value)
        return found == 1 ? value : nil
    }

    /// A double-array tag registered by libgeotiff (ModelPixelScale, ModelTiepoint, ModelTransformation).
    func doubles(_ tag: UInt32) -> [Double]? {
        var count: UInt16 = 0
        var values: UnsafePointer<Double>?
        guard es_tiff_get_doubles(pointer, tag, &count, &values) == 1, let values else { return nil }
        return Array(UnsafeBufferPointer(start: values, count: Int(count)))
    }

    /// An ASCII tag registered without a count (GDAL_NODATA).
    func ascii(_ tag: UInt32) -> String? {
        var value: UnsafePointer<CChar>?
        guard es_tiff_get_ascii(pointer, tag, &value) == 1, let value else { return nil }
        return String(cString: value)
    }
}
