"""The step detectors, one family per file (registered in :mod:`plateau.analysis.registry`)."""
