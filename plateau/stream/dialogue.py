"""``stream.self_dialogue``: the response writes chat-template turns for both sides.

A model that misses its end-of-turn token keeps going in the chat template's own markup: it
closes its answer, opens a ``user`` turn, answers it, and so on, each exchange a small variation
of the last (DialoGPT and TinyLlama self-dialogues, ChatML ``<|im_start|>user`` leaks,
``Human:`` / ``AI Assistant:`` transcripts). The detector finds role markers in the channel's
text with one regular expression -- the template markers ``<|im_start|>ROLE``,
``<|start_header_id|>ROLE<|end_header_id|>``, ``<start_of_turn>ROLE``, ``<|ROLE|>``,
``[INST]`` / ``[/INST]``, ``### Instruction:`` / ``### Response:`` and a line holding only
``user`` or ``assistant``; and speaker labels ``Name:`` starting a line, unindented (one or
two capitalised words, ``User:``, ``AI Assistant:``, ``Bob:``; a colon, a space and the turn's
text) -- and counts the self-dialogue per *cycle*:
the shortest repeating sequence of roles (``user`` then ``assistant``), each cycle one turn
pair. It fires

- at the second repeat of the cycle, during the ``dialogue_turns``-th cycle (default 3: the
  third turn pair), never in the first cycle, which repeats nothing, nor in the second (a
  few-shot example or a quoted exchange holds two):

  - template markers: when the third cycle is complete -- its last turn closed by an
    end-of-turn token (``<|im_end|>``, ``<|eot_id|>``, ``<end_of_turn>``, ``<|end|>``,
    ``</s>``) when the template closes its turns, else when its last turn opens;
  - speaker labels: when the third pair's second label arrives, the labels alternating
    between exactly two names -- both chat roles, or with a turn that asks a question (a
    record format such as ``FAIL:`` / ``AssertionError:`` or ``Value:`` / ``Dtype:`` in test
    output alternates too, and never asks). An exchange the response presents (the
    paragraph before its first label ends with a colon or names an example, a transcript, a
    dialogue, a FAQ) is quoted and never fires. ``scripts/stream_false_alarms.py``: on the
    12,871 messages of the real runs the rule fires on none;

- when the last ``dialogue_turns`` turns of one role are alike (consecutive word-set Jaccard
  at least 0.5), plain markers included;
- when ``dialogue_max_turns`` template markers of two roles or more have arrived and the
  last marker's role opened ``dialogue_turns`` of the last ``dialogue_max_turns`` (turns that
  recur without settling into a fixed cycle).

It cuts at the first marker: what the model said before it started writing turns is kept.
"""

from __future__ import annotations

import re

