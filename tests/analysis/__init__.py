"""Analysis tests: how steps and streams are read (embeddings, signals, detectors, the stream guard, the eval sets, real-run kinds)."""
