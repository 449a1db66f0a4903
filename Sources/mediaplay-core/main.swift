import MediaplayCore

// The `mediaplay-core` program: every command (MediaplayCore), with the
// process's own streams, environment and config.
await MediaplayProgram.main()
