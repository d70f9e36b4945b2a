import EntityStream
import EntityStreamCore
import Foundation
import EntityStreamLocking
import EntityStreamTestSupport
import Testing
import EntityStreamFiles

@Suite("File descriptor output", .bounded(.io))
struct FileDescriptorOutputTests {
    /// A reader that went away (`| head`, `| true`) is reported as a closed output, not a crash.
    @Test func closedReaderIsReportedAsClosedOutput() throws {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[1]) }
        close(ends[0])
        let output = FileDescriptorOutput(fileDescriptor: ends[1])
        #expect(throws: FileDescriptorOutput.Failure(errorNumber: EPIPE)) { try output.write("{\"event\":\"status\"}\n") }
        do {
            try output.write([UInt8](repeating: 0x20, count: 10))
            Issue.record("a write to a pipe without a reader succeeded")
        } catch {
            #expect(error.isClosedOutput)
            #expect(error.description == "Broken pipe")
        }
    }

    /// Any other failure (here a full disk) is not mistaken for a closed output and names the system's error.
    @Test func otherFailuresNameTheError() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { close(full) }
        do {
            try FileDescriptorOutput(fileDescriptor: full).write("line\n")
            Issue.record("a write to /dev/full succeeded")
        } catch {
            #expect(!error.isClosedOutput)
            #expect(error.description == "No space left on device")
        }
    }

    /// Everything given is written, in order, even more than a pipe holds at once.
    @Test func writesEveryByte() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let reader = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        // The reader blocks, so it gets a thread of its own (not one of the
        // two the test runner's tasks share).
        let received = LockedState<Data?>(nil)
        let done = NSCondition()
        Thread {
            let data = reader.readDataToEndOfFile()
            done.lock()
            received.withLock { $0 = data }
            done.signal()
            done.unlock()
        }.start()
        try FileDescriptorOutput(fileDescriptor: ends[1]).write(bytes)
        close(ends[1])
        done.lock()
        while received.withLock({ $0 }) == nil { done.wait() }
        done.unlock()
        #expect(received.withLock { $0.map(Array.init) } == bytes)
    }
}
