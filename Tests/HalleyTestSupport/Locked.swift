import Halley

/// The package's one lock (`LockedValue`), under the name the test helpers have used: the
/// test targets share the package, so they need no copy of it.
package typealias Locked = LockedValue
