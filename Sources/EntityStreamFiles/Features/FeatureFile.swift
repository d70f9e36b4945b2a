#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import EntityStreamFeatures

/// The one entry point that turns a feature file into a ``FeatureTable``:
/// what `stream-simulator --layer`, `entitystream statistics FILE` and
/// `entitystream hotspots FILE` use.
///
/// The format is recognised from the text (``FeatureFileFormat/sniff(_:fileName:)``)
/// unless ``FeatureLoadOptions/format`` forces one; the column mapping
/// applies to every format (x/y only to CSV). Loading is linear in the file's
/// size and holds the file's bytes plus the table. Every failure throws
/// ``FeatureLoadError`` naming the file and, when it is about one record,
/// the line; nothing is skipped silently (see ``FeatureLoadReport``).
/// Loading checks its task's cancellation as it goes: a cancelled task gets
/// ``FeatureLoadError/cancelled(file:)`` within a few thousand rows.
/// Stateless; safe from any thread.
public enum FeatureFile {
    /// Reads and loads the file at `path`.
    public static func load(path: String, options: FeatureLoadOptions = FeatureLoadOptions()) throws(FeatureLoadError) -> FeatureTable {
        let head = try head(path: path, count: 1 << 20)
        if head.size > options.maximumDocumentSize, let document = documentFormat(head.bytes, fileName: path, options: options) {
            throw tooLarge(path: path, size: head.size, format: document, limit: options.maximumDocumentSize)
        }
        let bytes = try read(path: path, limit: options.maximumFileSize)
        return try load(bytes: bytes, fileName: path, options: options)
    }

    /// Loads a file's bytes; `fileName` names it in errors and gives the
    /// table its default name (the base name without extension).
    public static func load(bytes: [UInt8], fileName: String, options: FeatureLoadOptions = FeatureLoadOptions()) throws(FeatureLoadError) -> FeatureTable {
        do {
            return try loadUncancelled(bytes: bytes, fileName: fileName, options: options)
        } catch {
            // The loaders stop early when their task is cancelled (``CancellationCheckpoint``), with whatever error came first.
            if Task.isCancelled { throw .cancelled(file: fileName) }
            throw error
        }
    }

    private static func loadUncancelled(bytes: [UInt8], fileName: String, options: FeatureLoadOptions) throws(FeatureLoadError) -> FeatureTable {
        let name = options.name ?? baseName(fileName)
        if let binary = binaryKind(bytes) {
            throw FeatureLoadError(file: fileName, .binary(kind: binary))
        }
        guard let format = options.format ?? FeatureFileFormat.sniff(bytes, fileName: fileName) else {
            throw FeatureLoadError(file: fileName, .unknownFormat)
        }
        let mapping = options.mapping
        if format != .csv, mapping.x != nil {
            throw FeatureLoadError(file: fileName, .coordinatesForNonCSV(format))
        }
        switch format {
        case .csv:
            let result = bytes.withUnsafeBufferPointer { buffer in
                Result { () throws(FeatureLoadError) in try CSVFeatureLoader.load(buffer, file: fileName, name: name, mapping: mapping) }
            }
            return try result.get()
        case .esriFeatureLines: return try EsriFeatureLoader.loadLines(bytes, file: fileName, name: name, mapping: mapping)
        case .esriFeatureArray: return try EsriFeatureLoader.loadArray(bytes, file: fileName, name: name, mapping: mapping)
        case .esriFeatureSet: return try EsriFeatureLoader.loadFeatureSet(bytes, file: fileName, name: name, mapping: mapping)
        case .geoJSON: return try GeoJSONFeatureLoader.loadDocument(bytes, file: fileName, name: name, mapping: mapping)
        case .geoJSONSeq: return try GeoJSONFeatureLoader.loadSequence(bytes, file: fileName, name: name, mapping: mapping)
        case .recording: return try EsriFeatureLoader.loadRecording(bytes, file: fileName, name: name, mapping: mapping)
        }
    }

