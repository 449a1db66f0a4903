/// The version each program prints for --version, and the background player
/// reports in its status.
public let mediaplayVersion = "0.1.0"
