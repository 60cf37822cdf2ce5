/// ChippiPayClient's version, from VERSION.
public enum ChippiPayClientVersion {
    /// The semantic version string.
    public static let string = "0.1.0"
}
