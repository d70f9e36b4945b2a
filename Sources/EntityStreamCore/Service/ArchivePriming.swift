/// Priming from a stream service's `keepLatestArchive` as a value: whether
/// an attempt primes, and what its outcome means for the user.
///
/// The connection actor (`StreamServiceConnection`) is its shell: before an
/// attempt's socket opens it asks ``step(episode:description:)`` and carries
/// out the answer (skip, run the archive query with `ArchivePrimer`, or
/// report the description's unusable member as an `archive` error), then
/// reports the query's ``Outcome`` to ``finished(episode:_:)``, which answers
/// the error to report, if any. Rules: an episode (one `connect()`) primes
/// once, at the first attempt whose query succeeds, so reconnects after a
/// drop never deliver the archive's rows twice per connect; a failed or
/// unusable archive is reported and the connection goes on without it
/// (the next attempt of the same episode tries again); a cancelled query
/// reports nothing. Pure.
public struct ArchivePriming: Sendable {
    /// How an archive query ended.
    public enum Outcome: Sendable, Equatable {
        /// Every page was delivered.
        case primed(count: Int, pages: Int)
        /// The query failed (the error's words, no token in them) after `delivered` observations.
        case failed(String, delivered: Int)
        case cancelled
    }

    /// What to do before an attempt's socket opens.
    public enum Step: Sendable, Equatable {
        /// Nothing: the episode primed already, or the service has no archive.
        case skip
        /// Query this archive and hand its features over as primed observations.
        case prime(KeepLatestArchive)
        /// The description's archive member is unusable: report this as an `archive` error.
        case report(String)
    }

    /// The episode whose priming succeeded.
    public private(set) var primedEpisode: Int?
    /// Primed observations delivered so far (all episodes).
    public private(set) var primedObservationCount = 0

    public init() {}

    /// What an attempt of `episode` does about the archive of `description`.
    public func step(episode: Int, description: ServiceDescription) -> Step {
        guard primedEpisode != episode else { return .skip }
        do {
            guard let archive = try description.archive() else { return .skip }
            return .prime(archive)
        } catch {
            return .report(error.description)
        }
    }

    /// The archive query of an attempt of `episode` ended: the error to report, if any.
    public mutating func finished(episode: Int, _ outcome: Outcome) -> String? {
        switch outcome {
        case .primed(let count, _):
            primedObservationCount += count
            primedEpisode = episode
            return nil
        case .failed(let message, let delivered):
            primedObservationCount += delivered
            return "priming from keepLatestArchive failed\(delivered > 0 ? " after \(delivered) observations" : ""); streaming without it: \(message)"
        case .cancelled:
            return nil
        }
    }
}
