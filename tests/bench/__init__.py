"""Tests of the lab beside the wheel (bench/: the evaluator, the baselines; the benchmark scripts)."""
