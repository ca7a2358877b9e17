/// Support for integration tests: starting the WCS emulator and using its control API.
public enum TestSupport {}
