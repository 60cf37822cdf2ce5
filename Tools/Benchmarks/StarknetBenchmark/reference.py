#!/usr/bin/env python3
"""The C++ reference for StarknetBenchmark: StarkWare's crypto-cpp (Pedersen, ECDSA, through crypto-cpp-py) and
Poseidon (through poseidon-py), each operation timed for --seconds on fresh inputs. Prints `name ops_per_second` lines
and one `versions …` line. Needs: pip install crypto-cpp-py poseidon-py
"""
import argparse
import importlib.metadata
import time

from crypto_cpp_py.cpp_bindings import cpp_get_public_key, cpp_hash, cpp_sign, cpp_verify
from poseidon_py.poseidon_hash import poseidon_hash, poseidon_hash_many

EC_ORDER = 0x0800000000000010FFFFFFFFFFFFFFFFB781126DCAE7B2321E66A241ADC64D2F
PRIVATE_KEY = 0x3C1E9550E66958296D11B60F8E8E7A7AD990D07FA65D5F7652C4A6C87D4E3CC


def felt(index, salt):
    return ((index * 0x9E3779B97F4A7C15) ^ salt) & (2**64 - 1) | (salt << 64) | (index << 128) | (0x01234567 << 192)


def rate(seconds, body):
    body(0)
    start = time.perf_counter()
    count = 0
    while time.perf_counter() - start < seconds:
        body(count)
        count += 1
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=2.0)
    seconds = parser.parse_args().seconds
    public_key = cpp_get_public_key(PRIVATE_KEY)
    # crypto-cpp's verify takes w = s^-1 mod N: computed here once per signature, outside the timing (OpenCat's
    # verify takes s and inverts it inside, so the comparison favours the reference).
    signed = [(felt(i, 7), cpp_sign(felt(i, 7), PRIVATE_KEY, None)) for i in range(64)]
    signatures = [(msg, r, pow(s, -1, EC_ORDER)) for msg, (r, s) in signed]
    assert all(cpp_verify(msg, r, w, public_key) for msg, r, w in signatures)
    results = {
        "pedersen": rate(seconds, lambda i: cpp_hash(felt(i, 1), felt(i, 2))),
        "poseidon_pair": rate(seconds, lambda i: poseidon_hash(felt(i, 3), felt(i, 4))),
        "poseidon_many_10": rate(seconds, lambda i: poseidon_hash_many([felt(i, j) for j in range(10)])),
        "ecdsa_sign": rate(seconds, lambda i: cpp_sign(felt(i, 5), PRIVATE_KEY, None)),
        "ecdsa_verify": rate(seconds, lambda i: cpp_verify(*signatures[i % 64][:3], public_key)),
        "public_key": rate(seconds, lambda i: cpp_get_public_key(felt(i, 9))),
    }
    for name, value in results.items():
        print(f"{name} {value:.1f}")
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in ["crypto-cpp-py", "poseidon-py"])
    print(f"versions {versions}")


if __name__ == "__main__":
    main()
