signature for darwin-arm64
