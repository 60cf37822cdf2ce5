#!/usr/bin/env python3
"""An independent check of OpenCat's Standard Webhooks signatures with Python's `standardwebhooks` package (PyPI).

    python3 Tools/ci/standard_webhooks_check.py verify < deliveries.json
    python3 Tools/ci/standard_webhooks_check.py sign < deliveries.json

The input is a JSON array of deliveries: {"secret": "whsec_…", "id": "msg_…", "timestamp": <seconds>, "payload": "…"}
(and "signature" for verify: the webhook-signature header's value). `verify` checks each with
`standardwebhooks.Webhook(secret).verify` against its three headers and prints {"verified": n, "failures": [...]};
`sign` prints the header value `Webhook(secret).sign` gives each. Exits 1 when a delivery does not verify, 2 when the
package is missing."""

import json
import sys
from datetime import datetime, timezone

try:
    from standardwebhooks.webhooks import Webhook
except ImportError:
    print("the Python package standardwebhooks is missing (python3 -m pip install standardwebhooks)", file=sys.stderr)
    sys.exit(2)


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ("verify", "sign"):
        print(__doc__, file=sys.stderr)
        return 64
    deliveries = json.load(sys.stdin)
    if sys.argv[1] == "sign":
        signatures = []
        for delivery in deliveries:
            when = datetime.fromtimestamp(delivery["timestamp"], tz=timezone.utc)
            signatures.append(Webhook(delivery["secret"]).sign(delivery["id"], when, delivery["payload"]))
        print(json.dumps({"signatures": signatures}))
        return 0
    failures = []
    for index, delivery in enumerate(deliveries):
        headers = {
            "webhook-id": delivery["id"],
            "webhook-timestamp": str(delivery["timestamp"]),
            "webhook-signature": delivery["signature"],
        }
        try:
            Webhook(delivery["secret"]).verify(delivery["payload"].encode("utf-8"), headers, json_parse=False)
        except Exception as error:  # noqa: BLE001 — every refusal is a finding
            failures.append(f"{index} ({delivery['id']}): {type(error).__name__}: {error}")
    print(json.dumps({"verified": len(deliveries) - len(failures), "failures": failures}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
