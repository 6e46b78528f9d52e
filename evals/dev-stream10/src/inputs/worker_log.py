import logging, sys
logging.basicConfig(stream=sys.stdout, level=logging.INFO,
                    format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                    datefmt="2026-12-03 04:00:%S")
log = logging.getLogger("ingest")
for batch in range(1, 13):
    worker = (batch - 1) % 3 + 1
    log.info("worker-%d processed batch %03d (500 records, 0 errors)", worker, batch)
log.info("all 12 batches done")
