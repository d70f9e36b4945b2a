import EntityStreamCore
import Foundation
import EntityStreamModel

/// How long the fuzz tests run, and with which seeds.
///
/// Unset environment (a normal `swift test`, `make test`): each fuzz test
/// runs its fixed seeds only, a few seconds in a debug build, the same
/// rounds on every run. `ENTITYSTREAM_FUZZ_SECONDS=N` (what `make fuzz`
/// sets): after the fixed seeds, fresh seeds (derived from the wall clock
/// when the process starts, and printed) until N seconds have passed since
/// the first round. `ENTITYSTREAM_FUZZ_SEED=S` (decimal or `0x…` hex): run
/// exactly that seed, to replay a failure; every failure message of a fuzz
/// test names its seed. Reading the environment is all this type does; it
/// holds no mutable state and is safe from any thread.
public enum FuzzRounds {
    public static let secondsVariable = "ENTITYSTREAM_FUZZ_SECONDS"
    public static let seedVariable = "ENTITYSTREAM_FUZZ_SEED"

    /// The requested fuzzing time, when set to a positive number of seconds.
    public static let seconds: Double? = {
        guard let text = ProcessInfo.processInfo.environment[secondsVariable],
              let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite, value > 0 else { return nil }
        return min(value, 7 * 24 * 3600)
    }()

    /// The one seed to replay, when given.
    public static let replaySeed: UInt64? = {
        guard let text = ProcessInfo.processInfo.environment[seedVariable]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            return nil
        }
        if text.lowercased().hasPrefix("0x") { return UInt64(text.dropFirst(2), radix: 16) }
        return UInt64(text)
    }()

    /// A fuzz suite's time limit per test (see ``BoundedTest``): the standard
    /// limit in normal runs; with ``seconds`` set, the time asked plus that.
    public static var timeLimit: Duration {
        guard let seconds else { return BoundedTest.standardLimit }
        return .seconds(seconds) + BoundedTest.standardLimit
    }

    /// Where the fresh seeds of this process start (printed once per test).
    static let freshBase: UInt64 = {
        var mixer = SplitMix64(seed: UInt64(truncatingIfNeeded: Int64(Date().timeIntervalSince1970 * 1e6)) ^ UInt64(getpid()))
        return mixer.next()
    }()

    /// Calls `round` with each seed to run: `fixed` (or only the replay
    /// seed), then, when fuzzing for ``seconds``, fresh seeds until the time
    /// is up. Returns how many rounds ran. `name` labels the stderr summary.
    /// It yields between rounds, so that fuzz tests running in parallel on
    /// few cores share them instead of one starving the others.
    @discardableResult
    public static func run(_ name: String, fixed: [UInt64], _ round: (UInt64) async throws -> Void) async rethrows -> Int {
        if let replaySeed {
            try await round(replaySeed)
            return 1
        }
        let start = Date()
        for seed in fixed {
            try await round(seed)
            await Task.yield()
        }
        guard let seconds else { return fixed.count }
        var rounds = fixed.count
        var seeds = SplitMix64(seed: freshBase ^ UInt64(truncatingIfNeeded: name.hashValue))
        while Date().timeIntervalSince(start) < seconds {
            try await round(seeds.next())
            rounds += 1
            await Task.yield()
        }
        report(name, rounds: rounds, since: start)
        return rounds
    }

    /// The seed as failure messages print it (and ``seedVariable`` reads it).
    public static func label(_ seed: UInt64) -> String {
        "seed 0x" + String(seed, radix: 16) + " (replay: \(seedVariable)=0x\(String(seed, radix: 16)))"
    }

    private static func report(_ name: String, rounds: Int, since start: Date) {
        let elapsed = Date().timeIntervalSince(start)
        FileHandle.standardError.write(Data("fuzz: \(name): \(rounds) rounds in \(Int(elapsed.rounded())) s\n".utf8))
    }
}
