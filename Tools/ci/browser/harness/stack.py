"""The system under test: a temp folder with the server's configuration, `opencat mock serve --checkout` and
`opencat-server`, started and always stopped. Secrets (tokens, the stores' keys) are made per run and reach the
processes only through their environment or owner-only files; they are never printed."""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from .http import http
from .waits import CEILING, wait_until

PRODUCT = "keys_10"
PACK_KEYS = 10
PRICE = {"amount": "4.99", "currency": "USD"}
# The payee of the mock's PayPal orders (`--paypal-merchant-id`) and the server's `payeeMerchantId`.
DEFAULT_PAYEE = "OPENCATMOCK01"
STRIPE_KEY_ENV = "OPENCAT_BROWSER_STRIPE_SECRET_KEY"
STRIPE_WEBHOOK_ENV = "OPENCAT_BROWSER_STRIPE_WEBHOOK_SECRET"
PAYPAL_SECRET_ENV = "OPENCAT_BROWSER_PAYPAL_CLIENT_SECRET"
DATABASE_ENV = "OPENCAT_BROWSER_DATABASE_URL"


class StackError(Exception):
    """The stack could not start (the message says which process and why)."""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(text)


@dataclass
class User:
    user_id: str
    email: str
    token: str = field(default_factory=lambda: "ocs_" + secrets.token_urlsafe(32), repr=False)


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    stdout: Path
    stderr: Path

    def tail(self, lines: int = 15) -> str:
        text = ""
        for path in (self.stdout, self.stderr):
            try:
                text += path.read_text(errors="replace")
            except OSError:
                pass
        return "\n".join(text.strip().splitlines()[-lines:])


