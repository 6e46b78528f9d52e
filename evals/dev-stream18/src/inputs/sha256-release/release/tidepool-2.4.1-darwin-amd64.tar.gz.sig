signature for darwin-amd64
