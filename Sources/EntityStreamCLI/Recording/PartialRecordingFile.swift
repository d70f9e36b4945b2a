import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamModel
import EntityStreamFiles

/// The file `record` writes, kept whole: while recording, the bytes go to
/// `FILE.partial` in FILE's directory, so an existing FILE stays as it was
/// until there is a recording to replace it with.
///
/// ``write(_:)`` writes one whole batch of lines; when a write fails, the
/// file is cut back to the end of the last whole batch, so it always ends
/// with a whole line. ``finish()`` renames it onto FILE when anything was
/// written (the header comes first), and otherwise removes it. A value that
/// owns a descriptor: its owner serializes the calls and finishes it once.
struct PartialRecordingFile {
    /// What went wrong, naming the file and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// FILE: where the recording ends up.
    let path: String
    /// FILE.partial: where it is written.
    let partialPath: String
    private var descriptor: Int32
    /// Bytes of whole batches written so far.
    private(set) var bytesWritten: Int64 = 0

    /// Creates (or empties) FILE.partial; FILE itself is not touched.
    init(path: String) throws(Failure) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw Failure(description: "'\(path)' is a directory; give -o a file name")
        }
        self.path = path
        partialPath = path + ".partial"
        descriptor = open(partialPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot create '\(partialPath)': \(String(cString: strerror(errno)))")
        }
    }

    /// Writes everything `lines` holds, or nothing (the file is cut back
    /// when the write fails part-way).
    mutating func write(_ lines: JSONWriter) throws(Failure) {
        do {
            try FileDescriptorOutput(fileDescriptor: descriptor).write(lines)
            bytesWritten += Int64(lines.count)
        } catch {
            _ = ftruncate(descriptor, off_t(bytesWritten))
            _ = lseek(descriptor, off_t(bytesWritten), SEEK_SET)
            throw Failure(description: "cannot write '\(partialPath)': \(error)")
        }
    }

    /// Closes the file and renames it onto FILE when anything was written
    /// (true), or removes it, leaving FILE as it was (false). On failure
    /// what was written is left in FILE.partial, and the error says so.
    mutating func finish() throws(Failure) -> Bool {
        // EINVAL: a descriptor that cannot be synced (not a regular file); nothing was lost.
        let flushed = fsync(descriptor) == 0 || errno == EINVAL ? nil : errno
        close(descriptor)
        descriptor = -1
        guard bytesWritten > 0 else {
            unlink(partialPath)
            return false
        }
        if let flushed {
            throw Failure(description: "cannot write '\(partialPath)': \(String(cString: strerror(flushed))); what was recorded is left there")
        }
        guard rename(partialPath, path) == 0 else {
            throw Failure(description: "cannot rename '\(partialPath)' to '\(path)': \(String(cString: strerror(errno))); the recording is left in '\(partialPath)'")
        }
        return true
    }
}
