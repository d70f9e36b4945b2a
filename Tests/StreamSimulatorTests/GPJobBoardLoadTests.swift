import EntityStreamCore
import EntityStreamTestSupport
import EntityStreamHotSpots
@testable import StreamSimulator
import Testing
import EntityStreamModel
import EntityStreamFeatures
import EntityStreamFiles

/// The simulator's job board under load: a stated number of jobs execute at
/// once, the rest wait as `esriJobWaiting` in order, and beyond the pending
/// limit a submit is refused with ArcGIS's error, so memory stays bounded.
@Suite("GP job board: bounded executing and pending jobs", .bounded)
struct GPJobBoardLoadTests {
    static func board(maximumExecuting: Int) throws -> GPJobBoard {
        var csv = "x,y\n"
        var random = SplitMix64(seed: 3)
        for _ in 0..<80 { csv += "\(random.uniform(0, 1000)),\(random.uniform(0, 1000))\n" }
        let table = try FeatureFile.load(bytes: Array(csv.utf8), fileName: "incidents.csv",
                                         options: FeatureLoadOptions(mapping: FeatureColumnMapping(wkid: 2913)))
        // Jobs execute for at least ten minutes unless cancelled: they hold their slots for the whole test.
        return GPJobBoard(task: HotSpotTask(serviceName: "Calls", table: table), delay: 0, execution: 600_000, maxRecordCount: 1000,
                          maximumExecuting: maximumExecuting, log: { _ in })
    }

    /// Waits (yielding, no sleep) until job `id` reaches `status`.
    static func reach(_ board: GPJobBoard, _ id: String, _ status: GPJobStatus) async -> Bool {
        for _ in 0..<2_000_000 {
            if await board.info(id)?.status == status { return true }
            await Task.yield()
        }
        return false
    }

    @Test func executingSlotsAndWaitingOrder() async throws {
        let board = try Self.board(maximumExecuting: 2)
        var ids: [String] = []
        for _ in 0..<4 { ids.append(try await board.submit(HotSpotTask.Request()).jobID) }
        #expect(await Self.reach(board, ids[0], .executing))
        #expect(await Self.reach(board, ids[1], .executing))
        let waiting = [await board.info(ids[2])?.status, await board.info(ids[3])?.status]
        #expect(waiting == [.waiting, .waiting])
        // A slot freed goes to the first waiting job.
        _ = await board.cancel(ids[0])
        #expect(await Self.reach(board, ids[2], .executing))
        #expect(await board.info(ids[3])?.status == .waiting)
        for id in ids { _ = await board.cancel(id) }
    }

    @Test func pendingLimitRefusesWithArcGISError() async throws {
        let board = try Self.board(maximumExecuting: 1)
        var ids: [String] = []
        for _ in 0..<GPJobBoard.maximumPending { ids.append(try await board.submit(HotSpotTask.Request()).jobID) }
        do {
            _ = try await board.submit(HotSpotTask.Request())
            Issue.record("a submit beyond the pending limit was accepted")
        } catch {
            #expect(error.code == 503 && error.message.contains("Too many jobs"))
        }
        // Finished jobs make room again.
        _ = await board.cancel(ids[5])
        #expect(await Self.reach(board, ids[5], .cancelled))
        _ = try await board.submit(HotSpotTask.Request())
        for id in ids { _ = await board.cancel(id) }
    }
}
