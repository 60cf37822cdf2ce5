import ArgumentParser
import Foundation
import StoreAdapters

/// `opencat apple receipt --file F`: the transaction ids of a legacy App Store app receipt, as JSON.
struct AppleReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Print the transaction ids of a legacy App Store app receipt as JSON.",
        discussion: """
            The file is the app receipt (appStoreReceiptURL) in base64, as apps send it, or its raw bytes (PKCS#7, \
            BER or DER). Prints {"bundleId", "transactions": [{"transactionId", "originalTransactionId", \
            "productId", "purchaseDate", …}], …}. The receipt's signature is NOT checked: use the ids only to ask \
            the App Store Server API (opencat verify apple --transaction-id), which answers with signed data. \
            Exit 0: read; 2: not a receipt (with a one-line reason); 64: usage error (an unreadable file).
            """
    )

    @Option(name: .customLong("file"), help: "The receipt file (base64 text or raw PKCS#7 bytes).")
    var file: String

    /// What is printed: the receipt's fields, its in-app purchases as `transactions`.
    struct Output: Encodable {
        var bundleId: String
        var applicationVersion: String?
        var originalApplicationVersion: String?
        var receiptType: String?
        var creationDate: Date?
        var expirationDate: Date?
        var transactions: [AppleLegacyReceipt.InAppPurchase]
    }

    func run() async throws {
        let data = try Self.contents(of: file)
        let receipt: AppleLegacyReceipt
        do throws(StoreAdapterError) {
            receipt = try Self.read(data)
        } catch {
            FileHandle.standardError.write(
                Data("not a receipt: \(error.message)\(error.storeReason.map { " (\($0))" } ?? "")\n".utf8)
            )
            throw ExitCode(2)
        }
        let output = Output(
            bundleId: receipt.bundleId,
            applicationVersion: receipt.applicationVersion,
            originalApplicationVersion: receipt.originalApplicationVersion,
            receiptType: receipt.receiptType,
            creationDate: receipt.creationDate,
            expirationDate: receipt.expirationDate,
            transactions: receipt.inAppPurchases
        )
        print(String(decoding: try VerifyOutput.encoder.encode(output), as: UTF8.self))
    }

    /// The file's bytes; a missing or unreadable file is a usage error (exit 64). Of a file far larger than any
    /// receipt, only enough is read for ``read(_:)`` to refuse it as too large.
    static func contents(of path: String) throws -> Data {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let size = (attributes?[.size] as? NSNumber)?.intValue,
            attributes?[.type] as? FileAttributeType == .typeRegular
        else {
            throw ValidationError("cannot read the receipt file \(path)")
        }
        let limit = AppleLegacyReceipt.maximumBytes * 3
        if size <= limit, let data = FileManager.default.contents(atPath: path) { return data }
        // Over the limit: the first limit + 1 bytes are over both of AppleLegacyReceipt's limits too.
        guard let handle = FileHandle(forReadingAtPath: path), let head = try? handle.read(upToCount: limit + 1)
        else {
            throw ValidationError("cannot read the receipt file \(path)")
        }
        try? handle.close()
        return head
    }

    /// Raw PKCS#7 (a SEQUENCE: first byte 0x30), or base64 text.
    static func read(_ data: Data) throws(StoreAdapterError) -> AppleLegacyReceipt {
        if data.first == 0x30 { return try AppleLegacyReceipt(der: data) }
        return try AppleLegacyReceipt(base64: String(decoding: data, as: UTF8.self))
    }
}