    /// What a binary file looks like, or nil for text: known signatures
    /// (TIFF, PNG, JPEG, ZIP, gzip, PDF's binary marker aside) by name, else
    /// a NUL byte in the first 64 KiB (text formats never hold one).
    static func binaryKind(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8]) -> Bool { bytes.starts(with: prefix) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B]) {
            return "it is a TIFF image (for the cell under a point: entitystream identify FILE --at x,y)"
        }
        if starts([0x89, 0x50, 0x4E, 0x47]) { return "it is a PNG image" }
        if starts([0xFF, 0xD8, 0xFF]) { return "it is a JPEG image" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "it is a ZIP archive (unpack it first)" }
        if starts([0x1F, 0x8B]) { return "it is gzip-compressed (decompress it first: gunzip)" }
        if let zero = bytes.prefix(1 << 16).firstIndex(of: 0) { return "it holds binary data (a NUL byte at offset \(zero))" }
        return nil
    }

    /// The format of a file that is one JSON document (array, FeatureSet,
    /// FeatureCollection, or JSON that is none of the line formats) by its
    /// first bytes `head`, or nil for CSV and the line formats.
    static func documentFormat(_ head: [UInt8], fileName: String, options: FeatureLoadOptions) -> FeatureFileFormat? {
        if let forced = options.format {
            return [.esriFeatureArray, .esriFeatureSet, .geoJSON].contains(forced) ? forced : nil
        }
        if let sniffed = FeatureFileFormat.sniff(head, fileName: fileName) {
            return [.esriFeatureArray, .esriFeatureSet, .geoJSON].contains(sniffed) ? sniffed : nil
        }
        // JSON whose first line is not a whole value: a pretty-printed document.
        let first = head.drop { [0xEF, 0xBB, 0xBF, 0x20, 0x09, 0x0A, 0x0D].contains($0) }.first
        return first == UInt8(ascii: "{") ? .geoJSON : nil
    }

    /// The error for a one-document file over the limit.
    static func tooLarge(path: String, size: Int, format: FeatureFileFormat, limit: Int) -> FeatureLoadError {
        FeatureLoadError(file: path, .documentTooLarge(size: size, format: format, limit: limit))
    }

    /// The size in bytes of the regular file at `path`.
    public static func size(path: String) throws(FeatureLoadError) -> Int {
        try read(path: path, upTo: 0, limit: .max).size
    }

    /// The first `count` bytes of the file (fewer when it is shorter) and its size.
    static func head(path: String, count: Int) throws(FeatureLoadError) -> (bytes: [UInt8], size: Int) {
        try read(path: path, upTo: count, limit: .max)
    }

    /// The file's base name without its extension ("hurdat2_2000_season_flat").
    public static func baseName(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// The whole file, refusing one larger than `limit` bytes.
    static func read(path: String, limit: Int) throws(FeatureLoadError) -> [UInt8] {
        try read(path: path, upTo: .max, limit: limit).bytes
    }

    /// The file's first `count` bytes (all when it is shorter) and its
    /// size, refusing a file larger than `limit` bytes.
    private static func read(path: String, upTo count: Int, limit: Int) throws(FeatureLoadError) -> (bytes: [UInt8], size: Int) {
        func failure(_ operation: FeatureLoadError.FileOperation) -> FeatureLoadError {
            FeatureLoadError(file: path, .system(operation, errno: errno))
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure(.open) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure(.readSize) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw FeatureLoadError(file: path, .notRegularFile) }
        let size = Int(status.st_size)
        guard size <= limit else { throw FeatureLoadError(file: path, .fileTooLarge(size: size, limit: limit)) }
        let wanted = min(count, size)
        var bytes = [UInt8](repeating: 0, count: wanted)
        var filled = 0
        while filled < wanted {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, base + filled, wanted - filled)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure(.read)
            }
            if got == 0 { break }
            filled += got
        }
        if filled < wanted { bytes.removeSubrange(filled...) }
        return (bytes, size)
    }
}
