extension Array {
    /// Releases the consumed prefix `..<head` of a FIFO kept as an array and a
    /// head index: all of it (keeping the capacity) once everything is
    /// consumed, else once the consumed part is over `threshold` entries and
    /// more than half of the array, so each entry is moved at most once on
    /// average. `head` is 0 afterwards when anything was released.
    public mutating func releaseConsumed(head: inout Int, threshold: Int = 4096) {
        if head == count {
            removeAll(keepingCapacity: true)
            head = 0
        } else if head > threshold && head * 2 > count {
            removeFirst(head)
            head = 0
        }
    }
}
