"""A small job worker that logs a heartbeat while polling an empty queue.
Time is simulated (fixed start, fixed step) so the log is reproducible."""
import logging, sys, datetime

START = datetime.datetime(2025, 3, 14, 9, 0, 0)

class SimClock(logging.Formatter):
    tick = 0
    def formatTime(self, record, datefmt=None):
        t = START + datetime.timedelta(seconds=5 * SimClock.tick)
        return t.strftime('%Y-%m-%d %H:%M:%S')

h = logging.StreamHandler(sys.stdout)
h.setFormatter(SimClock('%(asctime)s %(levelname)-5s [%(name)s] %(message)s'))
log = logging.getLogger('worker.poller')
log.addHandler(h); log.setLevel(logging.DEBUG)

jobs = {7: 'resize-image id=4411', 15: 'send-mail id=4412', 16: 'send-mail id=4413', 28: 'export-csv id=4414'}
log.info('worker started pid=4242 queue=default concurrency=1')
for i in range(1, 36):
    SimClock.tick = i
    if i in jobs:
        log.info('picked job %s', jobs[i])
        log.info('job done %s in 0.%02ds', jobs[i], (i * 7) % 90 + 10)
    else:
        log.debug('heartbeat: queue=default pending=0 inflight=0')
SimClock.tick = 36
log.info('shutdown requested, draining 0 jobs')
