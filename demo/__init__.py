"""The demo: the demo agent's harness (:mod:`demo.harness`, ``python -m demo.harness``), the
two-host demo (``run.sh``) and its recorded runs and streams. Not part of the wheel; run from
the repository's root."""
