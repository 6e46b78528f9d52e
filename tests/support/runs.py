"""Runs and run records the store and service tests build (the same ones in every store's tests)."""

from __future__ import annotations

from plateau.config import Config
from plateau.engine import Engine
from plateau.record import RunRecord
from plateau.types import Step, Verdict

__all__ = ["applied_verdicts", "big_step", "looping_run", "run_record"]


def looping_run(n: int, seed: int = 0) -> list[Step]:
    """A run that works for a while, then loops on a failing call (so the breaker moves)."""
    out = []
    for i in range(n):
        if i < n // 2:
            out.append(Step(index=i, text=f"Reading module {(i * 37 + seed) % 101} to see what it exports and why.",
                            tool="read_file", args={"path": f"m{i}.py"}, result=f"def f{i}(): return {i * seed}"))
        else:
            out.append(Step(index=i, text=["Retrying the patch.", "Once more.", "Again, carefully."][i % 3],
                            tool="apply", args={"p": "x"}, result="Error: patch does not apply"))
    return out


def big_step(i: int, size: int) -> Step:
    """Step ``i`` whose arguments hold about ``size`` characters (to grow a run's stored state)."""
    blob = "".join(f"{i}-{k:06d} " for k in range(size // 9))
    return Step(index=i, text=f"Writing part {i} of the dataset.", tool="write_file", args={"path": f"p{i}", "body": blob},
                result="ok")


def run_record(run_id: str, tenant: str = "", ended: bool = False, at: float = 1.0) -> RunRecord:
    """A fresh run's record, as a store holds it (no steps yet)."""
    from plateau.analysis import RunAnalysis

    return RunRecord(run_id=run_id, context=None, analysis=RunAnalysis(Config()), tenant=tenant, created=at, updated=at,
                     ended=ended, ended_at=at if ended else None)


def applied_verdicts(engine: Engine) -> list[Verdict]:
    """A list that grows by each verdict ``engine`` applies from now on (its listeners; re-sends answered from the record add nothing)."""
    applied: list[Verdict] = []
    engine.listeners.append(lambda tenant, verdict: applied.append(verdict))
    return applied
