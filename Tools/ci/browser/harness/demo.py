"""The README's demo, run as a newcomer runs it: the commands of Tools/server/README.md's demo block (after its
`demo commands` marker), as written, with the built executables for `swift run`, a temp folder for
/tmp/opencat-demo and free ports for 8080 and 9090. Then the walk the README describes: sign in from the mail file,
buy 1 and 3 packs with Stripe and with PayPal, share to a new address, refund a purchase from the console and see
the wallet fall; every page captured at 1280 and 375 px and checked by axe."""

from __future__ import annotations

import re
import secrets
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from playwright.sync_api import BrowserContext, Page

from .http import http
from .pages import Pages
from .scenarios import (
    accessibility,
    expect,
    goto,
    read_balance,
    set_field,
    sign_in,
    sign_in_operator,
    wallet_balance,
)
from .stack import Stack, StackError, User, free_port
from .waits import CEILING, wait_until

README = Path("Tools/server/README.md")
MARKER = "<!-- demo commands"
FOLDER = "/tmp/opencat-demo"
PRODUCT = "com.example.keys.10"
PACK = 11  # the demo pack: 10 keys and 1 bonus to the buyer (1 more to the pool)


def demo_commands(readme: str) -> list[str]:
    """The shell commands of the README's demo block: continuation lines joined, comments and `&` dropped."""
    start = readme.find(MARKER)
    if start < 0:
        raise StackError(f"{README} has no '{MARKER}' block")
    block = readme[start:].split("```bash", 1)[1].split("```", 1)[0]
    commands: list[str] = []
    for line in block.replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        line = re.sub(r"\s+#.*$", "", line).strip()
        commands.append(re.sub(r"\s*&$", "", line))
    return commands


class DemoStack(Stack):
    """The demo's folder, mock and server, from the README's commands."""

    def __init__(self, bin_dir: Path, root: Path, log):
        super().__init__(bin_dir, root, "demo", None, log)
        self.demo = self.folder / "opencat-demo"
        self.mock_port = free_port()
        while self.mock_port == self.server_port:
            self.mock_port = free_port()
        self.mock_base = f"http://127.0.0.1:{self.mock_port}"
        self.mail_file = self.demo / "portal-mail.jsonl"
        self.tokens: dict[str, str] = {}
        self.demo_user = User("player-42", "demo@example.com")
        self.operator = "admin"

    def command(self, text: str) -> str:
        """A README command for this run: its folder, its ports, the built executables."""
        text = text.replace(FOLDER, str(self.demo)).replace("8080", str(self.server_port))
        text = text.replace("9090", str(self.mock_port))
        text = text.replace("swift run opencat-server", f"exec {self.bin_dir / 'opencat-server'}")
        return text.replace("swift run opencat ", f"exec {self.bin_dir / 'opencat'} ")

    def start(self) -> None:
        commands = demo_commands((self.root / README).read_text())
        if len(commands) != 3 or not all(c.startswith(("swift run", "OPENCAT_")) for c in commands):
            raise StackError(f"the README's demo block is not init, mock and server: {commands}")
        init = subprocess.run(
            ["bash", "-c", self.command(commands[0])],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=CEILING,
            env=self.environment(),
        )
        if init.returncode != 0:
            raise StackError(f"opencat-server init --demo exited with status {init.returncode}:\n{init.stderr[-2000:]}")
        for line in init.stdout.splitlines():
            match = re.match(r"(.+?),? (?:bearer )?token \(shown once\): (\S+)$", line) or re.match(
                r"(OpenCat API key) \(shown once\): (\S+)$", line
            )
            if match:
                self.tokens[match.group(1)] = match.group(2)
        self.demo_user.token = self.tokens.get("player-42", "")
        self.operator_token = self.tokens.get("console operator admin", "")
        if not (self.demo_user.token and self.operator_token):
            raise StackError("init --demo did not print player-42's and admin's tokens")
        for printed in (f"{self.base}/portal", f"{self.base}/console", str(self.mail_file)):
            if printed not in init.stdout:
                raise StackError(f"init --demo does not print {printed}")
        self.mock = self._spawn("mock", ["bash", "-c", self.command(commands[1])], cwd=self.root)
        self._wait(self.mock, f"{self.mock_base}/checkout/pay/cs_test_probe", "opencat mock serve", lambda s: s != 0)
        self.server = self._spawn("server", ["bash", "-c", self.command(commands[2])], cwd=self.root)
        self._wait(self.server, f"{self.base}/ready", "opencat-server", lambda s: s == 200)

    def _wait(self, process, url: str, what: str, answered) -> None:
        def up() -> bool | None:
            if process.popen.poll() is not None:
                raise self._exited(process, what)
            return True if answered(http("GET", url, timeout=2)[0]) else None

        if wait_until(up) is None:
            raise StackError(f"{what} did not answer {url} within {CEILING:.0f} s:\n{process.tail()}")


