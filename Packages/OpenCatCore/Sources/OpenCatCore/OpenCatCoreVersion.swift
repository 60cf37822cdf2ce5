/// This package's version, from VERSION.
public enum OpenCatCoreVersion {
    /// The semantic version string.
    public static let string = "0.1.0"
}
