"""Simulated sync worker: retries an unreachable upstream with capped backoff, then falls back."""
import logging
import sys

logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="%(levelname)-7s %(name)s: %(message)s")
log = logging.getLogger("sync.worker")

UPSTREAM = "inventory-api:8443"
MAX_TRIES = 8


def attempt(n):
    # the upstream stays down in this simulation
    raise ConnectionRefusedError(111, "Connection refused")


delay = 0.5
log.info("starting sync batch 41 (312 items) against %s", UPSTREAM)
for n in range(1, MAX_TRIES + 1):
    try:
        attempt(n)
    except ConnectionRefusedError as exc:
        log.warning("connect %s failed: [Errno %d] %s; retry %d/%d in %.1fs",
                    UPSTREAM, exc.args[0], exc.args[1], n, MAX_TRIES, delay)
        delay = min(delay * 2, 8.0)
log.error("giving up on %s after %d attempts; batch 41 queued for replay", UPSTREAM, MAX_TRIES)
log.info("falling back to cached snapshot (age 00:14:32)")
