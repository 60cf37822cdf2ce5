import Foundation
import KeyServerAPI
import Testing

@testable import OpenCatServer

/// Inputs are checked where a person types them: shares to what is not an address are refused on the form and move
/// nothing; the console acts only on customers that exist and says what each action did; its errors stay in it.
struct TypedInputTests {
    @Test func emailAddressesHaveTheMailboxShape() {
        for valid in ["a@b.co", "first.last+tag@example.com", "x_y-z@mail.example.org", "o'neil@xn--bcher-kva.ch"] {
            #expect(EmailAddress.isValid(valid), "\(valid)")
        }
        let long = String(repeating: "a", count: 300) + "@example.com"
        for invalid in [
            "@", "a@", "@b", "a@b", "a@b.", "a@.b", "a..b@c.de", ".a@b.co", "a.@b.co", "a b@c.de", "a@-b.co",
            "a@b-.co", "a@b.123", "a@@b.co", long, String(repeating: "l", count: 65) + "@b.co", "\"q\"@b.co",
        ] {
            #expect(!EmailAddress.isValid(invalid), "\(invalid)")
        }
        #expect(EmailAddress.normalized("  Ada@Example.COM ") == "ada@example.com")
    }

    @Test(arguments: Backend.allCases)
    func aShareToWhatIsNotAnAddressIsRefusedOnTheFormAndMovesNothing(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            _ = try await portal.ledger.redeem(store: "stripe", transactionId: "pi_typed", userId: "user-1", amount: 5)
            let buyer = try await portal.signIn(PortalHarness.alice)
            for address in ["@", "a@", "@b", String(repeating: "a", count: 290) + "@example.com"] {
                let page = try await buyer.get("/portal/share")
                var fields = page.html.fields(form: "share-form")
                fields["email"] = address
                fields["amount"] = "1"
                let refused = try await buyer.post("/portal/share", fields)
                #expect(refused.status == 400)
                #expect(refused.html.contains(id: "share-form"), "the form is shown again for \(address)")
                #expect(refused.html.text(id: "error")?.contains("not an email address") == true)
            }
            #expect(try await portal.ledger.balance(of: "user-1") == 5)
        }
    }

    @Test(arguments: Backend.allCases)
    func theConsoleActsOnlyOnCustomersThatExistAndSaysWhatItDid(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            let console = try await portal.operatorSignIn()
            let page = try await console.get("/console/customers")
            let csrf = try #require(page.html.fields(formContaining: "name=\"csrf\"")["csrf"])
            let grant = ["csrf": csrf, "reason": "typo", "amount": "50"]
            let unknown = try await console.post("/console/customers/user-9999x/adjust", grant)
            #expect(unknown.status == 404)
            #expect(unknown.html.text(id: "error-message")?.contains("No customer has that id") == true)
            // The console's error page links back to the console, never to the buyers' portal.
            #expect(unknown.body.contains("href=\"/console\"") && !unknown.body.contains("href=\"/portal\""))
            #expect(try await portal.ledger.balance(of: "user-9999x") == 0)
            let revoke = ["csrf": csrf, "reason": "none", "promotion": "promo-that-never-was"]
            let nothing = try await console.post("/console/customers/user-1/revoke", revoke)
            #expect(nothing.location?.hasSuffix("?notice=not-revoked") == true)
        }
    }

    @Test func theLandingPageLinksThePortalTheConsoleTheDocumentsAndTheHealthEndpoints() async throws {
        try await PortalHarness.run(.sqlite) { portal in
            let landing = try await portal.browser().get("/")
            #expect(landing.status == 200)
            for id in ["to-portal", "to-console", "to-keyserver-api", "to-opencat-api", "to-health", "to-ready"] {
                #expect(landing.html.contains(id: id), "\(id)")
            }
            #expect(landing.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        }
    }
}
