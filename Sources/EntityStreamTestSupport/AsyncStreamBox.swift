/// A single-consumer mailbox for tests: one side yields values, the test
/// awaits them in order with ``next()``. Replaces sleeping and polling.
public final class AsyncStreamBox<Element: Sendable>: Sendable {
    private let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: Element.self)
    }

    public func yield(_ value: Element) { continuation.yield(value) }
    public func finish() { continuation.finish() }

    /// The next value, or nil after ``finish()``.
    public func next() async -> Element? {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next()
    }
}
