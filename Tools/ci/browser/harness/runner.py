"""Runs the scenarios against one stack and prints the summary."""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from .pages import Pages, chromium_arguments, first_line
from .scenarios import SCENARIOS, World
from .demo import DEMO_SCENARIOS, DemoStack, DemoWorld
from .stack import Stack, StackError


def _stop_on_signal(number, _frame):
    raise SystemExit(128 + number)


def run(
    bin_dir: Path,
    root: Path,
    database: str,
    postgres_url: str | None,
    artifacts: Path,
    chromium: str,
    keep: bool,
    demo: bool = False,
) -> int:
    if demo:
        database = "demo"
    tag = f"browser({database})"

    def log(message: str) -> None:
        print(f"{tag}: {message}", flush=True)

    signal.signal(signal.SIGTERM, _stop_on_signal)
    artifacts.mkdir(parents=True, exist_ok=True)
    for old in artifacts.glob(f"{database}-*"):
        old.unlink()
    results: list[tuple[str, list[str]]] = []
    details: list[str] = []
    stack = DemoStack(bin_dir, root, log) if demo else Stack(bin_dir, root, database, postgres_url, log)
    started = time.monotonic()
    try:
        try:
            stack.start()
            log(f"server {stack.base}, mock {stack.mock_base}, folder {stack.folder}")
        except StackError as error:
            lines = str(error).splitlines()
            results.append(("startup", [lines[0].rstrip(":")]))
            details = [f"    | {line}" for line in lines[1:]]
        else:
            results.extend(_scenarios(stack, artifacts, database, chromium, log, demo))
    finally:
        stack.stop()
        stack.copy_logs(artifacts)
        if keep:
            log(f"kept {stack.folder}")
        else:
            stack.remove_folder()
    failed = [(name, messages) for name, messages in results if messages]
    passed = len(results) - len(failed)
    print(f"browser: {passed} passed, {len(failed)} failed ({database}) in {time.monotonic() - started:.0f} s")
    for name, messages in failed:
        for message in messages:
            print(f"{tag} FAIL {name}: {message}")
    for line in details:
        print(line)
    if failed:
        print(f"{tag}: screenshots and the processes' logs are in {artifacts}")
    sys.stdout.flush()
    return 1 if failed or not results else 0


def _scenarios(
    stack: Stack, artifacts: Path, database: str, chromium: str, log, demo: bool
) -> list[tuple[str, list[str]]]:
    results: list[tuple[str, list[str]]] = []
    with sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=chromium_arguments())
        except Exception as error:  # noqa: BLE001
            return [("startup", [f"Chromium did not start ({chromium}): {first_line(error)}"])]
        try:
            pages = Pages(browser, artifacts, database)
            world = DemoWorld(stack, pages) if demo else World(stack, pages)
            outcome: dict[str, bool] = {}
            for name, function, needs in DEMO_SCENARIOS if demo else SCENARIOS:
                blocked = [need for need in needs if not outcome.get(need)]
                if blocked:
                    messages = [f"not run: needs {', '.join(blocked)}"]
                else:
                    messages = _one(world, name, function, artifacts, database)
                outcome[name] = not messages
                results.append((name, messages))
                log(f"{'ok  ' if not messages else 'FAIL'} {name}")
        finally:
            browser.close()
    return results


def _one(world: World, name: str, function, artifacts: Path, database: str) -> list[str]:
    world.soft_failures = []
    world.page = None
    try:
        function(world)
    except Exception as error:  # noqa: BLE001 — any error fails the scenario, the run goes on
        world.soft_failures.append(first_line(error))
        if world.page is not None and not world.page.is_closed():
            try:
                world.page.screenshot(path=str(artifacts / f"{database}-FAILED-{name}.png"), full_page=True)
                world.soft_failures[-1] += f" (on {world.page.url})"
            except Exception:  # noqa: BLE001
                pass
    return list(world.soft_failures)
