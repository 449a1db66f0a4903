import Glibc

/// Sets an environment variable a suite needs (an SDL driver) unless it
/// already has that value. `make test` sets these before the test process
/// starts (the Makefile's UNIT_ENV): setenv while other suites run beside
/// this one can move the environment under their readers. Running `swift
/// test` by hand still works, through the setenv.
public func requireEnvironment(_ name: String, _ value: String) {
    if let current = getenv(name), String(cString: current) == value { return }
    setenv(name, value, 1)
}
