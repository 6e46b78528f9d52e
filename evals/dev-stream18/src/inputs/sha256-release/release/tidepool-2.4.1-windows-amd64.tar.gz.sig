signature for windows-amd64
