import Foundation
import NIOCore
import NIOPosix
import OpenCatServer
import Testing
import ToolsTestSupport

/// Half-sent requests and idle connections are closed after `idleTimeoutSeconds`: a client that opens connections
/// and never finishes its requests cannot hold them (the review held 3,000 for more than 30 s). In process and in the
/// built `opencat-server`, whose descriptors silent connections can never exhaust.
@Suite(.serialized)
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

    /// `GET /health` on a fresh connection: the time until a `200` arrived, or nil when none did within `limit`.
    static func health(port: Int, limit: Duration) async throws -> Duration? {
        let started = ContinuousClock.now
        return try await withThrowingTaskGroup(of: Duration?.self) { group in
            group.addTask {
                let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                    .connect(host: "127.0.0.1", port: port) { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                        }
                    }
                var answer = ""
                try? await channel.executeThenClose { inbound, outbound in
                    try await outbound.write(
                        ByteBuffer(string: "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    )
                    for try await chunk in inbound { answer += String(buffer: chunk) }
                }
                return answer.hasPrefix("HTTP/1.1 200") ? ContinuousClock.now - started : nil
            }
            group.addTask {
                try await Task.sleep(for: limit)  // sleep-ok: the ceiling raced against the answer
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The executable as an operator runs it, with 1,024 descriptors: a connection that sends nothing is closed within
    /// `idleTimeoutSeconds` + 1 s, and 1,100 silent connections leave `/health` answering (the server holds at most
    /// its connection limit open and the idle ones are closed in turn).
    @Test func theBuiltServerClosesSilentConnectionsAndKeepsAnsweringWithAThousandOpen() async throws {
        let setup = try ServerProcessTests.Setup()
        defer { setup.remove() }
        try Data(#"{"usersFile": "users.json", "idleTimeoutSeconds": 2}"#.utf8).write(to: setup.config)
        let arguments = ["--port", "0", "--database", "sqlite:" + setup.ledger.path, "--config", setup.config.path]
        try await withServerProcess(
            "/bin/sh",
            ["-c", #"ulimit -n 1024 && exec "$0" "$@""#, ServerProcess.executable.path] + arguments
        ) { _, port in
            let silent = try await Self.timeToClose(port: port, sending: "", limit: .seconds(20))
            #expect(
                silent != nil && silent! <= .seconds(3),
                "a silent connection stayed open \(String(describing: silent))"
            )

            // 1,100 connections that never send a byte, opened at once.
            let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(10))
            let opening = (0..<1_100).map { _ in bootstrap.connect(host: "127.0.0.1", port: port) }
            var open: [any Channel] = []
            for future in opening { if let channel = try? await future.get() { open.append(channel) } }
            defer { for channel in open { channel.close(promise: nil) } }
            #expect(open.count > 1_000, "only \(open.count) connections opened")
            let answered = try await Self.health(port: port, limit: .seconds(30))
            #expect(answered != nil, "/health did not answer with 1,100 silent connections open")
        }
    }
}
