import Foundation
import HTTPTypes
import Hummingbird
import KeyServerAPI
import NIOCore
import OpenCatCore

/// A controller of the server: a struct holding only its dependencies (repositories, the purchase desk, settings
/// values), whose `addRoutes(to:)` adds its routes to the group ``OpenCatServerApplication/router()`` made for it (with
/// that group's authenticator). The router is the one place that wires the server.
protocol ServerController: Sendable {}

extension ServerController {
    /// A JSON answer in the project's coding.
    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let data = (try? JSONCoding.encoder.encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// An error answer, the same envelope on every API of the server (KeyServerAPI's, which the OpenCat API's
    /// `ServerAPI.ErrorEnvelope` reads too); `reason` is the shared StoreAdapters code behind a refused proof.
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String, reason: String? = nil)
        -> Response
    {
        json(status, KeyServerErrorAnswer(error: .init(code: code, message: message, reason: reason)))
    }

    /// The raw body, at most ``OpenCatRequestDecoder/maximumBodyBytes`` (webhooks verify the exact bytes).
    static func rawBody(_ request: Request) async throws -> Data {
        var request = request
        do {
            let limit = OpenCatRequestDecoder.maximumBodyBytes
            return Data(try await request.collectBody(upTo: limit).readableBytesView)
        } catch {
            throw APIError(.contentTooLarge, "invalid_input", "the body is too large")
        }
    }
}

/// The `Idempotency-Key` every call that moves keys carries.
enum IdempotencyKey {
    /// The key, normalised: 1…255 visible ASCII characters, compared without case (a retry that changes the case is
    /// the same request). A key is bound to one operation and one body.
    static func required(_ request: Request) throws -> String {
        guard let key = try optional(request) else {
            throw APIError(.badRequest, "invalid_input", "an Idempotency-Key header is required")
        }
        return key
    }

    /// The key when the request carries one (purchases), normalised as ``required(_:)``.
    static func optional(_ request: Request) throws -> String? {
        guard let key = request.headers[HTTPField.Name("Idempotency-Key")!] else { return nil }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw APIError(.badRequest, "invalid_input", "an Idempotency-Key is 1 to 255 visible ASCII characters")
        }
        return key.lowercased()
    }
}
