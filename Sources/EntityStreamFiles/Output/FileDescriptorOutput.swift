#if canImport(Glibc)
import Glibc
#endif
import EntityStreamModel

/// Writes whole buffers to a file descriptor and reports failures as values,
/// never by trapping (unlike `FileHandle.write`).
///
/// ``write(_:)`` loops until every byte is written, retrying after `EINTR`
/// and, on a non-blocking descriptor, waiting for it to become writable after
/// `EAGAIN`. Any other failure throws ``Failure`` carrying the `errno`;
/// ``Failure/isClosedOutput`` tells a reader that went away (`EPIPE`, e.g.
/// `| head`) from a real I/O error such as a full disk. `EPIPE` is only
/// reported when the process ignores `SIGPIPE`; otherwise the signal ends the
/// process first. Does not own the descriptor (never closes it). Sendable,
/// stateless; concurrent writes to one descriptor may interleave.
public struct FileDescriptorOutput: Sendable, Hashable {
    /// Why a write failed: the `errno` of the failing call.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let errorNumber: Int32

        public init(errorNumber: Int32) {
            self.errorNumber = errorNumber
        }

        /// The reader has gone away (`EPIPE`): nothing more can be written.
        public var isClosedOutput: Bool { errorNumber == EPIPE }

        /// The system's text for the error (`strerror`), e.g. "No space left on device".
        public var description: String { String(cString: strerror(errorNumber)) }
    }

    public let fileDescriptor: Int32

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Asks for a pipe buffer of `bytes` when the descriptor is a pipe (Linux
    /// `F_SETPIPE_SZ`; the default is 64 KiB), so a writer handing over
    /// 256 KiB buffers is woken by the reader a few times per buffer rather
    /// than once per 64 KiB. Best effort: returns false when the descriptor
    /// is not a pipe or the system refuses (above `/proc/sys/fs/pipe-max-size`).
    @discardableResult
    public func enlargePipeBuffer(to bytes: Int32 = 1 << 20) -> Bool {
        var status = stat()
        guard fstat(fileDescriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFIFO else { return false }
        let setPipeSize: Int32 = 1031   // F_SETPIPE_SZ (<fcntl.h>, _GNU_SOURCE)
        return fcntl(fileDescriptor, setPipeSize, bytes) >= 0
    }

    public static let standardOutput = FileDescriptorOutput(fileDescriptor: 1)
    public static let standardError = FileDescriptorOutput(fileDescriptor: 2)

    /// Writes all of `buffer`, or throws why it could not; on failure an
    /// unknown prefix of `buffer` may have been written.
    public func write(_ buffer: UnsafeRawBufferPointer) throws(Failure) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(fileDescriptor, base + offset, buffer.count - offset)
            if written >= 0 {
                offset += written
                continue
            }
            let error = errno
            switch error {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var ready = pollfd(fd: fileDescriptor, events: Int16(POLLOUT), revents: 0)
                _ = poll(&ready, 1, -1)
            default:
                throw Failure(errorNumber: error)
            }
        }
    }

    /// Writes all of `bytes` (see ``write(_:)-(UnsafeRawBufferPointer)``).
    public func write(_ bytes: [UInt8]) throws(Failure) {
        let failure = bytes.withUnsafeBytes(attempt(_:))
        if let failure { throw failure }
    }

    /// Writes what `writer` holds, without copying it (see ``write(_:)-(UnsafeRawBufferPointer)``).
    public func write(_ writer: JSONWriter) throws(Failure) {
        let failure = writer.withUnsafeBytes(attempt(_:))
        if let failure { throw failure }
    }

    /// Writes `text` as UTF-8 (see ``write(_:)-(UnsafeRawBufferPointer)``).
    public func write(_ text: String) throws(Failure) {
        var text = text
        let failure = text.withUTF8 { attempt(UnsafeRawBufferPointer($0)) }
        if let failure { throw failure }
    }

    private func attempt(_ buffer: UnsafeRawBufferPointer) -> Failure? {
        do {
            try write(buffer)
            return nil
        } catch {
            return error
        }
    }
}
