#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        guard let format = options.format ?? FeatureFileFormat.sniff(bytes, fileName: fileName) else {
            throw FeatureLoadError(file: fileName, "cannot tell the format: the text starts like JSON but is not Esri features, a FeatureSet, GeoJSON or a recording (force one of \(FeatureFileFormat.names))")
        }
        let mapping = options.mapping
        if format != .csv, mapping.x != nil {
            throw FeatureLoadError(file: fileName, "x and y columns apply to CSV files only; this file is \(format.name), whose features carry their geometry")
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

    /// The file's base name without its extension ("hurdat2_2000_season_flat").
    public static func baseName(_ path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// The whole file, refusing one larger than `limit` bytes.
    static func read(path: String, limit: Int) throws(FeatureLoadError) -> [UInt8] {
        func failure(_ what: String) -> FeatureLoadError {
            FeatureLoadError(file: path, "cannot \(what): \(String(cString: strerror(errno)))")
        }
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw failure("open the file") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw failure("read the file's size") }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw FeatureLoadError(file: path, "not a regular file") }
        let size = Int(status.st_size)
        guard size <= limit else { throw FeatureLoadError(file: path, "the file has \(size) bytes, more than the limit of \(limit)") }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(descriptor, base + filled, size - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read the file")
            }
            if count == 0 { break }
            filled += count
        }
        if filled < size { bytes.removeSubrange(filled...) }
        return bytes
    }
}