@dataclass
class DemoWorld:
    stack: DemoStack
    pages: Pages
    soft_failures: list[str] = field(default_factory=list)
    page: Page | None = None
    buyer: BrowserContext | None = None
    buyer_page: Page | None = None
    bought: list[tuple[str, int]] = field(default_factory=list)  # (store, packs) credited, in order

    def soft(self, message: str) -> None:
        self.soft_failures.append(message)

    def url(self, path: str) -> str:
        return self.stack.base + path


def landing(world: DemoWorld) -> None:
    """The three URLs init printed answer; `/` links the portal, the console, the API documents and health."""
    world.buyer = world.pages.new_context()
    page = world.buyer.new_page()
    world.page = page
    goto(page, world.url("/"), "/")
    hrefs = {link.get_attribute("href") for link in page.locator("a").all()}
    for href in ("/portal", "/console", "/openapi.yaml", "/health", "/ready"):
        expect(any(h and h.rstrip("/").endswith(href) for h in hrefs), f"/ does not link {href} ({sorted(hrefs)})")
    world.pages.capture(page, "landing")
    page.close()


def sign_in_buyer(world: DemoWorld) -> None:
    world.buyer_page, _ = sign_in(world, world.buyer, world.stack.demo_user, capture=True)
    expect(read_balance(world.buyer_page) == 0, "the demo wallet does not start at 0")
    world.pages.capture(world.buyer_page, "portal-wallet")


def _buy(world: DemoWorld, store: str, packs: int) -> None:
    page = world.buyer_page
    world.page = page
    before = wallet_balance(world, page)
    goto(page, world.url("/portal/buy"), "/portal/buy")
    page.locator(f"[id='quantity-{PRODUCT}']").fill(str(packs))
    if not world.bought:
        world.pages.capture(page, "portal-buy")
    page.locator(f"[id='buy-{store}-{PRODUCT}']").click()
    mock = re.escape(world.stack.mock_base)
    if store == "stripe":
        page.wait_for_url(re.compile(mock + r"/checkout/pay/"))
        world.pages.capture(page, f"mock-stripe-checkout-{packs}")
        page.click("#pay")
    else:
        page.wait_for_url(re.compile(mock + r"/checkoutnow"))
        world.pages.capture(page, f"mock-paypal-approve-{packs}")
        page.click("#approve")
    page.wait_for_url(re.compile(re.escape(world.stack.base) + r"/portal/(return/|wallet)"))
    if "/portal/return/" in page.url:
        world.pages.capture(page, f"portal-return-{store}-{packs}")
        with page.expect_navigation():
            page.locator("a#continue, a[href*='/portal/wallet']").first.click()
    page.wait_for_url(re.compile(r"/portal/wallet"))
    after = read_balance(page)
    expect(after == before + PACK * packs, f"{packs} pack(s) by {store}: #balance {after}, not {before} + {PACK * packs}")
    world.bought.append((store, packs))


def buy_packs(world: DemoWorld) -> None:
    """1 and 3 packs, by card and with PayPal; the stores' webhooks race the returns and credit nothing twice."""
    for store, packs in (("stripe", 1), ("stripe", 3), ("paypal", 1), ("paypal", 3)):
        _buy(world, store, packs)
    total = PACK * 8

    def settled() -> int | None:
        status, body = _api(world, "/api/v1/wallet/player-42")
        return body.get("balance") if status == 200 and isinstance(body, dict) else None

    expect(settled() == total, f"the API's balance is {settled()}, not {total}")
    world.pages.capture(world.buyer_page, "portal-wallet-bought")


def _api(world: DemoWorld, path: str):
    return http("GET", world.url(path), {"Authorization": f"Bearer {world.stack.demo_user.token}"})