from plateau.lexicon import load, pattern
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
    r"|(?:^|\n)[ \t]*\#{2,4}[ \t]*(?P<g>Instruction|Response|Human|Assistant|User)[ \t]*:"
    r"|(?:^|\n)(?P<h>user|assistant|human|model)[ \t]*(?=\n)"
    r"|(?:^|\n)[ \t]*(?P<f>User|Assistant|Human|AI|Bot|USER|ASSISTANT)[ \t]*:"
    r"|(?P<z><\|im_end\|>|<\|eot_id\|>|<end_of_turn>|<\|end\|>|</s>)",
)
#: A line-initial speaker label (one or two capitalised words, a colon, a space and the turn's text).
_LABEL = re.compile(r"\n([A-Z][A-Za-z]{0,15}(?:[ ][A-Z][A-Za-z]{0,15})?)[ \t]*:[ \t]+(?=\S)")
#: What a block must hold for the template-marker expression to run (with "<", "INST]", "###").
_BARE = re.compile(r"\n(?:user|assistant|human|model)[ \t]*\n")
#: Speaker names that are chat roles: alternating labels of two of these are turns of a chat.
_ROLE_NAMES = frozenset(load("chat-role-names"))
#: Words by which a response presents an exchange it quotes (the paragraph before its first label).
_PRESENTED = pattern("presented-exchange", prefix=r"\b", suffix=r"\b|:\s*$", flags=re.IGNORECASE)
_ROLES = {
    "[inst]": "user",
    "[/inst]": "assistant",
    "human": "user",
    "ai": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "instruction": "user",
    "response": "assistant",
}
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
        self._label_seen = 0  # absolute offset past the last speaker label counted
        self._turns: list[tuple[str, int, int, bool]] = []  # (role, marker start, text start, special)
        self._words: list[frozenset[str]] = []  # word sets of completed turns, aligned with _turns[:-1]
        self._first: int | None = None
        self._special = 0
        self._roles: list[str] = []  # roles of the special-token markers, in order (bounded)
        self._closed = False  # whether an end-of-turn token closed the last turn
        self._ends = False  # whether the template closes its turns with end-of-turn tokens
        #: line-initial speaker labels of the current alternating stretch: (name, start, text start, asks)
        self._speakers: list[tuple[str, int, int, bool]] = []

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
        fire: Fire | None = None
        labelled = ": " in seg and (_LABEL.search(s, max(0, start - 1)) is not None or b.near0 == 0)
        if labelled:
            fire = self._labels(b, s, start)
        if not (
            "<" in seg
            or "INST]" in seg
            or "###" in seg
            or labelled  # User: / Assistant: lines are labels too
            or (("\nuser" in seg or "\nassistant" in seg or "\nhuman" in seg or "\nmodel" in seg) and _BARE.search(seg) is not None)
        ):
            return fire
        for m in _MARKER.finditer(s, start):
            at = b.near0 + m.start()
            if at < self._seen:
                continue
            if m.end() == len(s):  # the role name may go on in the next block: judged there
                break
            self._seen = b.near0 + m.end()
            if m.group("z") is not None:  # an end-of-turn token closes the last turn
                self._ends = True
                if self._turns and self._turns[-1][3] and not self._closed:
                    self._closed = True
                    fire = fire or self._judge(b, True)
                continue
            if m.group("f") is not None and m.start() == 0 and b.near0 > 0:
                continue  # the start of the kept text is not a line start
            self._closed = False
            role = next(r for r in m.group("a", "b", "c", "d", "e", "f", "g", "h") if r is not None)
            role = _ROLES.get(role.lower(), role.lower())
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

    def _labels(self, b: Block, s: str, start: int) -> Fire | None:
        """Count the speaker labels that end in this block (:meth:`_speaker`)."""
        fire: Fire | None = None
        base = b.near0
        if base == 0:  # the stream's start is a line start
            s, base, start = "\n" + s, -1, start + 1
        for m in _LABEL.finditer(s, max(0, start - 1)):
            at = base + m.start(1)
            if at < self._label_seen:
                continue
            self._label_seen = base + m.end()
            fire = fire or self._speaker(b, m.group(1), at, base + m.end())
        return fire

    def _speaker(self, b: Block, label: str, at: int, text_at: int) -> Fire | None:
        """Count a line-initial ``Name:`` label; fire at the 3rd turn pair of two alternating speakers.

        The labels of the stretch must alternate between exactly two names, and the stretch is
        a chat rather than a record format: both names are chat roles (``User``, ``AI
        Assistant``, ``Human``, ...) or a completed turn of the stretch asks a question (ends
        with ``?``). An exchange the response presents -- the paragraph before its first label
        ends with a colon or names it (an example, a transcript, a dialogue, a FAQ) -- is
        quoted, and never fires.
        """
        cfg = self.config
        sp = self._speakers
        if sp and sp[-1][1] + 1 < at:  # the previous turn's text, for the question test
            full, full0 = b.s, b.s0
            lo, hi = sp[-1][2] - full0, at - full0
            if lo >= 0 and hi <= len(full):
                body = full[lo:hi].rstrip()
                sp[-1] = (sp[-1][0], sp[-1][1], sp[-1][2], body.endswith("?"))
        name = label.lower()
        if len(sp) >= 2 and (name == sp[-1][0] or name != sp[-2][0]) or len(sp) == 1 and name == sp[0][0]:
            sp.clear()  # the alternation broke: a new stretch begins here
        sp.append((name, at, text_at, False))
        if len(sp) > 2 * _MAX_TURNS:
            del sp[0]
        if len(sp) != 2 * cfg.dialogue_turns:
            return None
        names = {sp[0][0], sp[1][0]}
        if not (names <= _ROLE_NAMES or any(q for _, _, _, q in sp)):
            return None
        first = sp[0][1]
        full, full0 = b.s, b.s0
        i = first - full0
        if i > 0:
            before = full[max(0, i - 512) : i].rstrip()
            para = before[before.rfind("\n\n") + 1 :] if "\n\n" in before else before
            if para and _PRESENTED.search(para[-200:]):
                return None
        self._first = first if self._first is None else min(self._first, first)
        return Fire(
            at=b.end - 1,
            reason="stream.self_dialogue",
            unit=full[i : i + 200] if i >= 0 else "",
            period=None,
            loop_start=first,
            cut_offset=first,
            copies=len(sp),
        )

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
            if c and (stretch > cfg.dialogue_turns * c or (stretch == cfg.dialogue_turns * c and (self._closed or not self._ends))):
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
