import ChippiPayClient
import OpenCatCore
import Testing

@Suite struct PassphraseSealTests {
    /// OpenSSL `enc -aes-256-cbc -md md5` with salt 0102030405060708, as CryptoJS and ChipiPay's SDK produce it.
    @Test func sealsAsCryptoJSAndOpenSSLDo() throws {
        let plaintext = "0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        let sealed = try PassphraseSeal.seal(
            Secret(plaintext),
            passphrase: Secret("1234"),
            salt: [1, 2, 3, 4, 5, 6, 7, 8]
        )
        #expect(
            sealed
                == "U2FsdGVkX18BAgMEBQYHCEXrPqkdvAV/28+NwFiyn/D5bz7zfLOPkwOK65EQO8JoYmAgy1rGnPdZKjhEL3VtTaXNFifjUKgkbiWBooFFywADF+esDj6CyMzkKeZ7X/10"
        )
        #expect(try PassphraseSeal.open(sealed, passphrase: Secret("1234")).revealed == plaintext)
    }

    @Test func aWrongPassphraseOrDamagedTextRevealsNothing() throws {
        let sealed = try PassphraseSeal.seal(Secret("0xabc"), passphrase: Secret("right"))
        #expect(sealed.hasPrefix("U2FsdGVkX1"))
        do {
            _ = try PassphraseSeal.open(sealed, passphrase: Secret("wrong"))
            Issue.record("a wrong passphrase opened the seal")
        } catch {
            #expect(!error.description.contains("0xabc"))
        }
        #expect(throws: ChippiPayError.self) { try PassphraseSeal.open("not base64!", passphrase: Secret("right")) }
        #expect(throws: ChippiPayError.self) {
            try PassphraseSeal.open(String(sealed.dropLast(8)), passphrase: Secret("right"))
        }
        #expect(throws: ChippiPayError.self) { try PassphraseSeal.seal(Secret("x"), passphrase: Secret("")) }
    }
}
