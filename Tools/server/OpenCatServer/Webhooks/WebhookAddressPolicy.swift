public import Foundation
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which receiver URLs the server posts events to (SSRF): `https` to public addresses only, unless the operator
/// allows `http`, loopback and private ranges for development (`webhooks.allowPrivateNetworks`). The URL is checked
/// when an endpoint is registered and the addresses its host resolves to before every attempt; redirects are never
/// followed (the transport returns a 3xx as an answer, and an answer that is not 2xx is a failed attempt).
public struct WebhookAddressPolicy: Sendable {
    /// Whether `http`, loopback, private, link-local and other special-purpose addresses are allowed.
    public var allowPrivateNetworks: Bool
    /// Resolves a host name to its addresses (getaddrinfo off the concurrency pool by default).
    var resolve: @Sendable (String) async throws -> [String]

    /// A policy.
    public init(allowPrivateNetworks: Bool) {
        self.init(allowPrivateNetworks: allowPrivateNetworks, resolve: Self.systemResolve)
    }

    init(allowPrivateNetworks: Bool, resolve: @escaping @Sendable (String) async throws -> [String]) {
        self.allowPrivateNetworks = allowPrivateNetworks
        self.resolve = resolve
    }

    /// Why a URL is refused.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong, for the operator.
        public var message: String
        public var description: String { message }
    }

    /// Checks a URL as written: scheme, host, no credentials, and an address literal or a name that is not local.
    /// - Returns: the URL.
    public func check(_ text: String) throws(Refusal) -> URL {
        guard text.utf8.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host?.lowercased(), !host.isEmpty
        else { throw Refusal(message: "the URL must be absolute, with a host") }
        guard scheme == "https" || (scheme == "http" && allowPrivateNetworks) else {
            throw Refusal(message: "the URL must be https (http only in development mode)")
        }
        guard url.user == nil, url.password == nil else {
            throw Refusal(message: "the URL must not carry a user name or password")
        }
        guard !allowPrivateNetworks else { return url }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare == "localhost" || bare.hasSuffix(".localhost") || bare.hasSuffix(".local")
            || bare.hasSuffix(".internal")
        {
            throw Refusal(message: "the host \(bare) is local: allowed only in development mode")
        }
        if let special = Self.specialRange(bare) {
            throw Refusal(message: "the address \(bare) is \(special): allowed only in development mode")
        }
        return url
    }

    /// Checks the addresses a host resolves to right before an attempt.
    public func checkResolved(_ url: URL) async throws(Refusal) {
        guard !allowPrivateNetworks, let host = url.host else { return }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let addresses: [String]
        do { addresses = try await resolve(bare) } catch {
            throw Refusal(message: "the host \(bare) did not resolve")
        }
        guard !addresses.isEmpty else { throw Refusal(message: "the host \(bare) did not resolve") }
        for address in addresses {
            if let special = Self.specialRange(address) {
                throw Refusal(message: "the host \(bare) resolves to \(address), \(special)")
            }
        }
    }

    /// The special-purpose range an IP address literal is in (loopback, private, link-local, …), or nil for a
    /// public address or a text that is no address.
    public static func specialRange(_ text: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let bytes = withUnsafeBytes(of: v4.s_addr) { Array($0) }
            return ipv4Range(bytes)
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        return ipv6Range(withUnsafeBytes(of: v6) { Array($0) })
    }

    static func ipv4Range(_ b: [UInt8]) -> String? {
        switch (b[0], b[1]) {
        case (0, _): return "a 'this network' address"
        case (10, _), (172, 16...31), (192, 168): return "a private address"
        case (100, 64...127): return "a shared (carrier-grade NAT) address"
        case (127, _): return "a loopback address"
        case (169, 254): return "a link-local address"
        case (192, 0) where b[2] == 0: return "an IETF protocol address"
        case (198, 18...19): return "a benchmarking address"
        case (224...239, _): return "a multicast address"
        case (240...255, _): return "a reserved address"
        default: return nil
        }
    }

    static func ipv6Range(_ b: [UInt8]) -> String? {
        if b[0..<15].allSatisfy({ $0 == 0 }) { return b[15] == 1 ? "a loopback address" : "the unspecified address" }
        // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d): the IPv4 address decides.
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xff && b[11] == 0xff { return ipv4Range(Array(b[12...])) }
        if b[0..<12] == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return ipv4Range(Array(b[12...])) }
        if b[0] & 0xfe == 0xfc { return "a unique local (private) address" }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return "a link-local address" }
        if b[0] == 0xff { return "a multicast address" }
        return nil
    }

    /// getaddrinfo on NIO's thread pool (it blocks), never on the concurrency pool.
    @Sendable static func systemResolve(_ host: String) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_family = AF_UNSPEC
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
            defer { freeaddrinfo(first) }
            var addresses: [String] = []
            var cursor: UnsafeMutablePointer<addrinfo>? = first
            while let entry = cursor {
                if let address = entry.pointee.ai_addr {
                    addresses.append(numericHost(address, entry.pointee.ai_addrlen))
                }
                cursor = entry.pointee.ai_next
            }
            return addresses.filter { !$0.isEmpty }
        }
    }

    static func numericHost(_ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t) -> String {
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return ""
        }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
