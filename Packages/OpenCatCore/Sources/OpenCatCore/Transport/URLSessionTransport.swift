public import Foundation
public import HTTPTypes
import HTTPTypesFoundation
import Synchronization

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// The production ``HTTPTransport``: one `URLSession` data task per request, cancelled with its task.
public final class URLSessionTransport: HTTPTransport, @unchecked Sendable {
    // `@unchecked`: URLSession is thread-safe but not annotated Sendable on every platform.
    private let session: URLSession
    /// Whether this transport made ``session`` (and so invalidates it when it goes away).
    private let ownsSession: Bool

    /// Creates a transport.
    /// - Parameter session: the session to use (default: an ephemeral session with no cache and no cookies that
    ///   never follows redirects). A session you pass keeps its own redirect policy: refuse them in its delegate.
    public init(session: URLSession? = nil) {
        ownsSession = session == nil
        if let session {
            self.session = session
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            // Redirects are never followed: a 3xx comes back as the response, so Authorization and API-key
            // headers never travel to another host.
            self.session = URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
        }
    }

    deinit {
        // A session keeps its delegate (and itself) alive until invalidated.
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    public func send(_ request: HTTPRequest, body: Data?) async throws -> HTTPTransportResponse {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw HTTPTransportError(.invalidRequest, "the request has no valid URL")
        }
        urlRequest.httpBody = body
        // Timeouts are enforced by HTTPClient through the injected clock; keep URLSession's own one generous.
        urlRequest.timeoutInterval = 300
        // The task, or the fact that the caller cancelled before there was one: a cancellation that arrives before
        // the task exists must still stop it (else the request would run until URLSession's own timeout).
        let taskBox = Mutex<(task: URLSessionDataTask?, cancelled: Bool)>((nil, false))
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<HTTPTransportResponse, any Error>) in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.map(error))
                        return
                    }
                    guard let httpResponse = (response as? HTTPURLResponse)?.httpResponse else {
                        continuation.resume(throwing: HTTPTransportError(.invalidResponse, "not an HTTP response"))
                        return
                    }
                    continuation.resume(returning: HTTPTransportResponse(head: httpResponse, body: data ?? Data()))
                }
                let cancelled = taskBox.withLock { box in
                    box.task = task
                    return box.cancelled
                }
                // Cancelled already: the task fails at once with NSURLErrorCancelled, mapped to CancellationError.
                if cancelled { task.cancel() }
                task.resume()
            }
        } onCancel: {
            let task = taskBox.withLock { box in
                box.cancelled = true
                return box.task
            }
            task?.cancel()
        }
    }

    private static func map(_ error: any Error) -> any Error {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain else {
            return HTTPTransportError(.connectionFailed, "transport error \(nsError.domain) \(nsError.code)")
        }
        switch nsError.code {
        case NSURLErrorCancelled: return CancellationError()
        case NSURLErrorTimedOut: return HTTPTransportError(.timeout, "the request timed out")
        case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
            return HTTPTransportError(.invalidRequest, "unsupported URL (NSURLError \(nsError.code))")
        default: return HTTPTransportError(.connectionFailed, "connection failed (NSURLError \(nsError.code))")
        }
    }
}

/// Refuses every redirect, so the 3xx response itself is returned (and no credential follows it elsewhere).
final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
