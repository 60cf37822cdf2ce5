import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MockStores
import NIOCore
import OpenCatCore
import Synchronization

/// Hands every request to the recorder (no routing: everything is forwarded).
struct MockRecorderResponder: HTTPResponder {
    typealias Context = MockRequestContext

    let recorder: MockRecorder

    func respond(to request: Request, context: MockRequestContext) async throws -> Response {
        try await recorder.forward(request)
    }
}

extension MockRecorder {
    /// The largest request body the recorder reads.
    static let maximumBodySize = 32 * 1024 * 1024

    /// Request headers that describe the hop to the proxy, not the request: never forwarded.
    static let requestHeadersNotForwarded: Set<String> = [
        "connection", "keep-alive", "proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding",
        "upgrade", "host", "content-length", "accept-encoding",
    ]

    /// Response headers that describe the upstream hop's framing: never passed back (the body is already whole and
    /// decoded).
    static let responseHeadersNotPassedBack: Set<String> = [
        "connection", "keep-alive", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade",
        "content-length", "content-encoding",
    ]

    /// Forwards one request upstream, records the exchange, and answers with the upstream's response.
    func forward(_ incoming: Request) async throws -> Response {
        var incoming = incoming
        let body = Data(try await incoming.collectBody(upTo: Self.maximumBodySize).readableBytesView)
        let target = incoming.head.path ?? "/"
        guard reserveSlot() else {
            return Self.error(
                503,
                "opencat_recorder_stopped",
                "the recorder has recorded its exchanges and is stopping"
            )
        }
        var outgoing = HTTPRequest(
            method: incoming.method,
            scheme: upstream.scheme?.lowercased() ?? "https",
            authority: upstreamAuthority,
            path: upstreamPathPrefix + target
        )
        for field in incoming.headers where !Self.requestHeadersNotForwarded.contains(field.name.canonicalName) {
            outgoing.headerFields.append(field)
        }
        let answer: HTTPTransportResponse
        do {
            answer = try await httpClient.send(outgoing, body: body.isEmpty ? nil : body, idempotent: false)
        } catch {
            state.withLock { state in
                state.reserved -= 1
                state.upstreamFailures += 1
            }
            let code = (error as? HTTPTransportError)?.code.rawValue ?? "cancelled"
            logger.error(
                "upstream did not answer",
                metadata: ["method": "\(incoming.method.rawValue)", "error": "\(code)"]
            )
            return Self.error(502, "opencat_recorder_upstream_failed", "the upstream did not answer (\(code))")
        }
        var headers = HTTPFields()
        for field in answer.head.headerFields
        where !Self.responseHeadersNotPassedBack.contains(field.name.canonicalName) {
            headers.append(field)
        }
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let exchange = RecordedExchange(
            request: MockRequest(
                method: incoming.method.rawValue,
                path: String(parts[0]),
                query: parts.count > 1 ? String(parts[1]) : nil,
                headers: incoming.headers,
                body: body,
                receivedAt: httpClient.clock.currentDate
            ),
            response: MockResponse(status: answer.status.code, headers: headers, body: answer.body)
        )
        let complete = state.withLock { state in
            state.exchanges.append(exchange)
            return maximumExchanges.map { state.exchanges.count >= $0 } ?? false
        }
        logger.debug(
            "recorded exchange",
            metadata: ["method": "\(incoming.method.rawValue)", "status": "\(answer.status.code)"]
        )
        if complete { Task { await self.stop() } }
        return Response(
            status: answer.head.status,
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: answer.body))
        )
    }

    /// Takes one of the ``maximumExchanges`` slots; `false` when all are taken (or the recorder is stopping).
    private func reserveSlot() -> Bool {
        state.withLock { state in
            guard !state.stopRequested else { return false }
            if let maximumExchanges, state.reserved >= maximumExchanges { return false }
            state.reserved += 1
            return true
        }
    }

    /// `host[:port]` of the upstream.
    var upstreamAuthority: String {
        let host = upstream.host ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return upstream.port.map { "\(bracketed):\($0)" } ?? bracketed
    }

    /// The upstream URL's path without a trailing `/` (`""` for none): prefixed to every forwarded path.
    var upstreamPathPrefix: String {
        var path = upstream.path
        while path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The recorder's own answer (not recorded): `{"error": {"type", "message"}}`.
    static func error(_ status: Int, _ type: String, _ message: String) -> Response {
        let body = JSONValue.object(["error": ["type": .string(type), "message": .string(message)]]).serialized()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(
            status: HTTPResponse.Status(code: status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body))
        )
    }
}
