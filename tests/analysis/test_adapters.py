"""Stream adapters and the GuardStream RPC: pass-through until the guard fires, then stop."""

from __future__ import annotations

import pytest

from plateau.adapters import guard_openai_chunks, guard_text_chunks, openai_channels
from plateau.client import Client
from plateau.embed import HashingEmbedder
from plateau.errors import DegenerateOutput, InvalidArgument

PROSE = (
    "Plateau watches each step of an agent run and answers continue, steer or trip. "
    "It embeds the text locally, measures movement against a calibrated baseline, "
    "and counts structural repeats such as identical failing calls. "
)
LOOP = "I should check the config file again before editing it. "


def _chunks(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _local() -> Client:
    return Client.local(embedder=HashingEmbedder())


def test_text_adapter_passes_clean_text_through() -> None:
    """Ordinary prose comes out chunk for chunk, unchanged, and nothing fires."""
    chunks = _chunks(PROSE * 2)
    guarded = guard_text_chunks(_local(), chunks)
    assert list(guarded) == chunks and not guarded.fired


def test_text_adapter_raises_with_one_copy_kept() -> None:
    """A degenerate loop raises DegenerateOutput carrying the unit and the text cut to one copy."""
    chunks = _chunks(PROSE + LOOP * 40)
    seen: list[str] = []
    with pytest.raises(DegenerateOutput) as info:
        for c in guard_text_chunks(_local(), chunks):
            seen.append(c)
    err = info.value
    assert err.channel == "content" and err.result.fired
    assert len(seen) < len(chunks)  # stopped reading mid-stream
    assert err.text.count(LOOP.strip()) == 1 and "repetition cut" in err.text


def test_stop_mode_ends_quietly_and_flags_the_end() -> None:
    """With on_fire='stop' the iteration ends and the wrapper carries the fire details."""
    guarded = guard_text_chunks(_local(), _chunks(PROSE + LOOP * 40), on_fire="stop")
    out = list(guarded)
    assert guarded.fired and guarded.result.unit and len(out) < len(_chunks(PROSE + LOOP * 40))
    assert guarded.truncated_text().count(LOOP.strip()) == 1


def test_a_response_that_ends_as_a_short_loop_fires_after_its_last_chunk() -> None:
    """Every chunk is yielded; the end of the stream then fires the ending rule: raise or stop."""
    chunks = _chunks("dai " * 15 + "dai")
    seen: list[str] = []
    with pytest.raises(DegenerateOutput) as info:
        for c in guard_text_chunks(_local(), chunks):
            seen.append(c)
    assert seen == chunks and info.value.result.reason == "stream.ending"
    assert info.value.text.startswith("dai ") and info.value.text.count("dai") == 1
    guarded = guard_text_chunks(_local(), chunks, on_fire="stop")
    assert list(guarded) == chunks and guarded.fired and guarded.result.reason == "stream.ending"


def test_on_fire_is_validated() -> None:
    """An unknown on_fire mode is InvalidArgument naming it."""
    with pytest.raises(InvalidArgument, match="on_fire"):
        guard_text_chunks(_local(), [], on_fire="ignore")


def _openai_chunk(content: str | None = None, reasoning: str | None = None, args: str | None = None) -> dict:  # type: ignore[type-arg]
    delta: dict = {}  # type: ignore[type-arg]
    if content is not None:
        delta["content"] = content
    if reasoning is not None:
        delta["reasoning_content"] = reasoning
    if args is not None:
        delta["tool_calls"] = [{"index": 0, "function": {"arguments": args}}]
    return {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}


def test_openai_channels_reads_every_channel() -> None:
    """content, reasoning_content and tool-call arguments map to their channels; empty pieces are dropped."""
    assert openai_channels(_openai_chunk("a", "b", '{"x"')) == [("content", "a"), ("reasoning", "b"), ("tool_args", '{"x"')]
    assert openai_channels({"choices": []}) == [] and openai_channels(_openai_chunk("")) == []


def test_openai_adapter_stops_on_a_degenerate_reasoning_channel() -> None:
    """A reasoning channel that loops stops the stream while the content channel was clean."""
    stream = [_openai_chunk(content=c) for c in _chunks(PROSE)] + [_openai_chunk(reasoning=c) for c in _chunks(LOOP * 40)]
    with pytest.raises(DegenerateOutput) as info:
        list(guard_openai_chunks(_local(), stream))
    assert info.value.channel == "reasoning"


def test_guard_stream_over_grpc_matches_local(hashing_server: str) -> None:
    """The GuardStream RPC gives the same per-chunk results as the in-process guard, and the adapters work remotely."""
    chunks = _chunks(PROSE + LOOP * 40)
    local = list(_local().guard_stream(chunks))
    with Client.remote(hashing_server) as client:
        remote = list(client.guard_stream(chunks))
        with pytest.raises(DegenerateOutput):
            list(guard_text_chunks(client, chunks))
    assert remote == local
    assert any(r.fired for r in remote)


def test_guard_stream_rejects_an_unknown_channel(hashing_server: str) -> None:
    """An unknown channel is INVALID_ARGUMENT naming 'channel'."""
    with Client.remote(hashing_server) as client, pytest.raises(InvalidArgument) as info:
        list(client.guard_stream([("video", "x")]))
    assert info.value.field == "channel"
