import Foundation
import Logging
import OpenCatCore
import OpenCatServerAPI

/// Offerings: from the cache while fresh (``maxAge``), else from the backend (the server, or the store's
/// products laid out as configured), else stale from the cache when the backend cannot be reached.
struct OfferingsStore: Sendable {
    struct Stored: Codable, Sendable {
        var offerings: Offerings
        var fetchedAt: Date
    }

    let backend: Backend
    let storeClient: any StoreClient
    let cache: EncryptedCache
    let appUserId: String
    let maxAge: Duration
    let logger: Logger

    var key: String { "offerings:" + appUserId }

    /// The offerings at a device time, and the server's current time when the server answered.
    func offerings(now: Date) async throws -> (offerings: Offerings, serverTime: Date?) {
        let cached = cache.value(Stored.self, forKey: key)
        if let cached, now.timeIntervalSince(cached.fetchedAt) < maxAge.timeInterval, now >= cached.fetchedAt {
            logger.debug("offerings: fresh cache hit")
            return (cached.offerings, nil)
        }
        do {
            let fresh = try await fetch()
            do { try cache.setValue(Stored(offerings: fresh.offerings, fetchedAt: now), forKey: key) } catch {
                logger.warning("offerings could not be cached", metadata: ["error": "\(Delivery.reason(error))"])
            }
            logger.debug("offerings: fetched")
            return fresh
        } catch {
            if let cached {
                logger.info("offerings: serving stale cache", metadata: ["reason": "\(Delivery.reason(error))"])
                return (cached.offerings, nil)
            }
            if let error = error as? OpenCatError { throw error }
            throw OpenCatError.network("offerings are unavailable", underlying: error)
        }
    }

    private func fetch() async throws -> (offerings: Offerings, serverTime: Date?) {
        switch backend {
        case .server(let server):
            let response = try await server.offerings(appUserId: appUserId)
            return (response.offerings, response.requestDate)
        case .verifier(_, _, let layout):
            let products: [Product]
            do { products = try await storeClient.products(for: layout.productIds) } catch {
                throw OpenCatError.store("the store could not load products", underlying: error)
            }
            let byId = Dictionary(products.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var all: [String: Offering] = [:]
            for entry in layout.offerings {
                let packages = entry.packages.compactMap { reference in
                    byId[reference.productId].map { Package(identifier: reference.identifier, product: $0) }
                }
                all[entry.identifier] = Offering(identifier: entry.identifier, packages: packages)
            }
            return (Offerings(currentOfferingId: layout.currentOfferingId, all: all), nil)
        }
    }
}