def share_to_newcomer(world: DemoWorld) -> None:
    """Keys shared with an address nobody has used wait for it; its owner signs in and holds them."""
    page = world.buyer_page
    world.page = page
    before = wallet_balance(world, page)
    newcomer = User("newcomer", f"newcomer-{secrets.token_hex(4)}@example.com")
    goto(page, world.url("/portal/share"), "/portal/share")
    world.pages.capture(page, "portal-share")
    set_field(page, "#share-form", "email", newcomer.email)
    set_field(page, "#share-form", "amount", "5")
    with page.expect_navigation():
        page.click("#share-button")
    world.pages.capture(page, "portal-shared")
    expect(wallet_balance(world, page) == before - 5, "sharing 5 keys did not take 5 from the wallet")
    context = world.pages.new_context()
    try:
        newcomer_page, _ = sign_in(world, context, newcomer, capture=False)
        world.page = newcomer_page
        expect(read_balance(newcomer_page) == 5, f"the newcomer holds {read_balance(newcomer_page)} keys, not 5")
        world.pages.capture(newcomer_page, "portal-wallet-newcomer")
    finally:
        context.close()
        world.page = page


def refund_from_console(world: DemoWorld) -> None:
    """The operator refunds the 1-pack PayPal purchase (the share took its keys from the newest pack, the 3-pack
    PayPal one): the mock refunds the capture and the wallet falls by exactly what the pack bought."""
    before = wallet_balance(world, world.buyer_page)

    ops = world.pages.new_context()
    try:
        page = ops.new_page()
        world.page = page
        sign_in_operator(world, page)
        world.pages.capture(page, "console-overview")
        goto(page, world.url("/console/customers"), "/console/customers")
        page.fill("#q", world.stack.demo_user.email)
        with page.expect_navigation():
            page.press("#q", "Enter")
        world.pages.capture(page, "console-customers")
        page.locator("a.customer-link").first.click()
        page.wait_for_url(re.compile(r"/console/customers/"))
        world.pages.capture(page, "console-customer")
        rows = page.locator("table#ledger tbody tr").evaluate_all(
            "rows => rows.map(r => Array.from(r.cells).map(c => c.innerText.trim()))"
        )
        paypal = [r for r in rows if len(r) >= 4 and r[1] == "purchase" and r[2].startswith("paypal:")]
        target = next((r for r in paypal if r[3].lstrip("+") == str(PACK)), None)
        expect(target, f"table#ledger has no PayPal purchase of {PACK} keys ({paypal})")
        transaction = target[2].split(":", 1)[1]
        form = page.locator("form.refund").filter(has=page.locator(f"[id='refund-amount-{transaction}']"))
        expect(form.count() == 1, f"the customer page has no refund form for {transaction}")
        form.locator("[name='reason']").fill("demo: the buyer asked")
        with page.expect_navigation():
            form.locator("button[type='submit']").click()
        expect("notice=refunded" in page.url, f"the refund landed on {page.url}")
        expect(
            page.locator(f"[id='refund-amount-{transaction}']").count() == 0,
            "the refunded purchase still offers a refund",
        )
        world.pages.capture(page, "console-refunded")
    finally:
        ops.close()
        world.page = world.buyer_page

    def fallen() -> int | None:
        shown = wallet_balance(world, world.buyer_page)
        return shown if shown == before - PACK else None

    expect(wait_until(fallen) is not None, f"the wallet did not fall from {before} by {PACK} after the refund")
    world.pages.capture(world.buyer_page, "portal-wallet-refunded")


def demo_accessibility(world: DemoWorld) -> None:
    """Every page checked; the pages the server README shows (`docs/screenshots/demo-<page>.png`) are among them."""
    readme = (world.stack.root / README).read_text()
    shown = re.findall(r"docs/screenshots/demo-([a-z0-9-]+?)(?:-375)?\.png", readme)
    for name in shown:
        folder = world.stack.root / "docs" / "screenshots"
        if not any(folder.glob(f"demo-{name}.png")) and not any(folder.glob(f"demo-{name}-375.png")):
            world.soft(f"the server README shows docs/screenshots/demo-{name}.png, which is not in the repository")
    pages = ["landing", "portal-wallet", "portal-buy", "portal-share", "console-customer", "portal-wallet-refunded"]
    accessibility(world, sorted(set(pages + shown)))


DEMO_SCENARIOS = [
    ("landing", landing, []),
    ("sign-in", sign_in_buyer, ["landing"]),
    ("buy", buy_packs, ["sign-in"]),
    ("share", share_to_newcomer, ["buy"]),
    ("refund", refund_from_console, ["buy"]),
    ("accessibility", demo_accessibility, []),
]

