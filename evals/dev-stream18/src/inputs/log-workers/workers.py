"""Simulate a pool of workers polling a queue; logs with a simulated clock."""
import logging
import sys

START = 1795852800.0  # 2026-11-28 08:00:00 UTC
clock = [START]


class SimFormatter(logging.Formatter):
    converter = __import__("time").gmtime

    def formatTime(self, record, datefmt=None):
        return super().formatTime(record, datefmt)


def main():
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(SimFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    factory = logging.getLogRecordFactory()

    def record_factory(*args, **kwargs):
        rec = factory(*args, **kwargs)
        rec.created = clock[0]
        return rec

    logging.setLogRecordFactory(record_factory)
    workers = [logging.getLogger(f"worker-{i}") for i in (1, 2, 3)]
    jobs = {12: ("worker-2", "invoice-7741"), 21: ("worker-1", "invoice-7742")}
    for tick in range(30):
        clock[0] = START + tick * 10
        for w in workers:
            if tick in jobs and jobs[tick][0] == w.name:
                w.info("picked job %s", jobs[tick][1])
                w.info("job %s done in 3.2s", jobs[tick][1])
            else:
                w.info("queue empty, sleeping 10s")


main()
