"""``stream.self_dialogue``: the response writes chat-template turns for both sides.

A model that misses its end-of-turn token keeps going in the chat template's own markup: it
closes its answer, opens a ``user`` turn, answers it, and so on, each exchange a small variation
of the last (DialoGPT and TinyLlama self-dialogues, ChatML ``<|im_start|>user`` leaks). The
detector finds role markers in the channel's text with one regular expression --
``<|im_start|>ROLE``, ``<|start_header_id|>ROLE<|end_header_id|>``, ``<start_of_turn>ROLE``,
``<|ROLE|>``, ``[INST]`` / ``[/INST]``, and ``User:`` / ``Assistant:`` / ``Human:`` / ``AI:``
at the start of a line -- and counts the self-dialogue per *cycle*: the shortest repeating
sequence of roles (``user`` then ``assistant``; ``assistant`` then ``tool``), each cycle one
turn pair. It fires

- at the second repeat of the cycle: when the ``dialogue_turns``-th cycle (default 3: the
  third user/assistant pair) of the special-token markers is complete -- its last turn closed
  by an end-of-turn token (``<|im_end|>``, ``<|eot_id|>``, ``<end_of_turn>``, ``<|end|>``,
  ``</s>``) or the next cycle's first marker arrived; never in the first cycle, which repeats
  nothing, nor in the second (a few-shot example or a quoted exchange holds two). Plain
  ``User:`` lines count only through the next rule: a transcript in a document is
  legitimate;
- when the last ``dialogue_turns`` turns of one role are alike (consecutive word-set Jaccard
  at least 0.5), plain markers included;
- when ``dialogue_max_turns`` special-token markers of two roles or more have arrived and the
  last marker's role opened ``dialogue_turns`` of the last ``dialogue_max_turns`` (turns that
  recur without settling into a fixed cycle).

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
    r"|(?:^|\n)[ \t]*(?P<f>User|Assistant|Human|AI|Bot|USER|ASSISTANT)[ \t]*:"
    r"|(?P<z><\|im_end\|>|<\|eot_id\|>|<end_of_turn>|<\|end\|>|</s>)",
)
_PLAIN = ("User", "Assistant", "Human", "AI", "Bot", "USER", "ASSISTANT")
_ROLES = {"[inst]": "user", "[/inst]": "assistant", "human": "user", "ai": "assistant", "bot": "assistant", "model": "assistant"}
_OVERLAP = 64  # characters of the previous block searched again (a marker cut by a block end)
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
        self._roles: list[str] = []  # roles of the special-token markers, in order (bounded)
        self._closed = False  # whether an end-of-turn token closed the last turn

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
            if m.end() == len(s):  # the role name may go on in the next block: judged there
                break
            self._seen = b.near0 + m.end()
            if m.group("z") is not None:  # an end-of-turn token closes the last turn
                if self._turns and self._turns[-1][3] and not self._closed:
                    self._closed = True
                    fire = fire or self._judge(b, True)
                continue
            self._closed = False
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
            if special:
                self._roles.append(role)
                if len(self._roles) > _MAX_TURNS:
                    self._roles.pop(0)
            if len(self._turns) > _MAX_TURNS:
                self._turns.pop(0)
                self._words.pop(0)
            fire = fire or self._judge(b, special)
        return fire

    def cycles(self) -> tuple[int, int]:
        """The cycle of the special-token roles ending at the last marker: ``(length, stretch)``.

        The shortest period ``c`` (2 roles or more, at least two distinct) of the role sequence
        ending at the last marker, and the length of the periodic stretch (in markers) that
        ends there; ``(0, 0)`` when no period spans two whole cycles and a marker.
        """
        seq = self._roles
        n = len(seq)
        for c in range(2, n // 2 + 1):
            if 2 * c + 1 > n:
                break
            if len(set(seq[n - c :])) < 2:
                continue
            run = c
            while run < n and seq[n - 1 - run] == seq[n - 1 - run + c]:
                run += 1
            if run >= 2 * c + 1:
                return c, run
        return 0, 0

    def _judge(self, b: Block, special: bool = False) -> Fire | None:
        cfg = self.config
        turns = self._turns
        roles = {r for r, _, _, _ in turns}
        if len(roles) < 2:
            return None
        if special:
            # The dialogue_turns-th cycle is complete when its last turn is closed by an
            # end-of-turn token or the next cycle's first marker arrives.
            c, stretch = self.cycles()
            if c and (stretch > cfg.dialogue_turns * c or (stretch == cfg.dialogue_turns * c and self._closed)):
                return self._fire(b, turns[0][1])
        done = turns[:-1]
        for role in roles:
            idx = [i for i, (r, _, _, _) in enumerate(done) if r == role][-cfg.dialogue_turns :]
            if len(idx) < cfg.dialogue_turns:
                continue
            sets = [self._words[i] for i in idx]
            if all(x and y and len(x & y) >= _SIMILAR * len(x | y) for x, y in zip(sets, sets[1:], strict=False)):
                return self._fire(b, turns[idx[0]][1])
        if self._special >= cfg.dialogue_max_turns and len(self._roles) >= cfg.dialogue_max_turns:
            tail = self._roles[-cfg.dialogue_max_turns :]
            if len(set(tail)) >= 2 and tail.count(tail[-1]) >= cfg.dialogue_turns:
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
