public import OpenCatCore

// The kernel's JSON value, re-exported with its members so code that imports only MockStores keeps using it.
@_exported public import enum OpenCatCore.JSONValue

/// The kernel's exact JSON value (`JSONValue`), under the name MockStores has always exported:
/// cassette bodies are compared and emitted through it, never through `Double`.
public typealias JSONValue = OpenCatCore.JSONValue
