import Mustache

/// The portal's and the console's pages: Mustache templates (every `{{value}}` HTML-escaped), one layout they all
/// extend, a stylesheet and one small script (the copy buttons). No inline script or style: the
/// Content-Security-Policy forbids both.
enum WebTemplates {
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        for (name, text) in templates {
            // The templates are constants of this file: a parse error is a programming error caught by every test.
            try! library.register(text, named: name)
        }
        return library
    }()

    /// Renders a template with a context (a dictionary of strings, booleans, arrays of dictionaries).
    static func render(_ name: String, _ context: [String: Any]) -> String {
        library.render(context, withTemplate: name) ?? ""
    }

    static let templates: [String: String] = [
        "layout": layout,
        "message": message,
        "landing": landing,
        "portal-sign-in": portalSignIn,
        "portal-confirm": portalConfirm,
        "portal-wallet": portalWallet,
        "portal-keys": portalKeys,
        "portal-buy": portalBuy,
        "portal-share": portalShare,
        "portal-pool": portalPool,
        "console-sign-in": consoleSignIn,
        "console-overview": consoleOverview,
        "console-customers": consoleCustomers,
        "console-customer": consoleCustomer,
        "console-audit": consoleAudit,
        "console-webhooks": consoleWebhooks,
        "console-analytics": consoleAnalytics,
        "console-orders": consoleOrders,
        "console-webhook": consoleWebhook,
        "console-webhook-secret": consoleWebhookSecret,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · OpenCat</title>
        <link rel="stylesheet" href="/assets/site.css">
        <script src="/assets/site.js" defer></script>
        </head>
        <body>
        <header class="top">
        <a class="brand" href="{{home}}">OpenCat {{area}}</a>
        {{#nav}}<nav aria-label="Main"><ul>{{#links}}<li><a id="{{id}}" href="{{href}}">{{label}}</a></li>{{/links}}</ul></nav>{{/nav}}
        {{#signedIn}}<form id="sign-out" method="post" action="{{signOutAction}}"><input type="hidden" name="csrf" value="{{csrf}}"><button id="sign-out-button" type="submit">Sign out</button></form>{{/signedIn}}
        </header>
        <main id="main">
        <h1>{{title}}</h1>
        {{#notice}}<p id="notice" class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p id="error" class="error" role="alert">{{error}}</p>{{/error}}
        {{$body}}{{/body}}
        </main>
        </body>
        </html>
        """

    static let message = """
        {{<layout}}{{$body}}<p id="{{messageId}}">{{text}}</p>{{#link}}<p><a id="continue" href="{{href}}">{{label}}</a></p>{{/link}}{{/body}}{{/layout}}
        """

    static let landing = """
        {{<layout}}{{$body}}<p>This server sells and keeps keys. Start here:</p>
        <ul id="landing-links">{{#links}}<li><a id="{{id}}" href="{{href}}">{{label}}</a></li>{{/links}}</ul>{{/body}}{{/layout}}
        """

    static let portalSignIn = """
        {{<layout}}{{$body}}
        <p>Enter your email and we send you a link that signs you in. No password.</p>
        <form id="sign-in" method="post" action="/portal/sign-in">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="email">Email</label>
        <input id="email" name="email" type="email" autocomplete="email" required maxlength="254">
        <button id="send-link" type="submit">Send me a sign-in link</button>
        </form>
        {{/body}}{{/layout}}
        """

    static let portalConfirm = """
        {{<layout}}{{$body}}
        <p>Sign in as the owner of this link? It works once.</p>
        <form id="confirm" method="post" action="{{action}}">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button id="confirm-sign-in" type="submit">Sign in</button>
        </form>
        {{/body}}{{/layout}}
        """

    static let portalWallet = """
        {{<layout}}{{$body}}
        <section aria-labelledby="balance-heading">
        <h2 id="balance-heading">Balance</h2>
        <p class="big"><span id="balance">{{balance}}</span> keys</p>
        {{#debt}}<p id="debt" class="error">You owe <span>{{debt}}</span> keys after a refund: spending and sharing wait until it is paid.</p>{{/debt}}
        <p>Signed in as {{email}}.</p>
        </section>
        {{#crediting}}<section aria-labelledby="crediting-heading">
        <h2 id="crediting-heading">Paid — we are crediting your keys</h2>
        <ul id="crediting">{{#paidOrders}}<li>{{date}} · {{quantity}} × pack · {{price}} by {{store}}: {{status}}</li>{{/paidOrders}}</ul>
        </section>{{/crediting}}
        <section aria-labelledby="history-heading">
        <h2 id="history-heading">History</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="history"><table id="history">
        <thead><tr><th scope="col">Date</th><th scope="col">What</th><th scope="col">Keys</th></tr></thead>
        <tbody>{{#history}}<tr><td>{{date}}</td><td>{{kind}}</td><td class="num">{{amount}}</td></tr>{{/history}}</tbody>
        </table></div>
        {{^history}}<p>No entries yet.</p>{{/history}}
        </section>
        {{/body}}{{/layout}}
        """

    static let portalKeys = """
        {{<layout}}{{$body}}
        <section aria-labelledby="licences-heading">
        <h2 id="licences-heading">Licence keys</h2>
        <ul id="licences" class="cards">
        {{#licences}}<li><code class="licence-key">{{key}}</code> <button class="copy" type="button" data-copy="{{key}}">Copy</button><br><span>Plan {{plan}} · {{date}}{{#revoked}} · revoked{{/revoked}}</span></li>{{/licences}}
        </ul>
        {{^licences}}<p>No licence keys yet: buy a pack to get one.</p>{{/licences}}
        </section>
        <section aria-labelledby="unlocks-heading">
        <h2 id="unlocks-heading">Features unlocked</h2>
        <ul id="unlocks">{{#unlocks}}<li><strong>{{app}}</strong>: {{features}}</li>{{/unlocks}}</ul>
        {{^unlocks}}<p>No features unlocked yet.</p>{{/unlocks}}
        </section>
        {{/body}}{{/layout}}
        """

    static let portalBuy = """
        {{<layout}}{{$body}}
        <ul class="cards">
        {{#products}}<li>
        <h2>{{name}}</h2><p>{{keys}} keys · <span class="price">{{price}}</span></p>
        <form class="buy" method="post" action="/portal/buy">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="product" value="{{productId}}">
        <label for="quantity-{{productId}}">Packs</label>
        <input id="quantity-{{productId}}" name="quantity" type="number" min="1" max="10" value="1" required>
        {{#stripe}}<button id="buy-stripe-{{productId}}" name="store" value="stripe" type="submit">Pay by card (Stripe)</button>{{/stripe}}
        {{#paypal}}<button id="buy-paypal-{{productId}}" name="store" value="paypal" type="submit">Pay with PayPal</button>{{/paypal}}
        </form>
        </li>{{/products}}
        </ul>
        {{^products}}<p>Nothing is for sale on the web.</p>{{/products}}
        <p>Keys bought here reach your apps on their next sync.</p>
        {{/body}}{{/layout}}
        """

    static let portalShare = """
        {{<layout}}{{$body}}
        <p>You hold <span id="balance">{{balance}}</span> keys.</p>
        <section aria-labelledby="share-heading">
        <h2 id="share-heading">Share with someone</h2>
        <form id="share-form" method="post" action="/portal/share">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="idempotency" value="{{shareNonce}}">
        <label for="share-email">Their email</label>
        <input id="share-email" name="email" type="email" required maxlength="254">
        <label for="share-amount">Keys</label>
        <input id="share-amount" name="amount" type="number" min="1" required>
        <button id="share-button" type="submit">Share</button>
        </form>
        <p id="share-what-happens">The keys leave your wallet at once. If someone has signed in here with that address, they are in their wallet now; if not, they wait for that address, and you can take them back until its owner signs in.</p>
        </section>
        {{#hasPending}}<section aria-labelledby="pending-heading">
        <h2 id="pending-heading">Waiting for their recipient</h2>
        <ul id="pending-shares">{{#pending}}<li>{{keys}} keys for <span class="email">{{email}}</span>, shared {{date}}
        <form class="cancel-share" method="post" action="/portal/share/cancel"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="share" value="{{entry}}"><button type="submit" aria-label="Take back the {{keys}} keys for {{email}}">Take back</button></form></li>{{/pending}}</ul>
        </section>{{/hasPending}}
        <section aria-labelledby="donate-heading">
        <h2 id="donate-heading">Give to the community pool</h2>
        <form id="donate-form" method="post" action="/portal/donate">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="idempotency" value="{{donateNonce}}">
        <label for="donate-amount">Keys</label>
        <input id="donate-amount" name="amount" type="number" min="1" required>
        <button id="donate-button" type="submit">Donate</button>
        </form>
        </section>
        {{/body}}{{/layout}}
        """

    static let portalPool = """
        {{<layout}}{{$body}}
        <p class="big"><span id="pool-balance">{{total}}</span> keys in the pool, from <span id="pool-contributors">{{contributors}}</span> people.</p>
        {{/body}}{{/layout}}
        """

    static let consoleSignIn = """
        {{<layout}}{{$body}}
        <form id="operator-sign-in" method="post" action="/console/sign-in">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="operator">Operator</label>
        <input id="operator" name="operator" autocomplete="username" required maxlength="100">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required maxlength="512">
        <button id="operator-sign-in-button" type="submit">Sign in</button>
        </form>
        {{/body}}{{/layout}}
        """

    static let consoleOverview = """
        {{<layout}}{{$body}}
        <ul class="stats">
        <li>Active subscriptions (paid) <strong id="active-subscriptions">{{activeSubscriptions}}</strong></li>
        <li>Free trials <strong id="active-trials">{{activeTrials}}</strong></li>
        <li>Keys minted <strong id="keys-minted">{{keysMinted}}</strong></li>
        <li>Keys spent <strong id="keys-spent">{{keysSpent}}</strong></li>
        <li>Refunds <strong id="refund-count">{{refunds}}</strong></li>
        <li><a id="open-attention" href="/console/orders">Orders needing attention</a> <strong id="attention-count">{{attention}}</strong></li>
        </ul>
        <section aria-labelledby="revenue-heading">
        <h2 id="revenue-heading">Revenue per store per day</h2>
        {{#revenue}}<h3>{{currency}}</h3>{{{chart}}}
        <div class="scroll" tabindex="0" role="region" aria-label="revenue"><table class="revenue"><thead><tr><th scope="col">Day</th><th scope="col">Store</th><th scope="col">Revenue</th></tr></thead>
        <tbody>{{#rows}}<tr><td>{{day}}</td><td>{{store}}</td><td class="num">{{amount}}</td></tr>{{/rows}}</tbody></table></div>{{/revenue}}
        {{^revenue}}<p>No sales yet.</p>{{{emptyChart}}}{{/revenue}}
        </section>
        <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys minted and spent per day</h2>
        {{{keysChart}}}
        </section>
        <p><a id="export-ledger" href="/console/ledger.csv">Export the ledger (CSV)</a> · <a id="open-analytics" href="/console/analytics">Subscription analytics: MRR, actives, trials, churn, refunds</a></p>
        {{/body}}{{/layout}}
        """

    static let consoleCustomers = """
        {{<layout}}{{$body}}
        <form id="search" method="get" action="/console/customers" role="search">
        <label for="q">App user id, email, store transaction or order id</label>
        <input id="q" name="q" value="{{query}}" maxlength="256">
        <button id="search-button" type="submit">Find</button>
        </form>
        {{#searched}}<ul id="results">{{#results}}<li><a class="customer-link" href="/console/customers/{{path}}">{{userId}}</a> {{#email}}({{email}}){{/email}} — {{match}}</li>{{/results}}</ul>
        {{^results}}<p id="no-results">No customer matches.</p>{{/results}}{{/searched}}
        {{/body}}{{/layout}}
        """

    static let consoleCustomer = """
        {{<layout}}{{$body}}
        <p>{{#email}}Email {{email}} · {{/email}}Balance <strong id="customer-balance">{{balance}}</strong> keys</p>
        <section aria-labelledby="ent-heading"><h2 id="ent-heading">Entitlements</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="entitlements"><table id="entitlements"><thead><tr><th scope="col">Entitlement</th><th scope="col">Source</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span class="sr">Action</span></th></tr></thead>
        <tbody>{{#entitlements}}<tr><td>{{name}}</td><td>{{source}}</td><td>{{expires}}</td><td>{{state}}</td><td>{{#promotionId}}<form class="revoke" method="post" action="/console/customers/{{path}}/revoke"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="promotion" value="{{promotionId}}"><label for="revoke-reason-{{promotionId}}" class="sr">Reason</label><input id="revoke-reason-{{promotionId}}" name="reason" required maxlength="500" placeholder="Reason"><button type="submit">Revoke</button></form>{{/promotionId}}</td></tr>{{/entitlements}}</tbody></table></div>
        <form id="grant-form" method="post" action="/console/customers/{{path}}/grant">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="grant-entitlement">Entitlement</label><input id="grant-entitlement" name="entitlement" required maxlength="100">
        <label for="grant-days">Days</label><input id="grant-days" name="days" type="number" min="1" max="3650" value="7" required>
        <label for="grant-reason">Reason</label><input id="grant-reason" name="reason" required maxlength="500">
        <button id="grant-button" type="submit">Grant</button>
        </form></section>
        <section aria-labelledby="purchases-heading"><h2 id="purchases-heading">Purchases</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="purchases"><table id="purchases"><thead><tr><th scope="col">Store</th><th scope="col">Transaction</th><th scope="col">Product</th><th scope="col">Date</th><th scope="col">State</th><th scope="col"><span class="sr">Action</span></th></tr></thead>
        <tbody>{{#purchases}}<tr><td>{{store}}</td><td><code>{{transactionId}}</code></td><td>{{productId}}</td><td>{{date}}</td><td>{{state}}</td><td>{{#creditable}}<form class="credit" method="post" action="/console/customers/{{path}}/credit"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="store" value="{{store}}"><input type="hidden" name="reference" value="{{reference}}"><input type="hidden" name="reason" value="operator credit of a paid order"><button type="submit">Credit</button></form>{{/creditable}}{{#reverifiable}}<form class="reverify" method="post" action="/console/customers/{{path}}/reverify"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="store" value="{{store}}"><input type="hidden" name="transaction" value="{{transactionId}}"><input type="hidden" name="reason" value="operator re-verification"><button type="submit">Re-verify</button></form>{{/reverifiable}}{{#refundable}}<form class="refund" method="post" action="/console/customers/{{path}}/refund"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="store" value="{{store}}"><input type="hidden" name="transaction" value="{{transactionId}}"><input type="hidden" name="refundKey" value="{{refundKey}}"><label for="refund-amount-{{transactionId}}" class="sr">Amount (empty: all)</label><input id="refund-amount-{{transactionId}}" name="amount" inputmode="decimal" maxlength="20" placeholder="all"><label for="refund-reason-{{transactionId}}" class="sr">Reason</label><input id="refund-reason-{{transactionId}}" name="reason" required maxlength="500" placeholder="Reason"><button type="submit">Refund</button></form>{{/refundable}}{{#extendable}}<form class="extend" method="post" action="/console/customers/{{path}}/extend"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="store" value="{{store}}"><input type="hidden" name="transaction" value="{{transactionId}}"><label for="extend-days-{{transactionId}}" class="sr">Days to add</label><input id="extend-days-{{transactionId}}" name="days" type="number" min="1" max="90" required placeholder="days"><label for="extend-reason-{{transactionId}}" class="sr">Reason</label><input id="extend-reason-{{transactionId}}" name="reason" required maxlength="500" placeholder="Reason"><button type="submit">Extend</button></form>{{/extendable}}</td></tr>{{/purchases}}</tbody></table></div></section>
        <section aria-labelledby="ledger-heading"><h2 id="ledger-heading">Ledger</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="ledger"><table id="ledger"><thead><tr><th scope="col">Date</th><th scope="col">Kind</th><th scope="col">Reference</th><th scope="col">Keys</th></tr></thead>
        <tbody>{{#ledger}}<tr><td>{{date}}</td><td>{{kind}}</td><td>{{reference}}</td><td class="num">{{amount}}</td></tr>{{/ledger}}</tbody></table></div>
        <form id="adjust-form" method="post" action="/console/customers/{{path}}/adjust">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="adjust-amount">Keys (+ or −)</label><input id="adjust-amount" name="amount" type="number" required>
        <label for="adjust-reason">Reason</label><input id="adjust-reason" name="reason" required maxlength="500">
        <button id="adjust-button" type="submit">Adjust</button>
        </form></section>
        <section aria-labelledby="licences-heading"><h2 id="licences-heading">Licences</h2>
        <ul id="licences">{{#licences}}<li>Plan {{plan}} · {{store}} · {{date}}{{#revoked}} · revoked{{/revoked}}</li>{{/licences}}</ul></section>
        <section aria-labelledby="refunds-heading"><h2 id="refunds-heading">Refunds and clawbacks</h2>
        <ul id="refunds">{{#refunds}}<li>{{date}} · {{kind}} · {{amount}} keys · {{reference}}</li>{{/refunds}}</ul>
        {{^refunds}}<p>None.</p>{{/refunds}}</section>
        {{/body}}{{/layout}}
        """

    static let consoleAudit = """
        {{<layout}}{{$body}}
        <div class="scroll" tabindex="0" role="region" aria-label="audit"><table id="audit"><thead><tr><th scope="col">When</th><th scope="col">Operator</th><th scope="col">Action</th><th scope="col">Subject</th><th scope="col">Reason</th><th scope="col">Detail</th></tr></thead>
        <tbody>{{#records}}<tr><td>{{date}}</td><td>{{operator}}</td><td>{{action}}</td><td>{{subject}}</td><td>{{reason}}</td><td>{{detail}}</td></tr>{{/records}}</tbody></table></div>
        {{/body}}{{/layout}}
        """

    static let consoleOrders = """
        {{<layout}}{{$body}}
        <p>Web orders the buyer paid that hold no keys yet, oldest first: being credited, or refused by a rule of this server (the rule and its reason are named). Credit one from its customer's page once the cause is fixed, or refund it; it stays here until then. Each is judged by the price it was sold at, never today's.</p>
        {{#hasOrders}}<div class="scroll" tabindex="0" role="region" aria-label="orders needing attention"><table id="attention"><thead><tr><th scope="col">Ordered</th><th scope="col">Store</th><th scope="col">Order</th><th scope="col">Customer</th><th scope="col">What it was</th><th scope="col">State</th><th scope="col">Rule</th><th scope="col">Why</th></tr></thead>
        <tbody>{{#orders}}<tr><td>{{date}}</td><td>{{store}}</td><td><code>{{reference}}</code></td><td><a href="{{customerPath}}">{{customer}}</a></td><td>{{order}}</td><td>{{state}}</td><td>{{rule}}</td><td>{{detail}}</td></tr>{{/orders}}</tbody></table></div>{{/hasOrders}}
        {{^hasOrders}}<p id="no-attention">No order needs attention.</p>{{/hasOrders}}
        {{/body}}{{/layout}}
        """

    static let consoleAnalytics = """
        {{<layout}}{{$body}}
        <form id="analytics-range" method="get" action="/console/analytics">
        <label for="granularity">Per</label><select id="granularity" name="granularity">{{#granularities}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/granularities}}</select>
        <label for="from">From</label><input id="from" name="from" type="date" value="{{from}}">
        <label for="to">To</label><input id="to" name="to" type="date" value="{{to}}">
        <label for="environment">Purchases</label><select id="environment" name="environment">{{#environments}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/environments}}</select>
        <button id="analytics-button" type="submit">Show</button>
        </form>
        <p><a id="analytics-csv" href="{{csv}}">CSV</a> · <a id="analytics-json" href="{{json}}">JSON</a> (the same figures)</p>
        <p>Per store and currency, never summed across currencies. MRR: each subscription active at the period's end, its price normalised to a month. Churn rate: subscriptions that ended in the period over those active at its start. Refund rate: purchases refunded in the period over purchases made in it. Active counts paid subscriptions; free trials are counted apart and add nothing to MRR. Key packs count packs (an order of three is three); their revenue is shown as paid (gross), what was refunded in the period, and net of refunds. Production and sandbox purchases are reported apart.</p>
        {{#charts}}<section aria-labelledby="chart-{{currency}}"><h2 id="chart-{{currency}}">{{currency}}</h2><h3>MRR</h3>{{{mrr}}}<h3>Active subscriptions</h3>{{{active}}}</section>{{/charts}}
        {{^charts}}<p id="no-analytics">Nothing sold or subscribed in these periods.</p>{{/charts}}
        <section aria-labelledby="figures-heading"><h2 id="figures-heading">Figures</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="figures"><table id="analytics"><thead><tr><th scope="col">Period</th><th scope="col">Store</th><th scope="col">Currency</th><th scope="col" class="num">MRR</th><th scope="col" class="num">Active</th><th scope="col" class="num">Trials</th><th scope="col" class="num">New</th><th scope="col" class="num">Churned</th><th scope="col" class="num">Churn rate</th><th scope="col" class="num">Purchases</th><th scope="col" class="num">Refunds</th><th scope="col" class="num">Refund rate</th><th scope="col" class="num">Key packs</th><th scope="col" class="num">Key pack revenue (gross)</th><th scope="col" class="num">Key pack refunds</th><th scope="col" class="num">Key pack revenue (net of refunds)</th></tr></thead>
        <tbody>{{#rows}}<tr><td>{{period}}</td><td>{{store}}</td><td>{{currency}}</td><td class="num">{{mrr}}</td><td class="num">{{active}}</td><td class="num">{{trials}}</td><td class="num">{{new}}</td><td class="num">{{churned}}</td><td class="num">{{churnRate}}</td><td class="num">{{purchases}}</td><td class="num">{{refunds}}</td><td class="num">{{refundRate}}</td><td class="num">{{packs}}</td><td class="num">{{packRevenue}}</td><td class="num">{{packRefunds}}</td><td class="num">{{packNet}}</td></tr>{{/rows}}</tbody></table></div></section>
        <section aria-labelledby="spent-heading"><h2 id="spent-heading">Keys spent</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="keys spent"><table id="keys-spent-table"><thead><tr><th scope="col">Period</th><th scope="col" class="num">Keys spent</th></tr></thead>
        <tbody>{{#spent}}<tr><td>{{period}}</td><td class="num">{{keys}}</td></tr>{{/spent}}</tbody></table></div></section>
        {{/body}}{{/layout}}
        """

    static let consoleWebhooks = """
        {{<layout}}{{$body}}
        <p>Each endpoint receives the events it asks for, signed the Standard Webhooks way (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>) with its secret.</p>
        <div class="scroll" tabindex="0" role="region" aria-label="endpoints"><table id="endpoints"><thead><tr><th scope="col">Endpoint</th><th scope="col">App</th><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th></tr></thead>
        <tbody>{{#endpoints}}<tr><td><a href="/console/webhooks/{{path}}">{{id}}</a></td><td>{{app}}</td><td><code>{{url}}</code></td><td>{{events}}</td><td>{{state}}</td></tr>{{/endpoints}}</tbody></table></div>
        {{^endpoints}}<p id="no-endpoints">No endpoint yet.</p>{{/endpoints}}
        <section aria-labelledby="add-heading"><h2 id="add-heading">Add an endpoint</h2>
        <form id="add-endpoint" method="post" action="/console/webhooks">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="endpoint-app">App</label><input id="endpoint-app" name="app" required maxlength="100" value="default">
        <label for="endpoint-url">URL</label><input id="endpoint-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/opencat-events">
        <label for="endpoint-events">Events (comma-separated; empty: all)</label><input id="endpoint-events" name="events" maxlength="1000" placeholder="renewal, refund">
        <button id="add-endpoint-button" type="submit">Add</button>
        </form>
        <p>Event types: {{#types}}<code>{{.}}</code> {{/types}}</p></section>
        {{/body}}{{/layout}}
        """

    static let consoleWebhook = """
        {{<layout}}{{$body}}
        <p>URL <code id="endpoint-url">{{url}}</code> · app {{app}} · events {{events}} · <strong id="endpoint-state">{{state}}</strong>{{#reason}} ({{reason}}){{/reason}}</p>
        <div class="actions">
        <form id="send-test" method="post" action="/console/webhooks/{{path}}/test"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Send a test event</button></form>
        <form id="rotate-secret" method="post" action="/console/webhooks/{{path}}/rotate"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Rotate the secret</button></form>
        {{#enabled}}<form id="disable-endpoint" method="post" action="/console/webhooks/{{path}}/disable"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Turn off</button></form>{{/enabled}}
        {{^enabled}}<form id="enable-endpoint" method="post" action="/console/webhooks/{{path}}/enable"><input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Turn on</button></form>{{/enabled}}
        </div>
        <section aria-labelledby="deliveries-heading"><h2 id="deliveries-heading">Deliveries</h2>
        <div class="scroll" tabindex="0" role="region" aria-label="deliveries"><table id="deliveries"><thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">Written</th><th scope="col">State</th><th scope="col" class="num">Attempts</th><th scope="col">Next try</th><th scope="col">Last answer</th><th scope="col"><span class="sr">Action</span></th></tr></thead>
        <tbody>{{#deliveries}}<tr><td><code>{{eventId}}</code></td><td>{{type}}</td><td>{{created}}</td><td>{{state}}</td><td class="num">{{attempts}}</td><td>{{next}}</td><td>{{answer}}</td><td><form class="resend" method="post" action="/console/webhooks/{{path}}/resend"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="event" value="{{eventId}}"><button type="submit" aria-label="Resend {{eventId}}">Resend</button></form></td></tr>{{/deliveries}}</tbody></table></div>
        {{^deliveries}}<p id="no-deliveries">Nothing sent yet.</p>{{/deliveries}}</section>
        {{/body}}{{/layout}}
        """

    static let consoleWebhookSecret = """
        {{<layout}}{{$body}}
        <p id="secret-once">This is the endpoint's signing secret. It is shown once: store it with the receiver now.{{#overlap}} The old secret keeps signing too until {{overlap}}.{{/overlap}}</p>
        <p><code id="endpoint-secret">{{secret}}</code> <button type="button" class="copy" data-copy="{{secret}}">Copy</button></p>
        <p><a id="continue" href="/console/webhooks/{{path}}">Go to the endpoint</a></p>
        {{/body}}{{/layout}}
        """

    static let stylesheet = """
        :root { color-scheme: light; --ink: #1a1a1a; --muted: #4a4a4a; --accent: #0b57d0; --bg: #ffffff; --line: #d0d0d0; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: var(--bg); }
        .top { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .75rem 1rem; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
        nav ul { display: flex; flex-wrap: wrap; gap: .25rem 1rem; list-style: none; margin: 0; padding: 0; }
        a { color: var(--accent); }
        main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.6rem; margin-top: 0; overflow-wrap: anywhere; }
        form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: .75rem 0; }
        label { font-weight: 600; }
        input { font: inherit; padding: .4rem .5rem; border: 1px solid #767676; border-radius: 4px; max-width: 100%; }
        button { font: inherit; padding: .45rem .9rem; border: 0; border-radius: 4px; background: var(--accent); color: #fff; cursor: pointer; }
        #sign-out { margin: 0 0 0 auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        .scroll { overflow-x: auto; max-width: 100%; position: relative; }
        .cards { list-style: none; padding: 0; display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr)); }
        .cards > li { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow-wrap: anywhere; }
        .big { font-size: 1.4rem; }
        .notice { background: #e6f4ea; color: #0d3b1e; padding: .5rem .75rem; border-radius: 4px; }
        .error { background: #fce8e6; color: #5c0b05; padding: .5rem .75rem; border-radius: 4px; }
        .stats { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 1rem; }
        .stats li { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
        .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
        svg.chart { width: 100%; height: auto; max-width: 40rem; display: block; }
        code { overflow-wrap: anywhere; }
        """

    static let script = """
        document.addEventListener("click", function (event) {
          var button = event.target.closest("button.copy");
          if (!button || !navigator.clipboard) return;
          navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
            button.textContent = "Copied";
          });
        });
        """
}
