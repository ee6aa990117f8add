// The one import a user writes: `import Halley` brings the HAL model and the requesters too.
@_exported import HalleyHAL
@_exported import HalleyTransport
