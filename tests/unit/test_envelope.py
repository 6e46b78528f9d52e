"""Harness envelopes are removed in one place, and text-format actions are read as calls."""

from __future__ import annotations

import pytest

from plateau.chat import steps_from_messages
from plateau.envelope import harness_view, text_action, unwrap
from plateau.types import Step, ToolStatus


@pytest.mark.parametrize(
    ("raw", "text", "code", "error", "envelope"),
    [
        ("<returncode>1</returncode>\n<output>\n</output>", "", 1, True, "mini-swe-agent"),
        ("<returncode>0</returncode>\n<output>\nok\n</output>", "ok", 0, False, "mini-swe-agent"),
        (
            "<returncode>0</returncode>\n<warning>\ntoo long\n</warning><output_head>\nhead\n</output_head>\n"
            "<elided_chars>\n900 characters elided\n</elided_chars>\n<output_tail>\ntail\n</output_tail>",
            "head\ntail",
            0,
            False,
            "mini-swe-agent",
        ),
        ("grep: x: No such file\n[The command completed with exit code 2.]\n[Current working directory: /workspace]",
         "grep: x: No such file", 2, True, "openhands"),
        ("done\n[Python interpreter: /usr/bin/python]", "done", None, None, "openhands"),
        ("Your command ran successfully and did not produce any output.\n(Open file: /r/a.py)\n(Current directory: /r)\nbash-$",
         "", None, None, "swe-agent"),
        ("Observation: 3 results found", "3 results found", None, None, "observation"),
        ('{"error": "Reservation not found"}', '{"error": "Reservation not found"}', None, True, "error-object"),
        ('{"error": {"code": 429, "message": "slow"}}', '{"error": {"code": 429, "message": "slow"}}', None, True, "error-object"),
        ('{"isError": true, "content": [{"type": "text", "text": "denied"}]}', "denied", None, True, "error-object"),
        ("make: *** [all] Error 1\nexit code: 2", "make: *** [all] Error 1", 2, True, "exit-line"),
        ('{"status": "ok", "error": null}', '{"status": "ok", "error": null}', None, None, None),
        ("plain text", "plain text", None, None, None),
    ],
)
def test_unwrap_reads_each_harness_envelope(raw: str, text: str, code: int | None, error: bool | None, envelope: str | None) -> None:
    got = unwrap(raw)
    assert (got.text, got.exit_code, got.error, got.envelope) == (text, code, error, envelope)


def test_two_empty_failures_are_empty_not_the_wrapper() -> None:
    empty = "<returncode>1</returncode>\n<output>\n</output>"
    a = harness_view(Step(0, "grep one", tool="bash", args={"command": "grep -rn foo src"}, result=empty))
    b = harness_view(Step(1, "grep two", tool="bash", args={"command": "grep -rn bar lib"}, result=empty))
    assert a.result == b.result == ""
    assert a.status is b.status is ToolStatus.ERROR


def test_a_status_set_by_the_caller_wins() -> None:
    view = harness_view(Step(0, "", tool="bash", result="<returncode>1</returncode>\n<output>\nx\n</output>", status="ok"))
    assert view.status is ToolStatus.OK and view.result == "x"


def test_text_action_is_one_fenced_bash_block() -> None:
    assert text_action("THOUGHT: look.\n\n```bash\nls -la\n```") == ("THOUGHT: look.", "ls -la")
    assert text_action("no block here") is None
    assert text_action("```bash\nls\n```\nand\n```bash\npwd\n```") is None  # two actions: a format error
    assert text_action("```python\nprint(1)\n```") is None


def test_a_text_format_step_with_a_result_is_read_as_a_call() -> None:
    step = Step(0, "THOUGHT: check.\n\n```bash\npytest -q\n```", result="<returncode>1</returncode>\n<output>\n1 failed\n</output>")
    view = harness_view(step)
    assert (view.tool, view.args_dict, view.result) == ("bash", {"command": "pytest -q"}, "1 failed")
    assert (view.status, view.text) == (ToolStatus.ERROR, "THOUGHT: check.")
    assert step.fingerprint() != view.fingerprint()  # the stored step keeps what was sent
    talk = Step(1, "Here is how:\n```bash\nls\n```")  # no result: an answer that shows a command
    assert harness_view(talk) is talk


def _mini(*turns: tuple[str, str]) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "one bash block per turn"}, {"role": "user", "content": "fix the bug"}]
    for said, reply in turns:
        messages += [{"role": "assistant", "content": said}, {"role": "user", "content": reply}]
    return messages


def test_chat_reads_mini_swe_agent_text_format_as_calls() -> None:
    steps = steps_from_messages(
        _mini(
            ("THOUGHT: find it\n\n```bash\ngrep -rn foo .\n```", "<returncode>1</returncode>\n<output>\n</output>"),
            ("THOUGHT: two\n```bash\nls\n```\n```bash\npwd\n```", "Please always provide EXACTLY ONE action in triple backticks."),
            ("THOUGHT: done\n\n```bash\necho SUBMIT && git diff\n```", "diff --git a/x b/x"),
        )
    )
    assert [s["tool"] for s in steps] == ["bash", None, "bash"]
    assert steps[0]["args"] == {"command": "grep -rn foo ."} and steps[0]["result"] == "" and steps[0]["status"] == "error"
    assert all("user" not in s for s in steps)  # the harness's replies are never the user's
    assert steps[2]["result"] == "diff --git a/x b/x"


def test_chat_keeps_a_snippet_a_person_answered_as_talk() -> None:
    messages = [
        {"role": "user", "content": "how do I list files?"},
        {"role": "assistant", "content": "Use:\n```bash\nls -la\n```"},
        {"role": "user", "content": "thanks, and hidden ones?"},
        {"role": "assistant", "content": "`ls -a` shows them."},
    ]
    steps = steps_from_messages(messages)
    assert [s["tool"] for s in steps] == [None, None]
    assert steps[0]["text"].startswith("Use:") and steps[1]["user"] == "thanks, and hidden ones?"


def test_a_format_rejection_is_the_failed_attempt_bounded_like_waiting() -> None:
    """A turn the harness refused for its format is read as the failed call of what it wrote;
    varied attempts refused in a row are bounded by the poll limits (steer at ``poll_steer``),
    not tripped like a failing call, and never read as the agent only talking."""
    from plateau.config import Config
    from plateau.engine import Engine
    from plateau.envelope import is_format_rejection
    from plateau.types import Action
    from tests.support.embedders import HashModel as _Hash

    reply = "Please always provide EXACTLY ONE action in triple backticks, found {n} actions."
    assert is_format_rejection(reply.format(n=2)) and not is_format_rejection("<returncode>0</returncode>\n<output>\nok\n</output>")
    view = harness_view(Step(0, "THOUGHT: both\n```bash\nls\n```\n```bash\npwd\n```", result=reply.format(n=2)))
    assert (view.tool, view.args_dict, view.status) == ("bash", {"command": "ls\npwd"}, ToolStatus.ERROR)
    engine = Engine(embedder=_Hash())
    actions = []
    for i in range(12):
        attempt = f"THOUGHT: try {i}\n```bash\nsed -n {i}p a.py\n```\n```python\nprint({i})\n```"
        actions.append(engine.observe("fmt", Step(i, attempt, result=reply.format(n=2 + i % 3))).action)
    poll_steer = Config().poll_steer
    assert Action.TRIP not in actions
    assert Action.STEER not in actions[: poll_steer - 1] and Action.STEER in actions
