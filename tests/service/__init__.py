"""Service tests: the gRPC server on a real socket, its clients, stores (SQLite, Redis), auth, limits and faults."""
