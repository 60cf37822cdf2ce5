"""A small HTTP client for loopback calls (the JSON APIs, the mock's Stripe API, /ready): never through a proxy,
never following redirects, never raising on an HTTP status."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments, **keywords):
        return None


_OPENER.add_handler(_NoRedirect())


def http(method: str, url: str, headers: dict[str, str] | None = None, body: bytes | None = None, timeout: float = 30):
    """Returns (status, body): the JSON value when the body is JSON, else its text; status 0 when nothing answered."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with _OPENER.open(request, timeout=timeout) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, raw = error.code, error.read()
    except (urllib.error.URLError, OSError, TimeoutError):
        return 0, None
    text = raw.decode("utf-8", errors="replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text
