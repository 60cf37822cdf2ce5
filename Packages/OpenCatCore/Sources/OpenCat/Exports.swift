// The device SDK keeps its state in OpenCatStorage's encrypted cache: apps that import OpenCat configure it (a
// `KeyProvider`, a cache file) without importing the storage product themselves.
@_exported public import OpenCatStorage
