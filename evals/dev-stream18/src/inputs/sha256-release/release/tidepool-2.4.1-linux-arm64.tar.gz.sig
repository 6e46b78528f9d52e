signature for linux-arm64
