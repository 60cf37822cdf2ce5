import Foundation
import Hummingbird

/// `GET /`: what this server offers a person who opens it in a browser — the portal and the console (when the
/// configuration has a `portal`), the API documents and the health endpoints — and the pages' assets.
struct LandingController: WebController {
    let pages: WebPages
    /// Whether `/portal` and `/console` are served.
    let webAreas: Bool

    func addRoutes(to router: Router<ServerRequestContext>) {
        pages.addAssetRoutes(to: router)
        router.get("/") { _, _ in
            var links: [[String: String]] = []
            if webAreas {
                links.append(["id": "to-portal", "href": "/portal", "label": "Key portal: buy, share and sync keys"])
                links.append(["id": "to-console", "href": "/console", "label": "Operator console"])
            }
            links += [
                ["id": "to-keyserver-api", "href": "/openapi.yaml", "label": "Key server API (OpenAPI)"],
                ["id": "to-opencat-api", "href": "/v1/openapi.yaml", "label": "OpenCat API (OpenAPI)"],
                ["id": "to-health", "href": "/health", "label": "Health"],
                ["id": "to-ready", "href": "/ready", "label": "Readiness"],
            ]
            return render("landing", ["title": "OpenCat server", "home": "/", "area": "server", "links": links])
        }
    }
}
