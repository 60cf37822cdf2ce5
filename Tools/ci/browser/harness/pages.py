"""Chromium through Playwright, and what every page visit records: a full-page screenshot at desktop width and at
375 px, axe's serious and critical violations at both widths, and horizontal overflow at 375 px."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
BLOCKING_IMPACTS = {"serious", "critical"}


# The outermost elements whose right edge passes the viewport (at most 3), named like `table#id.class`.
WIDEST_SCRIPT = """(width) => {
    const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
        (typeof e.className === 'string' && e.className.trim() ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
    const found = [];
    for (const e of document.body.querySelectorAll('*')) {
        if (e.getBoundingClientRect().right <= width + 0.5) continue;
        if (found.some((f) => f.contains(e))) continue;
        found.push(e);
    }
    return found.slice(0, 3).map((e) => {
        const section = e.closest('section[id], main, form[id]');
        return (section && section !== e ? name(section) + ' ' : '') + name(e);
    });
}"""


@dataclass
class Capture:
    """One page, as captured."""

    name: str
    url: str
    problems: list[str] = field(default_factory=list)


class Pages:
    """Captures pages into the artifacts folder and keeps their accessibility findings."""

    def __init__(self, browser: Browser, artifacts: Path, database: str):
        self.browser = browser
        self.artifacts = artifacts
        self.database = database
        self.axe = Axe()
        self.captures: dict[str, Capture] = {}

    def new_context(self) -> BrowserContext:
        context = self.browser.new_context(viewport=DESKTOP, locale="en-US")
        # Generous, for a loaded one-core machine (docs/TESTING.md): an action or a page that never comes fails at these.
        context.set_default_timeout(60_000)
        context.set_default_navigation_timeout(90_000)
        return context

    def capture(self, page: Page, name: str) -> Capture:
        """Screenshots the page at both widths and checks it with axe; problems are kept, not raised, so a
        scenario goes on (the accessibility scenario reports them)."""
        page.wait_for_load_state("load")
        capture = Capture(name, page.url)
        self.captures[name] = capture
        for width, suffix in ((DESKTOP, ""), (PHONE, "-375")):
            page.set_viewport_size(width)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            label = f"{name} at {width['width']} px"
            try:
                page.screenshot(path=str(self.artifacts / f"{self.database}-{name}{suffix}.png"), full_page=True)
            except Exception as error:  # noqa: BLE001 — a screenshot failure is a finding, not a crash
                capture.problems.append(f"{label}: no screenshot ({first_line(error)})")
            capture.problems.extend(self._axe(page, label))
            if width is PHONE:
                scroll = page.evaluate("document.documentElement.scrollWidth")
                if scroll > PHONE["width"]:
                    wide = page.evaluate(WIDEST_SCRIPT, PHONE["width"])
                    capture.problems.append(
                        f"{label}: scrolls sideways (scrollWidth {scroll} > 375; too wide: {', '.join(wide) or '?'})"
                    )
        page.set_viewport_size(DESKTOP)
        return capture

    def _axe(self, page: Page, label: str) -> list[str]:
        try:
            results = self.axe.run(page)
        except Exception as error:  # noqa: BLE001
            return [f"{label}: axe did not run ({first_line(error)})"]
        problems = []
        for violation in results.response.get("violations", []):
            if violation.get("impact") not in BLOCKING_IMPACTS:
                continue
            targets = [" ".join(map(str, node.get("target", []))) for node in violation.get("nodes", [])]
            shown = ", ".join(targets[:3]) + (f" (+{len(targets) - 3})" if len(targets) > 3 else "")
            problems.append(f"{label}: axe {violation['id']} ({violation['impact']}): {violation['help']} — {shown}")
        return problems


def first_line(error: BaseException) -> str:
    """An exception's first meaningful line (Playwright's messages carry a call log after it)."""
    text = str(error).strip() or type(error).__name__
    line = text.splitlines()[0]
    return re.sub(r"\s+", " ", line)[:300]


def chromium_arguments() -> list[str]:
    arguments = ["--no-proxy-server", "--disable-dev-shm-usage"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        arguments.append("--no-sandbox")
    return arguments
