/// LLMKeyResolver's version, from VERSION. The package's API arrives with its issue; this module is the buildable start.
public enum LLMKeyResolverVersion {
    /// The semantic version string.
    public static let string = "0.1.0"
}
