signature for freebsd-amd64