class Stack:
    """Owns the temp folder, the PostgreSQL database made for the run, and both processes."""

    def __init__(self, bin_dir: Path, root: Path, database: str, postgres_url: str | None, log):
        self.bin_dir = bin_dir
        self.root = root
        self.database = database
        self.postgres_url = postgres_url
        self.log = log
        self.folder = Path(tempfile.mkdtemp(prefix=f"opencat-browser-{database}-"))
        self.processes: list[Process] = []
        self.created_database: str | None = None
        self.database_url: str | None = None
        self.alice = User("alice", "alice@example.com")
        self.bob = User("bob", "bob@example.com")
        self.operator = "ops"
        self.operator_token = "opt_" + secrets.token_urlsafe(32)
        self.api_key = "ocat_" + secrets.token_urlsafe(32)
        self.secret_api_key = "ocsk_" + secrets.token_urlsafe(32)
        self.stripe_key = "sk_test_" + secrets.token_urlsafe(24)
        self.stripe_webhook_secret = "whsec_" + secrets.token_urlsafe(24)
        self.paypal_client_id = "browser-client-" + secrets.token_hex(6)
        self.paypal_client_secret = secrets.token_urlsafe(24)
        self.payee = DEFAULT_PAYEE
        self.server_port = free_port()
        self.base = f"http://127.0.0.1:{self.server_port}"
        self.mock_base = ""
        self.mail_file = self.folder / "mail.jsonl"
        self.server: Process | None = None
        self.servers: list[Process] = []  # every server process of the run, the one running last
        self.mock: Process | None = None

    # ----- lifecycle -------------------------------------------------------------------------------------------

    def start(self) -> None:
        if self.database == "postgres":
            self._prepare_postgres()
        self._start_mock()
        self._write_configuration()
        self._start_server()

    def stop(self) -> None:
        for process in reversed(self.processes):
            self._terminate(process)
        self.processes.clear()
        if self.created_database:
            self._psql(f'DROP DATABASE IF EXISTS "{self.created_database}" WITH (FORCE)', quiet=True)
            self.created_database = None

    def remove_folder(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)

    def stop_server(self) -> None:
        """Stops the server (SIGTERM) and keeps its log; the mock goes on running."""
        if self.server is not None:
            self._terminate(self.server)

    def restart_server(self) -> None:
        """Starts the server again on the same port, configuration and database, and waits until it is ready."""
        self._start_server()

    def copy_logs(self, artifacts: Path) -> None:
        for process in ([self.mock] if self.mock else []) + self.servers:
            out = artifacts / f"{self.database}-{process.name}.log"
            try:
                out.write_text(
                    process.stdout.read_text(errors="replace") + process.stderr.read_text(errors="replace")
                )
            except OSError:
                pass

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
            env.pop(name, None)
        env[STRIPE_KEY_ENV] = self.stripe_key
        env[STRIPE_WEBHOOK_ENV] = self.stripe_webhook_secret
        env[PAYPAL_SECRET_ENV] = self.paypal_client_secret
        if self.database_url:
            env[DATABASE_ENV] = self.database_url
        return env

    def _spawn(self, name: str, arguments: list[str], cwd: Path | None = None) -> Process:
        stdout = self.folder / f"{name}.out"
        stderr = self.folder / f"{name}.err"
        popen = subprocess.Popen(
            arguments,
            cwd=cwd or self.folder,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            stdout=stdout.open("wb"),
            stderr=stderr.open("wb"),
        )
        process = Process(name, popen, stdout, stderr)
        self.processes.append(process)
        return process

    def _terminate(self, process: Process) -> None:
        if process.popen.poll() is not None:
            return
        process.popen.send_signal(signal.SIGTERM)
        try:
            process.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.log(f"{process.name} did not stop within 15 s of SIGTERM: killed")
            process.popen.kill()
            process.popen.wait(timeout=5)

    def _exited(self, process: Process, what: str) -> StackError:
        return StackError(f"{what} exited with status {process.popen.returncode}:\n{process.tail()}")

    # ----- the mock stores ---------------------------------------------------------------------------------------

    def _start_mock(self) -> None:
        binary = self.bin_dir / "opencat"
        if not binary.exists():
            raise StackError(f"{binary} does not exist (swift build --product opencat)")
        secrets_file = self.folder / "mock-secrets.json"
        write_private(
            secrets_file,
            json.dumps(
                {
                    "stripe.secretKey": self.stripe_key,
                    "paypal.clientId": self.paypal_client_id,
                    "paypal.clientSecret": self.paypal_client_secret,
                }
            ),
        )
        credentials = self.folder / "mock-credentials.json"
        notifications = f"{self.base}/v1/notifications"
        process = self._spawn(
            "mock",
            [
                str(binary), "mock", "serve", "--port", "0", "--root", str(self.root),
                "--store", "stripe", "--store", "paypal",
                "--secrets", str(secrets_file), "--credentials-out", str(credentials),
                "--checkout",
                "--stripe-webhook", f"{notifications}/stripe", "--stripe-webhook-secret-env", STRIPE_WEBHOOK_ENV,
                "--paypal-webhook", f"{notifications}/paypal", "--paypal-merchant-id", self.payee,
            ],
        )  # fmt: skip
        self.mock = process
        pattern = re.compile(r"listening on (http://\S+)")

        def listening() -> str | None:
            match = pattern.search(process.stdout.read_text(errors="replace"))
            if match:
                return match.group(1).rstrip("/.")
            if process.popen.poll() is not None:
                raise self._exited(process, "opencat mock serve")
            return None

        base = wait_until(listening)
        if base is None:
            raise StackError(f"opencat mock serve did not print its address within {CEILING:.0f} s:\n" + process.tail())
        self.mock_base = base
        try:
            inforce = json.loads(credentials.read_text())
        except (OSError, ValueError):
            inforce = {}
        self.stripe_key = inforce.get("stripe.secretKey", self.stripe_key)
        self.paypal_client_id = inforce.get("paypal.clientId", self.paypal_client_id)
        self.paypal_client_secret = inforce.get("paypal.clientSecret", self.paypal_client_secret)
        for name in ("paypal.payeeMerchantId", "paypal.merchantId", "paypal.payee"):
            if inforce.get(name):
                self.payee = inforce[name]
        # The mock's checkout must exist: a session POST without a key is refused by Stripe's auth, not 404.
        status, _ = http("GET", f"{self.mock_base}/checkout/pay/cs_test_probe")
        if status == 0:
            raise StackError(f"opencat mock serve does not answer on {self.mock_base}")

    # ----- PostgreSQL --------------------------------------------------------------------------------------------

    def _pg_environment(self, database: str | None = None) -> dict[str, str]:
        url = urllib.parse.urlsplit(self.postgres_url or "")
        env = dict(os.environ)
        env.update(
            PGHOST=url.hostname or "127.0.0.1",
            PGPORT=str(url.port or 5432),
            PGUSER=urllib.parse.unquote(url.username or ""),
            PGPASSWORD=urllib.parse.unquote(url.password or ""),
            PGDATABASE=database or url.path.lstrip("/") or "postgres",
            PGCONNECT_TIMEOUT="10",
        )
        return env

    def _psql(self, statement: str, quiet: bool = False) -> bool:
        psql = shutil.which("psql")
        if psql is None:
            candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/psql"))
            psql = str(candidates[-1]) if candidates else None
        if psql is None:
            if not quiet:
                self.log("psql not found: using the PostgreSQL database as is")
            return False
        result = subprocess.run(
            [psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", statement],
            env=self._pg_environment(),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if result.returncode != 0 and not quiet:
            self.log("psql: " + (result.stderr.strip().splitlines() or ["failed"])[-1])
        return result.returncode == 0

    def _prepare_postgres(self) -> None:
        if not self.postgres_url:
            raise StackError("--database postgres needs OPENCAT_TEST_POSTGRES_URL (bash Tools/ci/start-postgres.sh)")
        name = "opencat_browser_" + secrets.token_hex(4)
        if self._psql(f'CREATE DATABASE "{name}"'):
            self.created_database = name
            url = urllib.parse.urlsplit(self.postgres_url)
            self.database_url = urllib.parse.urlunsplit(url._replace(path="/" + name))
        else:
            # A shared database keeps earlier runs' balances: this run's users get their own ids.
            self.log("could not create a database for the run: using the given one with fresh user ids")
            self.database_url = self.postgres_url
            run = secrets.token_hex(3)
            self.alice.user_id = f"alice-{run}"
            self.bob.user_id = f"bob-{run}"

    # ----- the server --------------------------------------------------------------------------------------------

    def _write_configuration(self) -> None:
        binary = self.bin_dir / "opencat-server"
        if not binary.exists():
            raise StackError(f"{binary} does not exist (swift build --product opencat-server)")
        keys = self.folder / "signing-keys"
        keys.mkdir(mode=0o700)
        result = subprocess.run(
            [str(binary), "keygen", "--kid", "kbrowser", "--folder", str(keys)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        if result.returncode != 0:
            raise StackError("opencat-server keygen failed: " + result.stderr.strip())
        users = [
            {"userId": user.user_id, "email": user.email, "tokenSHA256": sha256(user.token)}
            for user in (self.alice, self.bob)
        ]
        write_private(self.folder / "users.json", json.dumps(users, indent=2))
        prices = {PRODUCT: PRICE}
        configuration = {
            "usersFile": "users.json",
            "signingKeys": {"folder": "signing-keys", "activeKid": "kbrowser"},
            "keyPacks": {PRODUCT: {"keys": PACK_KEYS, "bonusKeys": 0, "communityKeys": 0, "plan": "L1", "licenses": 1}},
            "apps": {"example-app": [{"id": "pro-voices", "name": "Pro voices", "cost": 3}]},
            "openCat": {
                "apiKeySHA256": [sha256(self.api_key)],
                "secretKeySHA256": [sha256(self.secret_api_key)],
                "entitlements": {"com.example.pro.monthly": ["pro"]},
            },
            "acceptedEnvironments": {"*": ["production", "sandbox"]},
            "stores": {
                "stripe": {
                    "baseURL": self.mock_base,
                    "secretKeyEnv": STRIPE_KEY_ENV,
                    "webhookSecretEnv": STRIPE_WEBHOOK_ENV,
                    "prices": prices,
                },
                "paypal": {
                    "baseURL": self.mock_base,
                    "clientId": self.paypal_client_id,
                    "clientSecretEnv": PAYPAL_SECRET_ENV,
                    "environment": "sandbox",
                    "payeeMerchantId": self.payee,
                    "prices": prices,
                    "webhookId": "WH-BROWSER-TEST",
                },
            },
            # Development mode: the browser test's receiver listens on loopback.
            "webhooks": {"allowPrivateNetworks": True},
            "portal": {
                "publicURL": self.base,
                "mail": {"file": "mail.jsonl"},
                "products": [{"productId": PRODUCT, "name": "10 keys", **PRICE}],
                "operators": [{"name": self.operator, "tokenSHA256": sha256(self.operator_token)}],
            },
        }
        write_private(self.folder / "server.json", json.dumps(configuration, indent=2))

    def _start_server(self) -> None:
        if self.database == "sqlite":
            database = "sqlite:" + str(self.folder / "ledger.sqlite")
        else:
            database = "env:" + DATABASE_ENV
        process = self._spawn(
            "server" if not self.servers else f"server-{len(self.servers) + 1}",
            [
                str(self.bin_dir / "opencat-server"), "--port", str(self.server_port), "--log-level", "info",
                "--config", str(self.folder / "server.json"), "--database", database,
            ],
        )  # fmt: skip
        self.server = process
        self.servers.append(process)

        def ready() -> bool | None:
            if process.popen.poll() is not None:
                raise self._exited(process, "opencat-server")
            return True if http("GET", f"{self.base}/ready", timeout=2)[0] == 200 else None

        if wait_until(ready) is None:
            raise StackError(f"opencat-server was not ready within {CEILING:.0f} s ({self.base}/ready):\n{process.tail()}")

    # ----- what the scenarios read -------------------------------------------------------------------------------

    def mails(self) -> list[dict]:
        try:
            lines = self.mail_file.read_text().splitlines()
        except OSError:
            return []
        result = []
        for line in lines:
            try:
                result.append(json.loads(line))
            except ValueError:
                continue
        return result

    def server_log(self) -> str:
        """Every server process's output, in the order they ran."""
        text = ""
        for process in self.servers:
            try:
                text += process.stdout.read_text(errors="replace") + process.stderr.read_text(errors="replace")
            except OSError:
                pass
        return text
