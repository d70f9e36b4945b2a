#if canImport(Glibc)
import Glibc
#endif
import EntityStreamTestSupport
import Testing

/// The guard every command-line test relies on: a child that hangs is
/// killed after its lifetime, so the test's blocking reads end and it fails
/// instead of hanging the run (a time limit cannot interrupt a blocking read).
@Suite("Child processes in tests", .bounded(.io))
struct ChildWatchdogTests {
    /// A child still running after its lifetime is killed: its stdout ends and its status is SIGKILL's.
    @Test func hungChildIsKilled() throws {
        let child = try ChildProcess("/bin/sleep", ["600"], input: .null, lifetime: .milliseconds(300))
        #expect(ChildProcess.read(child.standardOutput).isEmpty)
        #expect(child.wait() == 128 + 9)
    }

    /// A child that ends within its lifetime keeps its own status, however long the test then holds it.
    @Test func childEndingInTimeKeepsItsStatus() throws {
        let child = try ChildProcess("/bin/sh", ["-c", "exit 3"], input: .null, lifetime: .seconds(30))
        #expect(child.wait() == 3)
        #expect(!child.isRunning)
        let running = try ChildProcess("/bin/sh", ["-c", "read line; exit 4"], lifetime: .seconds(30))
        #expect(running.isRunning)
        running.closeInput()
        #expect(running.wait() == 4)
    }
    /// A child starts as a shell would start it, whatever the spawning thread
    /// blocks or the test process ignores: a shell started with SIGTERM
    /// blocked never ended when a test told it to.
    @Test func childStartsWithNoSignalBlockedOrIgnored() throws {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGUSR2)
        sigaddset(&blocked, SIGTERM)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        let child = Result { try ChildProcess("/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"], input: .null) }
        pthread_sigmask(SIG_SETMASK, &previous, nil)
        let started = try child.get()
        let lines = String(decoding: ChildProcess.read(started.standardOutput), as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(started.wait() == 0)
        #expect(lines.map { $0.first ?? "" } == ["SigBlk:", "SigIgn:"])
        // Signals 1-31; glibc keeps 32 and 33 for itself, and no spawn attribute reaches them.
        for line in lines { #expect(line.last.flatMap { UInt64($0, radix: 16) }.map { $0 & 0x7FFF_FFFF } == 0, "\(line)") }
    }
}
