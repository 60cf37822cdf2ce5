"""The one way the browser tests wait for something another process does (a mail written, a webhook logged, a server
listening): a condition polled after short pauses under a generous ceiling, as OpenCatTesting's `waitUntil` does
for the Swift tests (docs/TESTING.md). The ceiling is for a loaded one-core machine, never a guess of how fast the
effect is; reaching it returns None and the caller fails naming what never happened."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

T = TypeVar("T")

CEILING = 120.0
"""Seconds a wait gives an effect before the test fails."""


def wait_until(produce: Callable[[], T | None], timeout: float = CEILING) -> T | None:
    """Returns the first value `produce` gives that is not None (checked at once, then after pauses of 10 ms growing
    to 200 ms), or None once `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    pause = 0.01
    while True:
        value = produce()
        if value is not None:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.2)
