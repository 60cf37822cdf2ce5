import Foundation
import Synchronization
import X509

#if canImport(Glibc)
    import Glibc
#endif

/// The harness for this process: OPENCAT_FUZZ_TARGET names the target, OPENCAT_FUZZ_APPLE_ROOT the DER root the
/// App Store targets trust (written with their seeds).
let harness: Harness = {
    let environment = ProcessInfo.processInfo.environment
    guard let target = FuzzTarget(rawValue: environment["OPENCAT_FUZZ_TARGET"] ?? "") else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("OPENCAT_FUZZ_TARGET must be one of: \(names)\n".utf8))
        exit(64)
    }
    var root: Certificate?
    if let path = environment["OPENCAT_FUZZ_APPLE_ROOT"], let der = FileManager.default.contents(atPath: path) {
        root = try? Certificate(derEncoded: Array(der))
    }
    if [.appleJWS, .appleNotification].contains(target), root == nil {
        FileHandle.standardError.write(
            Data("\(target.rawValue) needs OPENCAT_FUZZ_APPLE_ROOT (run.sh writes it)\n".utf8)
        )
        exit(70)
    }
    do { return try Harness(target: target, appleRoot: root) } catch {
        FileHandle.standardError.write(Data("the harness cannot start: \(error)\n".utf8))
        exit(70)
    }
}()

/// libFuzzer calls this once. With OPENCAT_FUZZ_SEEDS=DIR (and OPENCAT_FUZZ_REPOSITORY), it writes the target's
/// seed corpus into DIR and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let environment = ProcessInfo.processInfo.environment
    if let seeds = environment["OPENCAT_FUZZ_SEEDS"] {
        guard let target = FuzzTarget(rawValue: environment["OPENCAT_FUZZ_TARGET"] ?? "") else { exit(64) }
        let folder = URL(fileURLWithPath: seeds)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var writer = SeedWriter(
            repository: URL(fileURLWithPath: environment["OPENCAT_FUZZ_REPOSITORY"] ?? "."),
            folder: folder,
            appleRootPath: environment["OPENCAT_FUZZ_APPLE_ROOT"]
        )
        do { try writer.writeSeeds(for: target) } catch {
            FileHandle.standardError.write(Data("seeds: \(error)\n".utf8))
            exit(70)
        }
        print("\(target.rawValue): \(writer.count) seeds in \(folder.path)")
        exit(0)
    }
    _ = harness
    return 0
}

/// libFuzzer calls this for every input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: size) } ?? Data()
    if harness.isSynchronous {
        harness.runSynchronously(data)
        return 0
    }
    // The async entry points run on this thread, every job of the input's task (and its child tasks and actors)
    // included, so all its memory is freed before the callback returns: libFuzzer's per-input leak check sees
    // balanced allocations, and a real leak still shows.
    InlineTaskExecutor.shared.run { await harness.run(data) }
    return 0
}

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The executable's entry point: SwiftPM names it `<module>_main`; it hands over to libFuzzer's driver.
@_cdecl("OpenCatFuzz_main")
public func fuzzMain(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { bytes, size in fuzzerTestOneInput(bytes, size) }
}

/// A task executor that runs jobs on the thread that calls ``run(_:)``, until the operation's task is done and no job
/// is left.
final class InlineTaskExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = InlineTaskExecutor()
    private let jobs = Mutex<[UnownedJob]>([])
    /// Signalled per job enqueued: the draining thread sleeps on it while a job is due from elsewhere (a wake-up
    /// hint only; the queue is the truth).
    // Waited on by libFuzzer's own thread (the draining one), never by a thread of Swift concurrency's pool.
    private let available = DispatchSemaphore(value: 0)  // blocking-ok: libFuzzer's thread

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        available.signal()
    }

    func run(_ operation: @escaping @Sendable () async -> Void) {
        let finished = Flag()
        Task(executorPreference: self) {
            await operation()
            finished.set()
        }
        while true {
            let next = jobs.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            if let next {
                next.runSynchronously(on: asUnownedTaskExecutor())
            } else if finished.isSet {
                return
            } else {
                // A job is due from another thread (a task that did not inherit this executor).
                _ = available.wait(timeout: .now() + .milliseconds(1))
            }
        }
    }
}

/// A flag set once, read from another thread.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
