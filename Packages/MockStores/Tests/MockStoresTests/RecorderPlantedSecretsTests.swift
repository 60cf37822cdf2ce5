import Foundation
import HTTPTypes
import MockStores
import MockStoresServer
import OpenCatCore
import Testing

/// A fake upstream plants one secret of every kind the project handles — LLM provider keys of each accepted shape, a
/// Steam session ticket, tokens in query strings and inside URL-valued strings and headers (`Location`, `Link`, JSON
/// `href`), the key server's licences and human keys, ChippiPay's wallet data — and a client sends more through
/// `MockRecorder`. The recordings hold none of them, and `fixtures lint`'s patterns find each shape.
struct RecorderPlantedSecretsTests {
    static let openAIProject = "sk-proj-Pl4ntedOpenAIProjectKey0123456789abcdEFGH"
    static let openAILegacy = "sk-Pl4ntedLegacyOpenAIKey0123456789abcdefGHIJKL"
    static let anthropic = "sk-ant-api03-Pl4ntedAnthropicKey0123456789abcdefghijkl-AA"
    static let googleAI = "AIzaSyPl4ntedGoogleAIKey0123456789abcde"
    static let otherProvider = "mst-Pl4ntedMistralKey-42"
    static let userToken = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkIn0.Pl4ntedSignature0123"
    static let steamTicket = String(repeating: "14000000A1B2C3D4E5F60718", count: 10)
    static let steamKey = "0123456789ABCDEF0123456789ABCDEF"
    static let sessionToken = "Pl4ntedSessionToken7782"
    static let linkToken = "Pl4ntedLinkHeaderToken991"
    static let locationTicket = "Pl4ntedLocationTicket5544"
    static let humanKey = "VUUW-PL4N-TED0-HUMA-NKEY-L2"
    static let licence = "key/Pl4ntedSignedLicence.AAAABBBBCCCC"
    static let walletKey = "0x04Pl4ntedEncryptedWalletPrivateKey0123456789"
    static let chippiSecret = "sk_live_Pl4ntedChippiPaySecretKey0123"

    /// Every planted value.
    static var planted: [String] {
        [
            openAIProject, openAILegacy, anthropic, googleAI, otherProvider, userToken, steamTicket, steamKey,
            sessionToken, linkToken, locationTicket, humanKey, licence, walletKey, chippiSecret,
        ]
    }

    /// Records `requests` sent through the recorder to an upstream that answers each with `responses`, and returns
    /// the cassette's text and report.
    static func record(
        _ store: Store,
        _ requests: [(method: HTTPRequest.Method, target: String, headers: [String: String], body: String?)],
        answers: [Cassette.Interaction]
    ) async throws -> (text: String, report: String) {
        let exchanges = try await MockStoreServer.withRunningServer(
            cassettes: [Cassette.script(store, answers)]
        ) { upstream in
            try await MockRecorder.withRunningRecorder(upstream: upstream.baseURL) { recorder in
                for request in requests {
                    let answer = try await MockRecorderTests.send(
                        request.method,
                        recorder.port,
                        request.target,
                        headers: request.headers,
                        body: request.body
                    )
                    #expect(answer.status.code == 200, "\(store) \(request.target)")
                }
                return recorder.exchanges
            }
        }
        let recording = SecretScrubber(store: store).recording(
            of: exchanges,
            scenario: "planted",
            input: .init(kind: .stripePaymentIntent, token: "planted-input"),
            expect: .verified("active")
        )
        let text = String(decoding: try recording.encoded(), as: UTF8.self)
        return (text, recording.report)
    }

