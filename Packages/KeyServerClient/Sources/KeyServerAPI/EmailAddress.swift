/// Email addresses as the key server, its client and its web portal accept them: the RFC 5321 shape of a mailbox
/// (`local@domain`) in ASCII, at most 254 octets. The local part is 1–64 characters of RFC 5322 `atext` in
/// dot-separated atoms (no leading, trailing or doubled dot; no quoted form); the domain is two or more labels of
/// letters, digits and inner hyphens, each 1–63 characters, the last not all digits. So `@`, `a@`, `@b`, `a@b` and
/// `a@-b.c` are refused.
public enum EmailAddress {
    /// Whether `text` is an address of that shape.
    public static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count <= 254, let at = bytes.lastIndex(of: UInt8(ascii: "@")) else { return false }
        return isLocalPart(bytes[..<at]) && isDomain(bytes[(at + 1)...])
    }

    /// The address lowercased and without surrounding spaces, when it is valid.
    public static func normalized(_ text: String) -> String? {
        let trimmed = text.trimmingSpaces().lowercased()
        return isValid(trimmed) ? trimmed : nil
    }

    static func isLocalPart(_ local: ArraySlice<UInt8>) -> Bool {
        guard (1...64).contains(local.count) else { return false }
        let atoms = local.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return atoms.allSatisfy { atom in !atom.isEmpty && atom.allSatisfy(isAtext) }
    }

    static func isDomain(_ domain: ArraySlice<UInt8>) -> Bool {
        guard (1...253).contains(domain.count) else { return false }
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, let last = labels.last, !last.allSatisfy(isDigit) else { return false }
        return labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != UInt8(ascii: "-") && label.last != UInt8(ascii: "-")
                && label.allSatisfy { isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// RFC 5322 `atext`: letters, digits and ``!#$%&'*+-/=?^_`{|}~``.
    static func isAtext(_ byte: UInt8) -> Bool {
        isLetterOrDigit(byte) || Array("!#$%&'*+-/=?^_`{|}~".utf8).contains(byte)
    }
}

extension String {
    fileprivate func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
