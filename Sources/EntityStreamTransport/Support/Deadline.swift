/// Runs an operation against a deadline, structured: the operation and a
/// timer are two child tasks of one group, and whichever ends first decides.
///
/// When the timer wins, the operation's task is cancelled (operations here
/// answer cancellation by abandoning their attempt) and ``run(within:timedOut:discard:_:)``
/// throws `timedOut`; a result the operation still produced after losing is
/// handed to `discard` (e.g. a connection that opened just too late is
/// closed), so nothing leaks. When the calling task is cancelled, the
/// operation's own answer to cancellation is what is thrown.
enum Deadline {
    private enum Outcome<Value: Sendable>: Sendable {
        case finished(Result<Value, TransportError>)
        case expired
        case timerStopped
    }

    static func run<Value: Sendable>(
        within timeout: Duration,
        timedOut: TransportError,
        discard: @escaping @Sendable (Value) async -> Void = { _ in },
        _ operation: @escaping @Sendable () async throws(TransportError) -> Value
    ) async throws(TransportError) -> Value {
        let result: Result<Value, TransportError> = await withTaskGroup(of: Outcome<Value>.self) { group in
            group.addTask {
                do throws(TransportError) { return .finished(.success(try await operation())) } catch { return .finished(.failure(error)) }
            }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return .timerStopped }
                return .expired
            }
            var decided: Result<Value, TransportError>?
            while let outcome = await group.next() {
                switch outcome {
                case .finished(let result):
                    if decided == nil {
                        decided = result
                        group.cancelAll()
                    } else if case .success(let late) = result {
                        await discard(late)
                    }
                case .expired:
                    if decided == nil {
                        decided = .failure(timedOut)
                        group.cancelAll()
                    }
                case .timerStopped:
                    break
                }
            }
            return decided ?? .failure(.cancelled)
        }
        return try result.get()
    }
}
