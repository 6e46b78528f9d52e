"""Three scripted agents the integration examples run offline: one stuck, two healthy.

Each scenario is what a model says and which tool it calls, turn by turn, and what the tools
answer; each SDK's own fake model plays the turns and the SDK runs the tools, so Plateau sees the
run exactly as it would see a live one.

- ``loop``: the rounding test fails, and the model runs it again and again, unchanged (Plateau
  should steer, then trip);
- ``healthy``: a bug fix that reads, edits, fails once, fixes the import and passes (from
  ``examples/example-productive-bugfix.json``; Plateau should never intervene);
- ``poller``: the same rollout-status command polled while its output advances, then a metrics
  check (from ``examples/example-productive-rollout-poller.json``; never intervene either).

The LangChain-based examples (``langchain_agent.py``, ``langgraph_react_agent.py``) share
:func:`chat_model` (LangChain's ``GenericFakeChatModel`` playing a scenario) and
:func:`langchain_outcome` (what happened, from the final messages); both import
``langchain_core`` only when called, so the other examples need none of it.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

FAILING = "F\n____ test_total_rounding ____\nAssertionError: assert Decimal('10.01') == Decimal('10.00')\n1 failed, 41 passed in 0.82s"

#: (what the model says, the tool it calls or None for its final answer, the call's arguments, the tool's answer)
Turn = tuple[str, "str | None", "dict[str, Any]", str]

HEALTHY: list[Turn] = [
    (
        "Reproducing the reported rounding bug with the failing test first.",
        "bash",
        {"command": "pytest tests/test_invoice.py -x -q"},
        FAILING,
    ),
    (
        "The assertion shows a rounding difference. Let me look at how totals are computed.",
        "read_file",
        {"path": "billing/invoice.py"},
        "def total(lines, currency):\n    amount = sum(l.price * l.qty for l in lines)\n    return round(amount, currency.exponent)\n",
    ),
    (
        "total() uses round(), which rounds half to even. Checking how currency exponents are defined.",
        "grep",
        {"pattern": "exponent", "path": "billing/"},
        "billing/currency.py:12:    exponent: int\nbilling/currency.py:30:JPY = Currency('JPY', exponent=0)",
    ),
    (
        "Switching to Decimal.quantize with ROUND_HALF_UP, as the accounting spec requires.",
        "edit_file",
        {
            "path": "billing/invoice.py",
            "old": "return round(amount, currency.exponent)",
            "new": "return amount.quantize(Decimal(1).scaleb(-currency.exponent), rounding=ROUND_HALF_UP)",
        },
        "Edited billing/invoice.py (1 replacement)",
    ),
    (
        "Running the invoice tests again.",
        "bash",
        {"command": "pytest tests/test_invoice.py -x -q"},
        "E   NameError: name 'ROUND_HALF_UP' is not defined\n1 failed, 41 passed in 0.79s",
    ),
    (
        "I forgot the import. Adding ROUND_HALF_UP to the decimal import line.",
        "edit_file",
        {"path": "billing/invoice.py", "old": "from decimal import Decimal", "new": "from decimal import ROUND_HALF_UP, Decimal"},
        "Edited billing/invoice.py (1 replacement)",
    ),
    ("Re-running the invoice tests.", "bash", {"command": "pytest tests/test_invoice.py -x -q"}, "42 passed in 0.80s"),
    ("All invoice tests pass. Running the whole suite.", "bash", {"command": "pytest -q"}, "318 passed, 2 skipped in 14.2s"),
    ("Done: totals now round half up per currency exponent.", None, {}, ""),
]

POLLER: list[Turn] = [
    (
        "Deployment started. I'll poll the rollout status until it completes.",
        "bash",
        {"command": "kubectl rollout status deploy/api --timeout=5s"},
        'Waiting for deployment "api" rollout to finish: 0 of 6 updated replicas are available...',
    ),
    *[
        (
            "Polling the rollout again.",
            "bash",
            {"command": "kubectl rollout status deploy/api --timeout=5s"},
            f'Waiting for deployment "api" rollout to finish: {n} of 6 updated replicas are available...',
        )
        for n in range(1, 6)
    ],
    (
        "Polling the rollout again.",
        "bash",
        {"command": "kubectl rollout status deploy/api --timeout=5s"},
        'deployment "api" successfully rolled out',
    ),
    (
        "The rollout finished. Checking the error rate of the new version.",
        "metrics_query",
        {"expr": 'sum(rate(http_requests_total{app="api",code=~"5.."}[5m]))'},
        "0.0004",
    ),
    ("The rollout is healthy: all 6 replicas are available and the 5xx rate is 0.0004/s.", None, {}, ""),
]


def _loop() -> Iterator[Turn]:
    for attempt in itertools.count(1):
        yield (
            f"The rounding test still fails; running it again (attempt {attempt}).",
            "bash",
            {"command": "pytest tests/test_invoice.py -x -q"},
            FAILING,
        )


TASKS = {
    "loop": "Make the invoice rounding test pass.",
    "healthy": "Invoice totals are off by one cent for some currencies; fix it.",
    "poller": "Deploy the new api image and confirm the rollout is healthy.",
}


@dataclass
class Scenario:
    """One scripted run: the model's turns (:meth:`next_turn`) and the tools' answers (:meth:`run_tool`)."""

    name: str
    task: str = ""
    turns: Iterator[Turn] = field(default_factory=lambda: iter(()))
    answers: list[tuple[str, dict[str, Any], str]] = field(default_factory=list)
    tool_calls: int = 0

    def next_turn(self) -> Turn:
        """The model's next turn; its tool's answer is queued for :meth:`run_tool`."""
        turn = next(self.turns)
        if turn[1] is not None:
            self.answers.append((turn[1], turn[2], turn[3]))
        return turn

    def run_tool(self, tool: str, args: dict[str, Any]) -> str:
        """What the tool answers (the scripted answer of the matching pending call)."""
        self.tool_calls += 1
        for n, (name, expected, answer) in enumerate(self.answers):
            if name == tool and {k: v for k, v in args.items() if v not in ("", None)} == expected:
                del self.answers[n]
                return answer
        raise ValueError(f"{tool}{args}: no such scripted call")


def scenario(name: str) -> Scenario:
    """A fresh ``loop``, ``healthy`` or ``poller`` scenario."""
    turns = {"loop": _loop, "healthy": lambda: iter(HEALTHY), "poller": lambda: iter(POLLER)}
    if name not in turns:
        raise ValueError(f"scenario: must be one of {sorted(turns)}, got {name!r}")
    return Scenario(name, TASKS[name], turns[name]())


def tool_functions(run: Scenario) -> list[Any]:
    """The scenario's tools as plain typed functions (what each SDK turns into its tools)."""

    def bash(command: str) -> str:
        """Run a shell command and return its output."""
        return run.run_tool("bash", {"command": command})

    def read_file(path: str) -> str:
        """Read a file of the repository."""
        return run.run_tool("read_file", {"path": path})

    def grep(pattern: str, path: str) -> str:
        """Search files under a path for a pattern."""
        return run.run_tool("grep", {"pattern": pattern, "path": path})

    def edit_file(path: str, old: str, new: str) -> str:
        """Replace the text `old` by `new` in a file."""
        return run.run_tool("edit_file", {"path": path, "old": old, "new": new})

    def metrics_query(expr: str) -> str:
        """Evaluate a PromQL expression."""
        return run.run_tool("metrics_query", {"expr": expr})

    return [bash, read_file, grep, edit_file, metrics_query]


