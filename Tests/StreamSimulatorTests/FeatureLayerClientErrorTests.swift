import EntityStream
import EntityStreamCore
import EntityStreamTestSupport
import Foundation
import EntityStreamLocking
import StreamSimulator
import Testing
import EntityStreamTransport
import EntityStreamModel
import EntityStreamFeatures

/// The error `body` throws, as a FeatureLayerError.
private func layerError(_ body: () async throws -> Void) async -> FeatureLayerError? {
    do {
        try await body()
        return nil
    } catch let error as FeatureLayerError {
        return error
    } catch {
        Issue.record("not a FeatureLayerError: \(error)")
        return nil
    }
}

/// A layer description answer for the raw responder.
private let descriptionJSON = #"{"id":0,"name":"R","type":"Feature Layer","geometryType":"esriGeometryPoint","objectIdField":"OID","maxRecordCount":5,"advancedQueryCapabilities":{"supportsPagination":true,"supportsOrderBy":true},"fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"v","type":"esriFieldTypeInteger"}]}"#

@Suite("Feature-layer client errors", .bounded(.io))
struct FeatureLayerClientErrorTests {
    /// An unknown field surfaces the server's error JSON (400, the parameter named); the service stays connected.
    @Test func unknownFieldSurfacesServerError() async throws {
        let path = try writeTemporary(syntheticPoints(3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "L", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("L"))
        let whereError = await layerError { _ = try await allPages(client, FeatureQuery(whereClause: "wind > 3")) }
        guard case .arcGIS(let error, let operation)? = whereError else { Issue.record("\(String(describing: whereError))"); return }
        #expect(operation == "query")
        #expect(error.code == 400)
        #expect(error.details.first?.hasPrefix("'where' parameter is invalid: where clause error at position 1: unknown field 'wind'") == true)
        let fieldsError = await layerError { _ = try await allPages(client, FeatureQuery(outFields: ["seq", "wind"])) }
        #expect(fieldsError?.description.contains("'outFields' parameter is invalid: unknown field 'wind'") == true)
        #expect(await client.status == .connected)
        // A layer id the service does not have answers 404 error JSON.
        let missing = try FeatureLayerClient(layerURL: "\(server.httpBase)/arcgis/rest/services/L/MapServer/3")
        let missingError = await layerError { _ = try await missing.description() }
        guard case .arcGIS(let notFound, _)? = missingError else { Issue.record("\(String(describing: missingError))"); return }
        #expect(notFound.code == 404)
        await server.shutdown()
    }

    /// Bad dates and an end before the start are refused where they are read: the time text, and the server's `time` parameter (400 naming it).
    @Test func badDatesAndEndBeforeStart() async throws {
        #expect(throws: TimeExtentError.self) { _ = try TimeExtent.parse("2000-09-22,2000-09-01") }
        #expect(throws: TimeExtentError.self) { _ = try TimeExtent.parse("2000-02-30,2000-03-01") }
        #expect(throws: TimeExtentError.self) { _ = try TimeExtent.parse("yesterday") }
        do { _ = try TimeExtent.parse("2000-09-22,2000-09-01") } catch { #expect(error.description.contains("before the start")) }
        let path = try writeTemporary(syntheticPoints(3))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "L", path: path)])
        for time in ["969580800000,967766400000", "2000-13-01,null", "soon"] {
            let response = try await HTTPClient().get(server.layerURL("L") + "/query?f=json&time=\(PercentEncoding.encode(time))")
            #expect(response.status == 400)
            let error = try #require(ArcGISError(bytes: response.body))
            #expect(error.details.first?.hasPrefix("'time' parameter is invalid") == true, "\(error)")
        }
        let post = try await HTTPClient().postForm(server.layerURL("L") + "/query", [("f", "json"), ("time", "5,3")])
        #expect(post.status == 400)
        #expect(post.text.contains("the end 3 is before the start 5"))
        await server.shutdown()
    }

    /// A port nothing listens on fails with the transport's message and the status goes connecting → failed.
    @Test func unreachablePort() async throws {
        let closed = try ClosedPort()
        let port = closed.port
        var options = FeatureLayerClientOptions()
        options.tokenSource = StaticTokenSource("hidden-token-value")
        let statuses = LockedStatuses()
        options.onStatus = { statuses.append($0) }
        let client = try FeatureLayerClient(layerURL: "http://127.0.0.1:\(port)/arcgis/rest/services/X/MapServer/0", options: options)
        let error = await layerError { _ = try await client.count(FeatureQuery()) }
        guard case .request(.unreachable(_, let detail))? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("refused"))
        #expect(error?.description.contains("hidden-token-value") == false)
        #expect(statuses.all.map(\.status) == [.connecting, .failed])
        #expect(statuses.all.last?.error?.contains("cannot reach") == true)
        #expect(statuses.all.allSatisfy { $0.url?.contains("hidden-token-value") == false })
        #expect(await client.status == .failed)
        withExtendedLifetime(closed) {}
    }

    /// A URL answering HTML is "not an ArcGIS REST endpoint", with what it said; the token stays out of the message.
    @Test func nonArcGISEndpoint() async throws {
        var configuration = ServerConfiguration()
        configuration.httpResponder = { _ in
            HTTPServerResponse(status: 200, contentType: "text/html", text: "<!DOCTYPE html><html><body>Welcome to nginx!</body></html>")
        }
        let server = try await TransportServer.start(configuration)
        var options = FeatureLayerClientOptions()
        options.tokenSource = StaticTokenSource("hidden-token-value")
        let client = try FeatureLayerClient(layerURL: "\(server.httpBase)/some/page", options: options)
        let error = await layerError { _ = try await client.description() }
        guard case .request(.notArcGIS(_, let status, let contentType, let excerpt))? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(status == 200)
        #expect(contentType?.hasPrefix("text/html") == true)
        #expect(excerpt.contains("Welcome to nginx"))
        #expect(error?.description.hasPrefix("not an ArcGIS REST endpoint (\(server.httpBase)/some/page answered HTTP 200") == true)
        #expect(error?.description.contains("hidden-token-value") == false)
        #expect(await client.status == .failed)
        await server.shutdown()
    }

    /// A server error JSON (HTTP 500 with {"error":…}) comes out as that ArcGIS error; a URL that is a service root says to add the layer id.
    @Test func serverErrorJSONAndServiceRoot() async throws {
        let failing = try RawHTTPResponder.start { _ in
            RawHTTPResponder.response(status: 500, body: Array(#"{"error":{"code":500,"message":"Internal server error.","details":["the database is down"]}}"#.utf8))
        }
        defer { failing.stop() }
        let client = try FeatureLayerClient(layerURL: "\(failing.base)/arcgis/rest/services/X/FeatureServer/0")
        let error = await layerError { _ = try await client.description() }
        #expect(error == .arcGIS(ArcGISError(code: 500, message: "Internal server error.", details: ["the database is down"]), operation: "layer description request"))
        #expect(error?.description == "the layer description request failed: ArcGIS error 500: Internal server error. (the database is down)")

        let path = try writeTemporary(syntheticPoints(2))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "L", path: path)])
        let root = try FeatureLayerClient(layerURL: "\(server.httpBase)/arcgis/rest/services/L/FeatureServer")
        let rootError = await layerError { _ = try await root.description() }
        guard case .notALayer(_, let detail)? = rootError else { Issue.record("\(String(describing: rootError))"); return }
        #expect(detail.contains("add /<id>"))
        await server.shutdown()
    }

    /// A layer description whose fields are malformed keeps the fields' error; the layer cannot be used.
    @Test func malformedFieldsInTheDescription() async throws {
        let responder = try RawHTTPResponder.start { _ in
            RawHTTPResponder.response(body: Array(#"{"fields":[{"name":"a","type":"esriFieldTypeString"},{"type":"esriFieldTypeString"}]}"#.utf8))
        }
        defer { responder.stop() }
        let url = "\(responder.base)/arcgis/rest/services/X/FeatureServer/0"
        let client = try FeatureLayerClient(layerURL: url)
        let error = await layerError { _ = try await client.description() }
        #expect(error == .malformedFields(url: url, .field(index: 1, .fieldWithoutName)))
        #expect(error?.description == "\(url) is not a feature layer: fields[1]: a field has no name")
        #expect(await client.status == .failed)
    }

    /// A body shorter than its Content-Length, and a JSON body cut mid-feature, are reported as truncated.
    @Test func truncatedResponses() async throws {
        let page = #"{"objectIdFieldName":"OID","fields":[{"name":"OID","type":"esriFieldTypeOID"},{"name":"v","type":"esriFieldTypeInteger"}],"exceededTransferLimit":false,"features":[{"attributes":{"OID":1,"v":2}},{"attributes":{"OID":2,"v":"#
        let cutFraming = try RawHTTPResponder.start { head in
            head.contains("/query?")
                ? RawHTTPResponder.response(body: Array(page.utf8), contentLength: page.utf8.count + 300)
                : RawHTTPResponder.response(body: Array(descriptionJSON.utf8))
        }
        defer { cutFraming.stop() }
        let framed = try FeatureLayerClient(layerURL: "\(cutFraming.base)/arcgis/rest/services/X/FeatureServer/0")
        let framingError = await layerError { _ = try await allPages(framed, FeatureQuery()) }
        guard case .request(.truncated(_, let received, let expected))? = framingError else { Issue.record("\(String(describing: framingError))"); return }
        #expect(received == page.utf8.count)
        #expect(expected == page.utf8.count + 300)
        #expect(framingError?.description.contains("truncated after \(page.utf8.count) bytes of \(page.utf8.count + 300)") == true)

        let cutJSON = try RawHTTPResponder.start { head in
            RawHTTPResponder.response(body: Array((head.contains("/query?") ? page : descriptionJSON).utf8))
        }
        defer { cutJSON.stop() }
        let client = try FeatureLayerClient(layerURL: "\(cutJSON.base)/arcgis/rest/services/X/FeatureServer/0")
        let jsonError = await layerError { _ = try await allPages(client, FeatureQuery()) }
        guard case .request(.truncated(_, let bytes, _))? = jsonError else { Issue.record("\(String(describing: jsonError))"); return }
        #expect(bytes == page.utf8.count)
        #expect(await client.status == .failed)
    }

    /// A long query goes as a POST form (the token in the body, not the URL); a server that claims more but sends nothing is a clear error, not a loop.
    @Test func postFormAndBrokenPaging() async throws {
        let empty = #"{"objectIdFieldName":"OID","fields":[],"exceededTransferLimit":true,"features":[]}"#
        let responder = try RawHTTPResponder.start { head in
            RawHTTPResponder.response(body: Array((head.hasPrefix("POST") || head.contains("/query") ? empty : descriptionJSON).utf8))
        }
        defer { responder.stop() }
        var options = FeatureLayerClientOptions()
        options.tokenSource = StaticTokenSource("hidden-token-value")
        let client = try FeatureLayerClient(layerURL: "\(responder.base)/arcgis/rest/services/X/FeatureServer/0", options: options)
        let error = await layerError { _ = try await allPages(client, FeatureQuery(objectIDs: Array(1...600))) }
        guard case .request(.invalidResponse(_, let detail))? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("exceededTransferLimit"))
        let post = try #require(responder.requests.last)
        #expect(post.hasPrefix("POST /arcgis/rest/services/X/FeatureServer/0/query HTTP/1.1"))
        #expect(!post.contains("hidden-token-value"))
        #expect(responder.requests.first?.contains("token=hidden-token-value") == true)
    }

    /// A server that claims pagination but ignores resultOffset is caught on the second page instead of looping.
    @Test func serverIgnoringResultOffset() async throws {
        let page = #"{"objectIdFieldName":"OID","fields":[{"name":"OID","type":"esriFieldTypeOID"}],"exceededTransferLimit":true,"features":[{"attributes":{"OID":1}},{"attributes":{"OID":2}}]}"#
        let responder = try RawHTTPResponder.start { head in
            RawHTTPResponder.response(body: Array((head.contains("/query?") ? page : descriptionJSON).utf8))
        }
        defer { responder.stop() }
        let client = try FeatureLayerClient(layerURL: "\(responder.base)/arcgis/rest/services/X/FeatureServer/0")
        var received = 0
        let error = await layerError {
            for try await page in client.pages(FeatureQuery()) { received += page.features.count }
        }
        guard case .request(.invalidResponse(_, let detail))? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(detail.contains("ignored resultOffset"))
        #expect(received == 2)
    }

    /// Cancelling the task that iterates the pages ends the request in flight with `cancelled`.
    @Test func cancellationDuringARequest() async throws {
        let arrived = AsyncStreamBox<Void>()
        let release = AsyncStreamBox<Void>()
        var configuration = ServerConfiguration()
        configuration.httpResponder = { request in
            if request.path.hasSuffix("/query") {
                arrived.yield(())
                _ = await release.next()
            }
            return HTTPServerResponse(text: descriptionJSON)
        }
        let server = try await TransportServer.start(configuration)
        let client = try FeatureLayerClient(layerURL: "\(server.httpBase)/arcgis/rest/services/X/FeatureServer/0")
        let task = Task { try await allPages(client, FeatureQuery()) }
        _ = await arrived.next()
        task.cancel()
        let result = await task.result
        guard case .failure(let error) = result else { Issue.record("the query finished"); return }
        #expect(error as? FeatureLayerError == .request(.cancelled))
        release.yield(())
        await server.shutdown()
    }

    /// Status updates arrive on the AsyncStream too, in order.
    @Test func statusStream() async throws {
        let path = try writeTemporary(syntheticPoints(2))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let server = try await startLayers([LayerSpecification(name: "L", path: path)])
        let client = try FeatureLayerClient(layerURL: server.layerURL("L"))
        let updates = client.statusUpdates()
        var iterator = updates.makeAsyncIterator()
        #expect(try await client.count(FeatureQuery()) == 2)
        #expect(await iterator.next()?.status == .connecting)
        let connected = await iterator.next()
        #expect(connected?.status == .connected)
        #expect(connected?.url == server.layerURL("L"))
        await server.shutdown()
    }
}
