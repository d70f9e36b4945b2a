/// The rule the store's open-addressing tables (``StringTable``,
/// ``TrackIndex``) share for deleting by backward shift under linear
/// probing: after emptying a position (the hole), each following entry of
/// the probe run moves back into the hole unless its home position lies
/// cyclically in (hole, next], so every entry stays reachable from its home
/// without tombstones.
enum LinearProbing {
    /// Whether the entry at `next`, whose home position is `home`, may move back into `hole`.
    @inline(__always)
    static func mayFill(hole: Int, from next: Int, home: Int) -> Bool {
        let homeAfterHole = hole <= next ? (home > hole && home <= next) : (home > hole || home <= next)
        return !homeAfterHole
    }
}
