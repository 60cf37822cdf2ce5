#!/usr/bin/env python3
"""Browser tests of the reference server's web portal (/portal) and operator console (/console), with
`opencat mock serve --checkout` as Stripe and PayPal. See Tools/ci/browser/README.md.

    python3 Tools/ci/browser/run.py [--bin DIR] [--database sqlite|postgres] [--artifacts DIR]
    python3 Tools/ci/browser/run.py --demo [--bin DIR]     (the server README's demo, as written)

Prints `browser: N passed, M failed (<database>)` and one line per failure; exits 1 on any failure."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the checkout


def default_bin() -> Path:
    try:
        result = subprocess.run(
            ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        if result.returncode == 0 and result.stdout.strip():
            return Path(result.stdout.strip().splitlines()[-1])
    except (OSError, subprocess.TimeoutExpired):
        pass
    return ROOT / ".build" / "debug"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bin", type=Path, help="where opencat and opencat-server are (swift build --show-bin-path)")
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--artifacts",
        type=Path,
        default=Path(os.environ.get("OPENCAT_BROWSER_ARTIFACTS", ROOT / ".build" / "browser-artifacts")),
        help="screenshots and logs (default .build/browser-artifacts or $OPENCAT_BROWSER_ARTIFACTS)",
    )
    parser.add_argument(
        "--chromium",
        default=os.environ.get("OPENCAT_CHROMIUM", "/usr/bin/chromium"),
        help="the Chromium executable (default /usr/bin/chromium or $OPENCAT_CHROMIUM)",
    )
    parser.add_argument(
        "--demo", action="store_true", help="run the server README's demo commands and walk through them instead"
    )
    parser.add_argument("--keep", action="store_true", help="keep the run's temp folder (configuration, ledger)")
    arguments = parser.parse_args()
    postgres_url = os.environ.get("OPENCAT_TEST_POSTGRES_URL")
    if arguments.database == "postgres" and not postgres_url and not arguments.demo:
        print("browser: 0 passed, 1 failed (postgres)")
        print("browser(postgres) FAIL startup: OPENCAT_TEST_POSTGRES_URL is not set (bash Tools/ci/start-postgres.sh)")
        return 1
    try:
        from harness.runner import run
    except ImportError as error:
        print(f"browser: 0 passed, 1 failed ({arguments.database})")
        print(
            f"browser({arguments.database}) FAIL startup: {error} "
            "(python3 -m pip install playwright axe-playwright-python)"
        )
        return 1
    bin_dir = (arguments.bin or default_bin()).resolve()
    return run(
        bin_dir,
        ROOT,
        arguments.database,
        postgres_url,
        arguments.artifacts.resolve(),
        arguments.chromium,
        arguments.keep,
        arguments.demo,
    )


if __name__ == "__main__":
    sys.exit(main())
