"""``stream.self_dialogue``: the response writes chat-template turns for both sides.

A model that misses its end-of-turn token keeps going in the chat template's own markup: it
closes its answer, opens a ``user`` turn, answers it, and so on, each exchange a small variation
of the last (DialoGPT and TinyLlama self-dialogues, ChatML ``<|im_start|>user`` leaks). The
detector finds role markers in the channel's text with one regular expression --
``<|im_start|>ROLE``, ``<|start_header_id|>ROLE<|end_header_id|>``, ``<start_of_turn>ROLE``,
``<|ROLE|>``, ``[INST]`` / ``[/INST]``, and ``User:`` / ``Assistant:`` / ``Human:`` / ``AI:``
at the start of a line -- and fires when

- the last ``dialogue_turns`` turns of one role are alike (consecutive word-set Jaccard at
  least 0.5), or
- ``dialogue_max_turns`` turns were opened with special-token markers (plain ``User:`` lines
  count only through the first rule: a transcript in a document is legitimate).

It cuts at the first marker: what the model said before it started writing turns is kept.
"""

from __future__ import annotations

import re

from plateau.stream.block import Block
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Fire

__all__ = ["DialogueDetector"]

_MARKER = re.compile(
    r"<\|im_start\|>\s*(?P<a>\w+)"
    r"|<\|start_header_id\|>\s*(?P<b>\w+)\s*<\|end_header_id\|>"
    r"|<start_of_turn>\s*(?P<c>\w+)"
    r"|<\|(?P<d>user|assistant|system|human|bot)\|>"
    r"|(?P<e>\[INST\]|\[/INST\])"
    r"|(?:^|\n)[ \t]*(?P<f>User|Assistant|Human|AI|Bot|USER|ASSISTANT)[ \t]*:",
)
_PLAIN = ("User", "Assistant", "Human", "AI", "Bot", "USER", "ASSISTANT")
_ROLES = {"[inst]": "user", "[/inst]": "assistant", "human": "user", "ai": "assistant", "bot": "assistant", "model": "assistant"}
_OVERLAP = 40  # characters of the previous block searched again (a marker cut by a block end)
_MAX_TURNS = 64
_SIMILAR = 0.5


class DialogueDetector:
    """Role markers of a chat template inside the model's own output.

    Parameters
    ----------
    config
        The guard's hyper-parameters (``dialogue_turns``, ``dialogue_max_turns``,
        ``min_chars``).
    """

    def __init__(self, config: StreamGuardConfig) -> None:
        self.config = config
        self._reset()

    def _reset(self) -> None:
        self._seen = 0  # absolute offset past the last marker counted
        self._turns: list[tuple[str, int, int, bool]] = []  # (role, marker start, text start, special)
        self._words: list[frozenset[str]] = []  # word sets of completed turns, aligned with _turns[:-1]
        self._first: int | None = None
        self._special = 0

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Turns remembered."""
        return len(self._turns)

    def update(self, b: Block) -> Fire | None:
        """Find the markers of the block; fire on a repetitive self-dialogue."""
        s = b.near
        start = max(0, b.nlo - _OVERLAP)
        seg = s[start:]
        if not ("<" in seg or "INST]" in seg or (":" in seg and any(w in seg for w in _PLAIN))):
            return None
        fire: Fire | None = None
        for m in _MARKER.finditer(s, start):
            at = b.near0 + m.start()
            if at < self._seen:
                continue
            self._seen = b.near0 + m.end()
            role = (m.group("a") or m.group("b") or m.group("c") or m.group("d") or m.group("e") or m.group("f") or "").lower()
            role = _ROLES.get(role, role)
            special = m.group("f") is None
            if self._turns:
                _, _, text_at, _ = self._turns[-1]
                full, full0 = b.s, b.s0
                lo = text_at - full0
                hi = at - full0
                body = full[lo:hi] if lo >= 0 else full[:hi]
                self._words.append(frozenset(re.findall(r"\w+", body.lower())))
            if self._first is None:
                self._first = at
            self._turns.append((role, at, b.near0 + m.end(), special))
            self._special += special
            if len(self._turns) > _MAX_TURNS:
                self._turns.pop(0)
                self._words.pop(0)
            fire = fire or self._judge(b)
        return fire

    def _judge(self, b: Block) -> Fire | None:
        cfg = self.config
        turns = self._turns
        roles = {r for r, _, _, _ in turns}
        if len(roles) < 2:
            return None
        done = turns[:-1]
        for role in roles:
            idx = [i for i, (r, _, _, _) in enumerate(done) if r == role][-cfg.dialogue_turns :]
            if len(idx) < cfg.dialogue_turns:
                continue
            sets = [self._words[i] for i in idx]
            if all(x and y and len(x & y) >= _SIMILAR * len(x | y) for x, y in zip(sets, sets[1:], strict=False)):
                return self._fire(b, turns[idx[0]][1])
        if self._special >= cfg.dialogue_max_turns:
            return self._fire(b, turns[0][1])
        return None

    def _fire(self, b: Block, loop_at: int) -> Fire:
        first = self._first if self._first is not None else loop_at
        s = b.s
        i = first - b.s0
        unit = s[i : i + 200] if i >= 0 else ""
        return Fire(
            at=b.end - 1,
            reason="stream.self_dialogue",
            unit=unit,
            period=None,
            loop_start=first,
            cut_offset=first,
            copies=len(self._turns),
        )
