signature for linux-amd64
