/// The distinct locations ("sites") of the analysed features, each with how
/// many features stand on it.
///
/// Coincident features have the same neighbours and, with binary weights,
/// the same Gi* (the sum over the band includes them all), so every
/// neighbour computation runs once per site and weighs a site by its
/// multiplicity. That keeps duplicates (a parked vehicle reporting the same
/// position for an hour) from turning a grid cell into an O(m²) hot spot.
struct Sites: Sendable {
    /// Plane position of each site.
    var e: [Double]
    var n: [Double]
    var u: [Double]
    /// Features at each site.
    var multiplicity: [Int32]
    /// The site of each feature.
    var siteOfFeature: [Int32]

    var count: Int { e.count }

    /// Groups features with identical input coordinates `x`, `y` (plane
    /// positions `e`, `n`, `u`, `u` empty when planar).
    init(x: [Double], y: [Double], e: [Double], n: [Double], u: [Double], monitor: HotSpotMonitor) throws {
        let groups = try CoincidentGroups(x: x, y: y, e: e, n: n, monitor: monitor)
        self.e = groups.firstMember.map { e[Int($0)] }
        self.n = groups.firstMember.map { n[Int($0)] }
        self.u = u.isEmpty ? [Double](repeating: 0, count: groups.count) : groups.firstMember.map { u[Int($0)] }
        multiplicity = groups.size
        siteOfFeature = groups.groupOf
    }

    /// Sites that are already distinct (fishnet cells, collected events): one feature each.
    init(distinctE e: [Double], n: [Double], u: [Double]) {
        self.e = e
        self.n = n
        self.u = u.isEmpty ? [Double](repeating: 0, count: e.count) : u
        multiplicity = [Int32](repeating: 1, count: e.count)
        siteOfFeature = (0..<e.count).map { Int32(truncatingIfNeeded: $0) }
    }

    var bounds: PlaneBounds { PlaneBounds(e: e, n: n) }
}
