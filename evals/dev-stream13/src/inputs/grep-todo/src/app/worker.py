def run(queue):
    # TODO: add a timeout
    while True:
        job = queue.get()
        # TODO: retry failed jobs
        job()
        # TODO: report progress
