/// Groups points whose coordinates are identical (bit for bit; the input
/// already made −0 into +0), in O(n) plus small sorts: points are bucketed by
/// a coarse grid of their plane positions (identical coordinates share a
/// cell), then sorted by coordinates within each cell.
///
/// Groups are numbered in order of their first member. A value type.
struct CoincidentGroups: Sendable {
    /// The group of each point.
    let groupOf: [Int32]
    /// The first point of each group.
    let firstMember: [Int32]
    /// The number of points in each group.
    let size: [Int32]

    var count: Int { firstMember.count }

    init(x: [Double], y: [Double], e: [Double], n: [Double], monitor: HotSpotMonitor) throws {
        let count = x.count
        let bounds = PlaneBounds(e: e, n: n)
        let grid = GridGeometry(bounds: bounds,
                                cellSize: GridGeometry.cellSize(forOccupancy: 2, count: count, bounds: bounds),
                                maximumCells: max(count, 1))
        // Counting sort of point indices by cell.
        var cellOf = [Int32](repeating: 0, count: count)
        var start = [Int32](repeating: 0, count: grid.cellCount + 1)
        for i in 0..<count {
            let c = grid.cell(e[i], n[i])
            cellOf[i] = Int32(truncatingIfNeeded: c)
            start[c + 1] &+= 1
        }
        for c in 0..<grid.cellCount { start[c + 1] &+= start[c] }
        var order = [Int32](repeating: 0, count: count)
        var next = start
        for i in 0..<count {
            let c = Int(cellOf[i])
            order[Int(next[c])] = Int32(truncatingIfNeeded: i)
            next[c] &+= 1
        }
        cellOf = []
        // Within each cell: sort by (x, y) and number runs of equal coordinates.
        var provisional = [Int32](repeating: 0, count: count)
        var groups: Int32 = 0
        try x.withUnsafeBufferPointer { x in
            try y.withUnsafeBufferPointer { y in
                try order.withUnsafeMutableBufferPointer { order in
                    try provisional.withUnsafeMutableBufferPointer { provisional in
                        @inline(__always) func before(_ a: Int32, _ b: Int32) -> Bool {
                            let xa = x[Int(a)], xb = x[Int(b)]
                            return xa < xb || (xa == xb && y[Int(a)] < y[Int(b)])
                        }
                        for c in 0..<grid.cellCount {
                            if c % 65_536 == 0, monitor.shouldStop() { throw CancellationError() }
                            let lower = Int(start[c]), upper = Int(start[c + 1])
                            guard upper > lower else { continue }
                            // Insertion sort: cells hold about two points.
                            if upper - lower <= 16 {
                                var i = lower + 1
                                while i < upper {
                                    let item = order[i]
                                    var j = i
                                    while j > lower && before(item, order[j - 1]) {
                                        order[j] = order[j - 1]
                                        j -= 1
                                    }
                                    order[j] = item
                                    i += 1
                                }
                            } else {
                                var segment = UnsafeMutableBufferPointer(rebasing: order[lower..<upper])
                                segment.sort(by: before)
                            }
                            var k = lower
                            while k < upper {
                                let first = Int(order[k])
                                var m = k + 1
                                while m < upper, x[Int(order[m])] == x[first], y[Int(order[m])] == y[first] { m += 1 }
                                for j in k..<m { provisional[Int(order[j])] = groups }
                                groups += 1
                                k = m
                            }
                        }
                    }
                }
            }
        }
        // Renumber groups by first appearance.
        var renumber = [Int32](repeating: -1, count: Int(groups))
        var groupOf = [Int32](repeating: 0, count: count)
        var firstMember: [Int32] = []
        var size: [Int32] = []
        firstMember.reserveCapacity(Int(groups))
        size.reserveCapacity(Int(groups))
        for i in 0..<count {
            let p = Int(provisional[i])
            if renumber[p] < 0 {
                renumber[p] = Int32(truncatingIfNeeded: firstMember.count)
                firstMember.append(Int32(truncatingIfNeeded: i))
                size.append(0)
            }
            let g = Int(renumber[p])
            groupOf[i] = Int32(truncatingIfNeeded: g)
            size[g] &+= 1
        }
        self.groupOf = groupOf
        self.firstMember = firstMember
        self.size = size
    }
}