# ----------------------------------------------- LangChain messages (langchain_agent.py, langgraph_react_agent.py)
@functools.cache
def _scripted_chat_model() -> Any:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import BaseMessage

    class ScriptedChatModel(GenericFakeChatModel):
        """``GenericFakeChatModel`` that accepts tools (it answers from its script) and records what it is shown."""

        inputs: list[list[BaseMessage]] = []

        def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:
            return self

        def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
            self.inputs.append(list(messages))
            return super()._generate(messages, *args, **kwargs)

    return ScriptedChatModel


def turns(run: Scenario) -> Iterator[Any]:
    """The scenario's turns as the model's LangChain ``AIMessage``s (tool calls ``call_1``, ``call_2``, ...)."""
    from langchain_core.messages import AIMessage

    n = 0
    while True:
        text, name, args, _ = run.next_turn()
        n += 1
        calls = [{"name": name, "args": args, "id": f"call_{n}", "type": "tool_call"}] if name else []
        yield AIMessage(content=text, tool_calls=calls)


def chat_model(run: Scenario) -> Any:
    """LangChain's ``GenericFakeChatModel`` playing ``run``'s turns; it accepts tools (``bind_tools``)
    and records every message list it is shown in ``.inputs``."""
    return _scripted_chat_model()(messages=turns(run), inputs=[])


def langchain_outcome(run: Scenario, model: Any, guard: Any, messages: list[Any]) -> dict[str, Any]:
    """What happened in ``run``: ``model`` from :func:`chat_model`, ``guard`` the Plateau middleware
    or graph guard (its ``verdicts`` and ``steers_injected`` by run id, one run), ``messages`` the
    agent's final messages."""
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    from plateau.integrations import STEER_PREFIX

    ((run_id, verdicts),) = guard.verdicts.items()
    calls = {c["id"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls}
    answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
    last = messages[-1]
    return {
        "scenario": run.name,
        "run_id": run_id,
        "model_calls": len(model.inputs),
        "tools_run": run.tool_calls,
        "actions": [v.action.value for v in verdicts],
        "steers": guard.steers_injected[run_id],
        "steer_seen_by_model": any(STEER_PREFIX in str(m.content) for shown in model.inputs for m in shown if isinstance(m, HumanMessage)),
        "ended_by_plateau": last.name == "plateau",
        "last_message": last.content,
        "unanswered_calls": sorted(calls - answered),
    }
