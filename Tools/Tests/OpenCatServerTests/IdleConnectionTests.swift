import Foundation
import NIOCore
import NIOPosix
import OpenCatServer
import Testing

/// Half-sent requests and idle connections are closed after `idleTimeoutSeconds`: a client that opens connections
/// and never finishes its requests cannot hold them (the review held 3,000 for more than 30 s).
struct IdleConnectionTests {
    let keys = ServerKeyServerTests()

    /// Sends `bytes` on a fresh connection and waits for the server to close it; the time it took, or nil when it
    /// stayed open past `limit`.
    static func timeToClose(port: Int, sending bytes: String, limit: Duration) async throws -> Duration? {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let started = ContinuousClock.now
        return try await withThrowingTaskGroup(of: Duration?.self) { group in
            group.addTask {
                // The server closing the connection ends the inbound stream, or fails a read or write on it.
                _ = try? await channel.executeThenClose { inbound, outbound in
                    if !bytes.isEmpty { try await outbound.write(ByteBuffer(string: bytes)) }
                    for try await _ in inbound {}
                }
                return ContinuousClock.now - started
            }
            // A bound on the wait, so a server that never closes fails the test instead of hanging it.
            group.addTask {
                try await Task.sleep(for: limit)  // sleep-ok: the ceiling raced against the close
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            try? await channel.channel.close()
            return first
        }
    }

    @Test func aHalfSentRequestAndAnIdleConnectionAreClosed() async throws {
        try await keys.withServer(
            .sqlite,
            configure: { ledger, clock in try ServerFixture(ledger: ledger, clock: clock, idleTimeoutSeconds: 1) }
        ) { _, urls in
            let port = urls[0].port!
            let halfSent = "POST /api/v1/wallet/spend HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{"
            let afterHalfRequest = try await Self.timeToClose(port: port, sending: halfSent, limit: .seconds(20))
            #expect(afterHalfRequest != nil, "the server kept a half-sent request open")
            let afterNothing = try await Self.timeToClose(port: port, sending: "", limit: .seconds(20))
            #expect(afterNothing != nil, "the server kept an idle connection open")
        }
    }
}
