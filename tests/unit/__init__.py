"""Unit tests: the library's pieces in process (types, config, codec, engine, breaker, policy, readers, the import layout)."""
