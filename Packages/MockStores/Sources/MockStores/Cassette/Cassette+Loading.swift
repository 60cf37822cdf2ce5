public import Foundation

extension Cassette {
    /// Loads, substitutes and validates one cassette file.
    /// - Parameters:
    ///   - url: the JSON file.
    ///   - variables: placeholder values: `{{stripe.secretKey}}` in any string of `input`, `config` or
    ///     `interactions` is replaced by `variables["stripe.secretKey"]`.
    ///   - displayName: how errors and ``source`` name the file (default: its path relative to the current
    ///     directory when inside it, else the full path).
    /// - Returns: the cassette, with ``source`` set.
    /// - Throws: ``CassetteError`` naming the file and the field: unreadable or too large a file (see
    ///   ``maximumFileSize``), invalid JSON, a wrong type, a
    ///   missing or unknown field, an unknown placeholder, or a rule of the format broken (see ``validate()``).
    public static func load(
        from url: URL,
        variables: [String: String] = [:],
        displayName: String? = nil
    ) throws -> Cassette {
        let name = displayName ?? Self.displayName(for: url)
        return try decode(readFile(at: url, displayName: name), file: name, variables: variables)
    }

    /// The largest cassette file accepted: 8 MiB. The biggest committed cassette is a few KiB; a cap checked
    /// before the file is read keeps a huge (or endless) file from costing seconds and hundreds of megabytes.
    public static let maximumFileSize = 8 * 1024 * 1024

    /// Reads a cassette file, refusing one larger than ``maximumFileSize`` before reading it fully: the size on
    /// disk is checked first, and at most ``maximumFileSize`` + 1 bytes are ever read (a file that grows, a pipe).
    /// - Parameters:
    ///   - url: the file.
    ///   - displayName: how errors name it (default: as ``load(from:variables:displayName:)`` does).
    /// - Throws: ``CassetteError`` when it cannot be read or is too large.
    public static func readFile(at url: URL, displayName: String? = nil) throws -> Data {
        let name = displayName ?? Self.displayName(for: url)
        let tooLarge = CassetteError(
            file: name,
            field: "(root)",
            message: "the file is larger than \(maximumFileSize) bytes (8 MiB)"
        )
        if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber,
            size.int64Value > Int64(maximumFileSize)
        {
            throw tooLarge
        }
        let data: Data?
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumFileSize + 1)
        } catch {
            throw CassetteError(file: name, field: "(root)", message: "cannot read the file")
        }
        guard (data?.count ?? 0) <= maximumFileSize else { throw tooLarge }
        return data ?? Data()
    }

    /// Decodes, substitutes and validates a cassette from JSON data.
    /// - Parameters:
    ///   - data: the JSON.
    ///   - file: the name used in errors and as ``source``.
    ///   - variables: placeholder values (see ``load(from:variables:displayName:)``).
    /// - Throws: ``CassetteError``.
    public static func decode(_ data: Data, file: String, variables: [String: String] = [:]) throws -> Cassette {
        try decodeTemplate(data, file: file).resolving(variables, file: file)
    }

    /// Decodes and validates a cassette from JSON data, leaving its `{{…}}` placeholders in place: the JSON is
    /// parsed once, and the caller can read ``config`` (the App Store payloads to sign, say) before resolving them
    /// with ``resolving(_:file:)``.
    /// - Throws: ``CassetteError``.
    public static func decodeTemplate(_ data: Data, file: String) throws -> Cassette {
        guard data.count <= maximumFileSize else {
            throw CassetteError(
                file: file,
                field: "(root)",
                message: "the file is larger than \(maximumFileSize) bytes (8 MiB)"
            )
        }
        var cassette: Cassette
        do {
            cassette = try JSONDecoder().decode(Cassette.self, from: data)
        } catch let error as DecodingError {
            throw CassetteError.from(error, file: file)
        }
        cassette.source = file
        do {
            try cassette.validate()
        } catch let error as CassetteError {
            throw CassetteError(file: file, field: error.field, message: error.message)
        }
        return cassette
    }

    /// The cassette with its placeholders replaced.
    /// - Throws: ``CassetteError`` naming `file` and the field of an unknown placeholder.
    public func resolving(_ variables: [String: String], file: String) throws -> Cassette {
        do {
            return try substituting(variables)
        } catch let error as CassetteError {
            throw CassetteError(file: file, field: error.field, message: error.message)
        }
    }

    /// Loads every cassette under a directory (recursively, sorted by path), skipping `scenarios.json` and
    /// `*.schema.json`.
    /// - Parameters:
    ///   - directory: the folder.
    ///   - variables: placeholder values.
    /// - Returns: the cassettes in path order.
    /// - Throws: the first ``CassetteError`` in path order.
    public static func loadAll(in directory: URL, variables: [String: String] = [:]) throws -> [Cassette] {
        try cassetteFiles(in: directory).map { try load(from: $0, variables: variables) }
    }

    /// Loads every cassette under a directory like ``loadAll(in:variables:)``, but keeps going after a bad file:
    /// one result per file, in path order, so a linter or runner can report every invalid cassette at once.
    /// - Throws: ``CassetteError`` only when the directory cannot be listed.
    public static func loadEach(in directory: URL, variables: [String: String] = [:]) throws -> [Result<
        Cassette, CassetteError
    >] {
        try cassetteFiles(in: directory).map { url in
            Result { try load(from: url, variables: variables) }.mapError { error in
                error as? CassetteError
                    ?? CassetteError(file: displayName(for: url), field: "(root)", message: "\(error)")
            }
        }
    }

    /// The cassette files under a directory (recursively, sorted by path), skipping `scenarios.json` and
    /// `*.schema.json`.
    /// - Throws: ``CassetteError`` when the directory cannot be listed.
    public static func cassetteFiles(in directory: URL) throws -> [URL] {
        guard
            let enumerator = FileManager.default.enumerator(
                at: directory,
                includingPropertiesForKeys: [.isRegularFileKey],
                options: [.skipsHiddenFiles]
            )
        else {
            throw CassetteError(
                file: displayName(for: directory),
                field: "(root)",
                message: "cannot list the directory"
            )
        }
        var files: [URL] = []
        for case let url as URL in enumerator {
            let name = url.lastPathComponent
            guard url.pathExtension == "json", name != "scenarios.json", !name.hasSuffix(".schema.json") else {
                continue
            }
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    static func displayName(for url: URL) -> String {
        let path = url.standardizedFileURL.path
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let prefix = current.hasSuffix("/") ? current : current + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
