"""The statistics the trackers test with: a one-sided CUSUM (:mod:`~plateau.stats.cusum`), a
robust baseline (median and MAD, :mod:`~plateau.stats.robust_baseline`) and the calibrated stall
test that standardises a signal against the baseline and feeds it to the CUSUM
(:mod:`~plateau.stats.calibrated`). The detectors that read them live in :mod:`plateau.analysis`;
the trackers that compute the signals in :mod:`plateau.signals`.
"""
