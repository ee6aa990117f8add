// `import HalleyTransport` brings the HAL values its API is written in.
@_exported import HalleyHAL
