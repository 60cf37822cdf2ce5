// The key server's wire contract and the licence types are products of their own (the server links them without the
// device SDK); integrators who import KeyServerClient keep seeing them, as before they moved.
@_exported public import KeyServerAPI
@_exported public import OpenCatLicense
