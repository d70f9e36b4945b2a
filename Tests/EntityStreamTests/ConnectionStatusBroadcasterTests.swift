import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamLocking
import Testing

@Suite("Connection status: one broadcaster", .bounded)
struct ConnectionStatusBroadcasterTests {
    static func change(_ status: ConnectionStatus, _ time: Int64) -> ConnectionStatusChange {
        ConnectionStatusChange(status: status, attempt: 0, url: "http://h/MapServer/0", error: nil, time: time)
    }

    /// Every change reaches the relay before any sequence, and every sequence gets every change in order.
    @Test func relayFirstThenEverySequenceInOrder() async {
        let relayed = LockedState<[ConnectionStatusChange]>([])
        let seenByRelay = LockedState<[Int]>([])
        let broadcaster = ConnectionStatusBroadcaster { change in
            relayed.withLock { $0.append(change) }
            seenByRelay.withLock { $0.append(relayed.withLock { $0.count }) }
        }
        let first = broadcaster.updates()
        let second = broadcaster.updates()
        let changes = [Self.change(.connecting, 1), Self.change(.connected, 2), Self.change(.failed, 3)]
        var firstIterator = first.makeAsyncIterator()
        var secondIterator = second.makeAsyncIterator()
        for (index, change) in changes.enumerated() {
            await broadcaster.publish(change)
            // The relay had it (and only it, after the earlier ones) by the time publish returned.
            #expect(relayed.withLock { $0 } == Array(changes[...index]))
        }
        var a: [ConnectionStatusChange] = []
        var b: [ConnectionStatusChange] = []
        for _ in changes {
            if let next = await firstIterator.next() { a.append(next) }
            if let next = await secondIterator.next() { b.append(next) }
        }
        #expect(a == changes && b == changes)
        #expect(seenByRelay.withLock { $0 } == [1, 2, 3])
    }

    /// A sequence made after a change does not see it (changes from now on, no replay).
    @Test func aLateSequenceSeesOnlyLaterChanges() async {
        let broadcaster = ConnectionStatusBroadcaster()
        await broadcaster.publish(Self.change(.connecting, 1))
        var late = broadcaster.updates().makeAsyncIterator()
        await broadcaster.publish(Self.change(.connected, 2))
        #expect(await late.next() == Self.change(.connected, 2))
    }
}