    @Test func aRecordingThroughAnUpstreamPlantedWithEverySecretKeepsNone() async throws {
        let llm = try await Self.record(
            MockCredentials.llmKeysStore,
            [
                (
                    .put, "/api/v1/settings/llm-keys",
                    ["Authorization": "Bearer \(Self.userToken)", "Content-Type": "application/json"],
                    """
                    {"openai": "\(Self.openAIProject)", "anthropic": "\(Self.anthropic)", "google": "\(Self.googleAI)",
                     "mistral": "\(Self.otherProvider)"}
                    """
                ),
                (.get, "/api/v1/settings/llm-keys", ["Authorization": "Bearer \(Self.userToken)"], nil),
            ],
            answers: [
                .init(
                    request: .init(method: "PUT", path: "/api/v1/settings/llm-keys"),
                    response: .init(
                        status: 200,
                        headers: [
                            "Location": "https://keys.example/settings?ticket=\(Self.locationTicket)",
                            "Link": "<https://keys.example/next?session_token=\(Self.linkToken)>; rel=\"next\"",
                        ],
                        json: ["openai": "sk-...cdEFGH", "fallback": .string(Self.openAILegacy)]
                    )
                ),
                .init(
                    request: .init(method: "GET", path: "/api/v1/settings/llm-keys"),
                    response: .init(
                        status: 200,
                        json: [
                            "links": [["href": .string("https://keys.example/v?session_token=\(Self.sessionToken)")]],
                            "mistral": .string(Self.otherProvider),
                        ]
                    )
                ),
            ]
        )
        let steam = try await Self.record(
            .steam,
            [
                (
                    .get,
                    "/ISteamUserAuth/AuthenticateUserTicket/v1/?key=\(Self.steamKey)&appid=480&ticket=\(Self.steamTicket)",
                    [:], nil
                )
            ],
            answers: [
                .init(
                    request: .init(method: "GET", path: "/ISteamUserAuth/AuthenticateUserTicket/v1/"),
                    response: .init(status: 200, json: ["response": ["params": ["result": "OK"]]])
                )
            ]
        )
        let keyServer = try await Self.record(
            MockCredentials.keyServerStore,
            [(.get, "/api/v1/keys", ["Authorization": "Bearer \(Self.userToken)"], nil)],
            answers: [
                .init(
                    request: .init(method: "GET", path: "/api/v1/keys"),
                    response: .init(
                        status: 200,
                        json: [
                            "availableKeys": [["keyValue": .string(Self.humanKey), "license": .string(Self.licence)]]
                        ]
                    )
                )
            ]
        )
        let chippi = try await Self.record(
            MockCredentials.chippiPayStore,
            [
                (
                    .post, "/v1/wallets",
                    ["Authorization": "Bearer \(Self.chippiSecret)", "Content-Type": "application/json"],
                    #"{"encryptedPrivateKey": "\#(Self.walletKey)"}"#
                )
            ],
            answers: [
                .init(
                    request: .init(method: "POST", path: "/v1/wallets"),
                    response: .init(status: 200, json: ["wallet": ["encryptedPrivateKey": .string(Self.walletKey)]])
                )
            ]
        )
        for (name, recording) in [("llmkeys", llm), ("steam", steam), ("keyserver", keyServer), ("chippipay", chippi)] {
            for secret in Self.planted {
                #expect(!recording.text.contains(secret), "\(name) kept \(secret.prefix(12))…")
                #expect(!recording.report.contains(secret), "\(name)'s report names \(secret.prefix(12))…")
            }
        }
        #expect(llm.report.contains("an LLM provider key"))
        #expect(steam.report.contains("a Steam session ticket"))
        #expect(llm.text.contains("sk-...cdEFGH"))  // a masked key is not a secret
    }

    @Test func fixturesLintFindsEveryPlantedShape() {
        let shapes: [(String, String)] = [
            (Self.openAIProject, "an OpenAI project key"),
            (Self.openAILegacy, "an OpenAI API key"),
            (Self.anthropic, "an Anthropic API key"),
            (Self.googleAI, "a Google API key"),
            (Self.steamTicket, "a Steam session ticket"),
            ("https://keys.example/v?session_token=\(Self.sessionToken)", "a token in a URL's query"),
            (
                "/ISteamUserAuth/AuthenticateUserTicket/v1/?appid=480&ticket=\(Self.locationTicket)",
                "a token in a URL's query"
            ),
        ]
        for (text, what) in shapes {
            #expect(SecretScrubber.liveCredentials(in: "\"\(text)\"").contains(what), "\(what)")
        }
        // Placeholders, stand-ins, masked keys and the committed fixtures' made-up keys pass.
        for text in [
            "?ticket={{steam.ticket}}", "?session_token=recorded-access-token-1", "sk-...cdEFGH",
            "sk-proj-FAKEabcdefghijklmnopqrstuv123456", "sk-ant-api03-FAKEwrongfieldabcdefghijklmnopqrstuv",
        ] {
            #expect(SecretScrubber.liveCredentials(in: text).isEmpty, "\(text)")
        }
    }
}
