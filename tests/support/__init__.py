"""Fixtures the tests and the scripts share (not part of the wheel): a throwaway ``redis-server``
(:mod:`tests.support.redis_proc`)."""
