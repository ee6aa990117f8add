// The fixture reader and the seeded generator live in HalleyTestFixtures (no dependencies), so
// HalleyHALTests can use them without the servers and requesters here; the other test targets
// get them through this import.
@_exported import HalleyTestFixtures
