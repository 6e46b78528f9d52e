import csv
import logging
import pathlib

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
log = logging.getLogger("importer")

total = 0
files = sorted(pathlib.Path("data").glob("readings_*.csv"))
log.info("found %d files to import", len(files))
for path in files:
    log.info("importing %s", path.name)
    with path.open() as f:
        rows = list(csv.DictReader(f))
    total += len(rows)
    log.info("imported %s: %d rows", path.name, len(rows))
log.info("done: %d files, %d rows in total", len(files), total)
