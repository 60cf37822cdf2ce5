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

    /// A share says what will happen; one to an address nobody has signed in with waits for it, listed with a way
    /// to take it back, which works once and only until the address's owner signs in.
    @Test(arguments: Backend.allCases)
    func aShareToANewAddressWaitsAndIsTakenBackUntilItsOwnerSignsIn(_ backend: Backend) async throws {
        try await PortalHarness.run(backend) { portal in
            _ = try await portal.ledger.redeem(store: "stripe", transactionId: "pi_wait", userId: "user-1", amount: 9)
            let buyer = try await portal.signIn(PortalHarness.alice)
            func share(_ email: String, _ keys: Int) async throws -> PortalPage {
                let page = try await buyer.get("/portal/share")
                #expect(page.html.contains(id: "share-what-happens"))
                return try await buyer.post(
                    "/portal/share",
                    page.html.fields(form: "share-form").merging(["email": email, "amount": "\(keys)"]) { $1 }
                )
            }
            #expect(try await share("newcomer@example.com", 3).location == "/portal/share?notice=shared-pending")
            #expect(try await share("later@example.com", 2).location == "/portal/share?notice=shared-pending")
            #expect(try await share(PortalHarness.bob, 1).location == "/portal/share?notice=shared")
            let listed = try await buyer.get("/portal/share?notice=shared-pending")
            #expect(listed.html.text(id: "notice")?.contains("wait") == true)
            #expect(listed.html.texts(class: "email") == ["later@example.com", "newcomer@example.com"])
            #expect(try await portal.ledger.balance(of: "user-1") == 3)

            // Taken back once: the keys return, the share leaves the list, a second post takes nothing.
            let cancel = listed.html.fields(formContaining: "newcomer@example.com")
            #expect(cancel["share"] != nil)
            let cancelled = try await buyer.post("/portal/share/cancel", cancel)
            #expect(cancelled.location == "/portal/share?notice=share-cancelled")
            #expect(try await portal.ledger.balance(of: "user-1") == 6)
            let twice = try await buyer.post("/portal/share/cancel", cancel)
            #expect(twice.location == "/portal/share?notice=share-not-cancelled")
            #expect(try await portal.ledger.balance(of: "user-1") == 6)
            let after = try await buyer.get("/portal/share")
            #expect(after.html.texts(class: "email") == ["later@example.com"])

            // Once the address's owner signs in, the keys are theirs: taking them back is refused on the page.
            let other = after.html.fields(formContaining: "later@example.com")
            let later = try await portal.signIn("later@example.com")
            #expect(try await later.get("/portal/wallet").html.text(id: "balance") == "2")
            let refused = try await buyer.post("/portal/share/cancel", other)
            #expect(refused.status == 409)
            #expect(refused.body.contains("nothing to take back"))
            #expect(try await portal.ledger.balance(of: "user-1") == 6)
            #expect(try await buyer.get("/portal/share").html.texts(class: "email").isEmpty)
            // Another user cannot take back what is not theirs.
            let bob = try await portal.signIn(PortalHarness.bob)
            let bobsForm = try await bob.get("/portal/share").html.fields(form: "share-form")
            let stolen = try await bob.post(
                "/portal/share/cancel",
                cancel.merging(["csrf": bobsForm["csrf"] ?? ""]) { $1 }
            )
            #expect(stolen.status == 404)
        }
    }
}
