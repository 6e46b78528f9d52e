"""What the tests (and some scripts) share; not part of the wheel. No test file imports another:
a helper two test files use lives here, a fixture in the ``conftest.py`` of the folder that uses it.

- :mod:`tests.support.paths`: ``REPO``, ``EXAMPLES``, ``SHARED`` and ``shared_path`` (the ``shared`` marker's skip)
- :mod:`tests.support.hunts`: seeded synthetic runs (a productive warm-up, a hunt for what does not exist, restated conclusions)
- :mod:`tests.support.embedders`: stand-in models (a gated one for ordering, a hashed one for structure)
- :mod:`tests.support.runs`: runs, records and verdict counters the store and service tests build
- :mod:`tests.support.cases`: labelled cases every rule must score the same way
- :mod:`tests.support.streams`: seeded chunkings and the chunk a character arrives in
- :mod:`tests.support.waiting`: bounded polling (a condition, the gRPC health status)
- :mod:`tests.support.tls`: a test CA and certificates (openssl)
- :mod:`tests.support.redis_proc`: a throwaway ``redis-server`` on loopback
"""
