#!/usr/bin/env python3
"""Checks Apple offer signatures made by `opencat apple offer-signature` / `offer-jws`, independently of Swift.

Python's `cryptography` package (pip install cryptography) does the ECDSA; the signed data is rebuilt here from the
documented rules, not taken from the Swift code:

* signature: "Generating a signature for promotional offers": bundle id, key id, product id, offer id, app account
  token (lowercase UUID, or empty), nonce (lowercase UUID) and timestamp (milliseconds) joined by U+2063, signed with
  ECDSA P-256 / SHA-256, DER, base64.
* jws: "Generating JWS to sign App Store requests": header {alg: ES256, kid, typ: JWT}; claims iss, iat, aud, bid,
  nonce, productId and offerIdentifier [+ transactionId] (aud promotional-offer) or allowIntroductoryOffer +
  transactionId (aud introductory-offer-eligibility); raw r||s signature over header.payload.

Usage:
  apple_offer_vector.py signature --key P8 --bundle-id B --key-id K --product-id P --offer-id O \
      [--app-account-token UUID] --nonce UUID --timestamp MS --signature BASE64
  apple_offer_vector.py jws --key P8 --kind promotional|introductory-eligibility --bundle-id B --issuer-id I \
      --key-id K --product-id P [--offer-id O] [--transaction-id T] [--allow-introductory-offer true|false] \
      [--nonce UUID] [--issued-at S] --jws TOKEN

Prints {"verified": true, "payload": …} (the signed string or the decoded claims) and exits 0 when the signature
verifies and every field is as documented; prints the reason on standard error and exits 1 otherwise; 2 on usage
errors.
"""

import argparse
import base64
import binascii
import json
import sys
import uuid

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
except ImportError:
    print("apple_offer_vector: the Python module 'cryptography' is missing (pip install cryptography, "
          "or run Tools/test.sh)", file=sys.stderr)
    sys.exit(3)

SEPARATOR = "\u2063"
AUDIENCES = {"promotional": "promotional-offer", "introductory-eligibility": "introductory-offer-eligibility"}


class NotVerified(Exception):
    pass


def public_key(path):
    with open(path, "rb") as handle:
        key = serialization.load_pem_private_key(handle.read(), password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise NotVerified("the key is not a P-256 private key")
    return key.public_key()


def lowercase_uuid(text):
    return str(uuid.UUID(text))  # str() of a UUID is its lowercase canonical form


def offer_payload(args):
    token = lowercase_uuid(args.app_account_token) if args.app_account_token else ""
    fields = [args.bundle_id, args.key_id, args.product_id, args.offer_id, token, lowercase_uuid(args.nonce),
              str(int(args.timestamp))]
    return SEPARATOR.join(fields)


def check_signature(args):
    payload = offer_payload(args)
    try:
        der = base64.b64decode(args.signature, validate=True)
    except (binascii.Error, ValueError):
        raise NotVerified("the signature is not base64")
    try:
        public_key(args.key).verify(der, payload.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        raise NotVerified("the signature does not verify over the documented payload")
    return payload


def b64url(part):
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


def expected_claims(args):
    claims = {"iss": args.issuer_id, "aud": AUDIENCES[args.kind], "bid": args.bundle_id, "productId": args.product_id}
    if args.kind == "promotional":
        claims["offerIdentifier"] = args.offer_id
        if args.transaction_id is not None:
            claims["transactionId"] = args.transaction_id
    else:
        claims["allowIntroductoryOffer"] = args.allow_introductory_offer == "true"
        claims["transactionId"] = args.transaction_id
    return claims


def check_jws(args):
    parts = args.jws.split(".")
    if len(parts) != 3:
        raise NotVerified("not a compact JWS")
    header, claims, raw = json.loads(b64url(parts[0])), json.loads(b64url(parts[1])), b64url(parts[2])
    if header != {"alg": "ES256", "kid": args.key_id, "typ": "JWT"}:
        raise NotVerified(f"unexpected header {header}")
    expected = expected_claims(args)
    if set(claims) != set(expected) | {"iat", "nonce"}:
        raise NotVerified(f"unexpected claim names {sorted(claims)}")
    for name, value in expected.items():
        if claims[name] != value or type(claims[name]) is not type(value):
            raise NotVerified(f"claim {name} is {claims[name]!r}, not {value!r}")
    if not isinstance(claims["iat"], int) or isinstance(claims["iat"], bool):
        raise NotVerified("iat is not an integer")
    if args.issued_at is not None and claims["iat"] != int(args.issued_at):
        raise NotVerified("iat is not the given time")
    if claims["nonce"] != lowercase_uuid(claims["nonce"]):
        raise NotVerified("nonce is not a lowercase UUID")
    if args.nonce is not None and claims["nonce"] != lowercase_uuid(args.nonce):
        raise NotVerified("nonce is not the given one")
    if len(raw) != 64:
        raise NotVerified("the signature is not raw r||s")
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public_key(args.key).verify(der, f"{parts[0]}.{parts[1]}".encode("ascii"), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise NotVerified("the JWS signature does not verify")
    return claims


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    signature = commands.add_parser("signature")
    jws = commands.add_parser("jws")
    for command in (signature, jws):
        command.add_argument("--key", required=True)
        command.add_argument("--bundle-id", required=True)
        command.add_argument("--key-id", required=True)
        command.add_argument("--product-id", required=True)
    signature.add_argument("--offer-id", required=True)
    signature.add_argument("--app-account-token")
    signature.add_argument("--nonce", required=True)
    signature.add_argument("--timestamp", required=True, type=int)
    signature.add_argument("--signature", required=True)
    jws.add_argument("--kind", required=True, choices=sorted(AUDIENCES))
    jws.add_argument("--issuer-id", required=True)
    jws.add_argument("--offer-id")
    jws.add_argument("--transaction-id")
    jws.add_argument("--allow-introductory-offer", choices=["true", "false"])
    jws.add_argument("--nonce")
    jws.add_argument("--issued-at", type=int)
    jws.add_argument("--jws", required=True)
    return parser.parse_args()


def main():
    args = arguments()
    try:
        payload = check_signature(args) if args.command == "signature" else check_jws(args)
    except (NotVerified, ValueError) as error:
        print(f"apple_offer_vector: not verified: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"verified": True, "payload": payload}, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
