"""An OpenAI chat-completions agent guarded by Plateau, offline.

The agent is the usual tool loop over the ``openai`` SDK: ask the model, run the tool calls it
makes, append the results, repeat. Plateau sees the message list after every turn
(:class:`plateau.integrations.openai.ChatRun`), checks each call before it runs, injects its
steer as its own message, and stops the run on a trip.

The model here is scripted and served to the real ``openai`` client through an
``httpx.MockTransport`` (nothing leaves the machine): it keeps calling ``run_tests`` on the same
path although the tests fail the same way every time, the loop Plateau exists to stop. To
drive a real model instead, drop ``http_client=`` and set ``OPENAI_API_KEY``.

Run it from a clone (``pip install -e ".[server,openai]"``)::

    python examples/integrations/openai_chat.py                  # Plateau in process
    python examples/integrations/openai_chat.py --remote 127.0.0.1:50051   # a running plateau serve
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import httpx
import openai

from plateau import Client
from plateau.integrations import RunTripped
from plateau.integrations.openai import ChatRun, steer_message

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "run_tests",
            "description": "Run the test suite under a path.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        },
    }
]


def run_tests(path: str) -> str:
    """The tool: the same failure every time (the bug is never fixed)."""
    return f"FAILED {path}/test_invoice.py::test_rounding - AssertionError: assert 10.004 == 10.0\n1 failed, 41 passed in 0.42s"


class ScriptedModel:
    """An OpenAI-compatible chat-completions endpoint that always asks to re-run the tests."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        turn = len(self.requests)
        message = {
            "role": "assistant",
            "content": f"The rounding test still fails; running the tests again (attempt {turn}).",
            "tool_calls": [
                {"id": f"call_{turn}", "type": "function", "function": {"name": "run_tests", "arguments": json.dumps({"path": "tests"})}}
            ],
        }
        completion = {
            "id": f"chatcmpl-{turn}",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
        }
        return httpx.Response(200, json=completion)


def run_agent(client: Client, max_turns: int = 12) -> dict[str, Any]:
    """Run the guarded agent loop; returns what happened (turns, steers injected, the trip)."""
    model = ScriptedModel()
    llm = openai.OpenAI(
        api_key="offline", base_url="http://model.invalid/v1", http_client=httpx.Client(transport=httpx.MockTransport(model))
    )
    messages: list[Any] = [
        {"role": "system", "content": "You are a careful software engineer."},
        {"role": "user", "content": "Make the invoice rounding test pass."},
    ]
    run = ChatRun(client)
    steers: list[str] = []
    refused: list[str] = []
    outcome: dict[str, Any] = {"run_id": run.run_id, "tripped": None}
    try:
        for _ in range(max_turns):
            reply = llm.chat.completions.create(model="scripted", messages=messages, tools=TOOLS)  # type: ignore[arg-type]
            message = reply.choices[0].message
            messages.append(message)
            for call in message.tool_calls or []:
                before = run.check_call(call.function.name, call.function.arguments)
                if before.action.value == "trip":  # refuse the call before it runs: stop the run here
                    refused.append(call.id)
                    raise RunTripped(before)
                output = run_tests(**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": output})
            verdict = run.update(messages)
            if verdict is not None and verdict.action.value == "steer" and verdict.message:
                steer = steer_message(verdict)  # "[Plateau] …", as every integration injects it
                steers.append(steer["content"])
                messages.append(steer)
    except RunTripped as trip:
        outcome["tripped"] = {"step": trip.verdict.step_index, "reasons": list(trip.verdict.reasons), "message": trip.verdict.message}
    outcome.update(turns=len(model.requests), steers=steers, refused=refused, steer_seen_by_model=_seen(model.requests, steers))
    return outcome


def _seen(requests: list[dict[str, Any]], steers: list[str]) -> bool:
    """Whether a later model request carried a steer message."""
    return any(any(m.get("content") == steer for m in r["messages"]) for r in requests for steer in steers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--remote", metavar="HOST:PORT", help="a running plateau serve (default: Plateau in process)")
    args = parser.parse_args()
    client = Client.remote(args.remote) if args.remote else Client.local()
    with client:
        print(json.dumps(run_agent(client), indent=2))


if __name__ == "__main__":
    main()
