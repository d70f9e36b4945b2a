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
}
