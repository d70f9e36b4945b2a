import EntityStreamCore
import Foundation

/// How a replay is paced.
public enum ReplayPacing: Sendable, Hashable {
    /// As fast as the pipeline takes it.
    case asFastAsPossible
    /// A fixed pause between messages (like Esri's samples, 10 ms).
    case interval(milliseconds: Int64)
    /// A recording's own timing, sped up by the factor.
    case recordedTiming(speed: Double)
}
