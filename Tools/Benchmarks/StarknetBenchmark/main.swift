// StarknetBenchmark: Pedersen, Poseidon, ECDSA sign and verify per second in pure Swift, measured in the same run as
// StarkWare's C++ implementations (crypto-cpp through crypto-cpp-py, Poseidon through poseidon-py) driven by
// reference.py beside this file.
// Run: swift run -c release StarknetBenchmark [--seconds 2] [--python PATH] [--write docs/BENCHMARKS.md]
import Foundation
import OpenCatCore
import StarknetCrypto
import Subprocess

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

var budget = 2.0
var python: String?
var writeTo: String?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seconds": budget = Double(arguments.popFirst() ?? "") ?? budget
    case "--python": python = arguments.popFirst()
    case "--write": writeTo = arguments.popFirst()
    default:
        FileHandle.standardError.write(
            Data("usage: StarknetBenchmark [--seconds S] [--python PATH] [--write FILE]\n".utf8)
        )
        exit(64)
    }
}

/// Operations per second of `body` over about `budget` seconds (after one warm-up call).
@MainActor func rate(_ body: (Int) throws -> Void) rethrows -> Double {
    try body(0)
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    var batch = 16
    while seconds(start.duration(to: clock.now)) < budget {
        for index in 0..<batch { try body(count + index) }
        count += batch
        batch = min(batch * 2, 4096)
    }
    return Double(count) / seconds(start.duration(to: clock.now))
}

// Inputs derived from the index so no result is reused.
func felt(_ index: Int, _ salt: UInt64) -> Felt {
    (try? Felt(UInt256(w0: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 ^ salt, w1: salt, w2: UInt64(index), w3: 0x0123_4567)))
        ?? .one
}

let key = try StarkPrivateKey(hex: Secret("0x3c1e9550e66958296d11b60f8e8e7a7ad990d07fa65d5f7652c4a6c87d4e3cc"))
let publicKey = key.publicKey
var sink = Felt.zero
let signatures = try (0..<64).map { try StarkECDSA.sign(felt($0, 7), with: key) }

var results: [(String, Double)] = []
results.append(("pedersen", rate { sink = Pedersen.hash(felt($0, 1), felt($0, 2)) }))
results.append(("poseidon_pair", rate { sink = Poseidon.hash(felt($0, 3), felt($0, 4)) }))
results.append(
    ("poseidon_many_10", rate { index in sink = Poseidon.hash(many: (0..<10).map { felt(index, UInt64($0)) }) })
)
results.append(("ecdsa_sign", try rate { sink = try StarkECDSA.sign(felt($0, 5), with: key).r }))
var valid = 0
results.append(
    (
        "ecdsa_verify",
        rate { index in
            if StarkECDSA.verify(publicKey: publicKey, hash: felt(index % 64, 7), signature: signatures[index % 64]) {
                valid += 1
            }
        }
    )
)
precondition(valid > 0, "signatures must verify")
results.append(
    ("public_key", try rate { sink = try StarkPrivateKey(bytes: Secret(felt($0, 9).value.bigEndianBytes)).publicKey })
)
_ = sink

// The reference, in the same run.
let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("reference.py").path
var reference: [String: Double] = [:]
var referenceVersions = "not run (set --python to a Python with crypto-cpp-py and poseidon-py)"
if let python {
    // Through swift-subprocess (an asynchronous wait). env runs PYTHON as given: a path, absolute or relative to the
    // current folder, as before (or a name on PATH); its standard error goes to ours.
    let result = try await Subprocess.run(
        .name("env"),
        arguments: Arguments([python, script, "--seconds", String(budget)]),
        output: .string(limit: 1 << 20),
        error: .currentStandardError
    )
    for line in result.standardOutput.split(separator: "\n") {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0] == "versions" { referenceVersions = parts[1] }
        if parts.count == 2, let value = Double(parts[1]) { reference[parts[0]] = value }
    }
}

func format(_ value: Double) -> String {
    value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
}

var table = "| Operation | OpenCat (Swift) ops/s | C++ reference ops/s | Swift ÷ C++ |\n|---|---:|---:|---:|\n"
for (name, swift) in results {
    let cpp = reference[name]
    table +=
        "| \(name) | \(format(swift)) | \(cpp.map(format) ?? "–") | \(cpp.map { String(format: "%.1f×", swift / $0) } ?? "–") |\n"
}
let report = """
    Command: `swift run -c release StarknetBenchmark --seconds \(format(budget)) --python PYTHON --write docs/BENCHMARKS.md` \
    (PYTHON: a Python with `pip install crypto-cpp-py poseidon-py`), measured \(ISO8601DateFormatter().string(from: Date())) \
    on this machine (2 cores). Each operation runs for \(format(budget)) s on fresh inputs; the reference column is StarkWare's \
    C++ through its Python bindings (\(referenceVersions)), driven by `Tools/Benchmarks/StarknetBenchmark/reference.py` \
    in the same run. Above 1× OpenCat is faster.

    \(table)
    How to read it: the reference column includes one ctypes call per operation (about a microsecond), which is \
    small beside Pedersen's and verify's cost but not beside Poseidon's. crypto-cpp adds curve points in affine \
    coordinates with a field inversion per addition and no precomputed tables, and its signer spends most of its \
    time in a slow modular inversion (hence 14 signatures per second). OpenCat multiplies in Montgomery form with \
    a reduction specialised to P's limbs (one 64×64 product per step), adds in Jacobian coordinates, and keeps \
    4-bit fixed-base tables of G and of the four Pedersen points (built once, on first use), so hashing or \
    signing needs no doubling and one inversion. Verification recovers y with Tonelli–Shanks (P − 1 has 2-adicity \
    192) and checks both signs with one shared pair of scalar multiplications.
    """
print(report)

if let writeTo {
    let heading = "## Starknet cryptography (StarknetCrypto)"
    var document = (try? String(contentsOfFile: writeTo, encoding: .utf8)) ?? "# Benchmarks\n"
    if let range = document.range(of: heading) {
        let rest = document[range.upperBound...]
        let end = rest.range(of: "\n## ")?.lowerBound ?? document.endIndex
        document.replaceSubrange(range.lowerBound..<end, with: heading + "\n\n" + report + "\n")
    } else {
        document += "\n" + heading + "\n\n" + report + "\n"
    }
    try document.write(toFile: writeTo, atomically: true, encoding: .utf8)
}
