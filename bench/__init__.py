"""The Plateau lab, beside the wheel (not installed with it): the evaluator over labelled cases
(:mod:`bench.evaluate` scores, :mod:`bench.evalrun` runs detectors), the re-implemented
baselines (:mod:`bench.baselines`) and the ``eval`` command (:mod:`bench.cli`;
``python -m bench eval PATH...``, or ``plateau eval`` from a checkout).
"""
