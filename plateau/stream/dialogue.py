"""``stream.self_dialogue``: the response writes chat-template turns for both sides.

A model that misses its end-of-turn token keeps going in the chat template's own markup: it
closes its answer, opens a ``user`` turn, answers it, and so on, each exchange a small variation
of the last (DialoGPT and TinyLlama self-dialogues, ChatML ``<|im_start|>user`` leaks,
``Human:`` / ``AI Assistant:`` transcripts). The detector finds role markers in the channel's
text with one regular expression -- the template markers ``<|im_start|>ROLE``,
``<|start_header_id|>ROLE<|end_header_id|>``, ``<start_of_turn>ROLE``, ``<|ROLE|>``,
``[INST]`` / ``[/INST]``, ``### Instruction:`` / ``### Response:`` and a line holding only
``user`` or ``assistant``; and speaker labels ``Name:`` starting a line (one or
two capitalised words, ``User:``, ``AI Assistant:``, ``Bob:``, and a number when the speakers are
numbered, ``User 4:`` / ``User 5:``, each number a speaker of its own whose name is read without
it; a colon, a space and the turn's text), or inside a line when the name is a chat template's role (``template-role-names``:
``... Human: ... AI Assistant: ...`` with no line break, a template written without its
newlines; an inline ``Q:`` / ``A:`` or ``Note:`` stays prose). Leading indentation is not
content: a line's indentation (spaces, tabs) is folded before a label or marker is recognised,
as whitespace runs are folded before copies are compared (:mod:`~plateau.stream.fold`) -- a
transcript indented by eight spaces is the same transcript -- and counts the self-dialogue per
*cycle*: the shortest repeating sequence of roles (``user`` then ``assistant``), each cycle
one turn pair. It fires

- at the second repeat of the cycle, during the ``dialogue_turns``-th cycle (default 3: the
  third turn pair), never in the first cycle, which repeats nothing, nor in the second (a
  few-shot example or a quoted exchange holds two):

  - template markers: when the third cycle is complete -- its last turn closed by an
    end-of-turn token (``<|im_end|>``, ``<|eot_id|>``, ``<end_of_turn>``, ``<|end|>``,
    ``</s>``) when the template closes its turns, else when its last turn opens. A counter
    in the marker is no new role (``<|im_start|>assistant57``, ``assistant58``: one role),
    and a cycle may hold one role: one role's marker opened again while its turn is still open
    (no end-of-turn token in the response) is a new turn the model writes for itself, each turn
    a cycle, fired when the third such marker inside the response is complete; a turn closed by an end-of-turn token and the same role
    opened again right after it (the model closes its turn and reopens it). Its cycle is then
    read from the turns themselves: the shortest ``c`` such that every completed turn is alike
    the turn ``c`` before it (word-set Jaccard at least 0.5) -- the same answer again is one
    turn, a reply and a follow-up written in turn are two -- and it fires when the marker
    after the third cycle's last turn is complete (the third such marker for ``c = 1``, the
    sixth for ``c = 2``), never while the turns have not shown a cycle;
  - speaker labels: when the third pair's last turn ends its line (the newline after the
    sixth label's text) -- or, when that label is inline, whose turn ends only at the next
    label, when its turn's first character arrives --, a label at the stream's very start
    being the response naming its
    own answer, not a turn it writes for the other side (counting it adds no fire on the
    12,871 messages of ``scripts/stream_false_alarms.py`` but fires a plain self-dialogue of
    ``evals/stream`` inside its first cycle); the labels alternating
    between exactly two names -- both chat roles, or with a turn that asks a question (a
    record format such as ``FAIL:`` / ``AssertionError:`` or ``Value:`` / ``Dtype:`` in test
    output alternates too, and never asks). An exchange the response presents (the
    paragraph before its first label ends with a colon or names an example, a transcript, a
    dialogue, a FAQ) is quoted and never fires; two labels that name parts of a document
    (``record-labels``: ``Input:`` / ``Output:``, ``English:`` / ``French:``) are a record
    format whatever their turns ask. ``scripts/stream_false_alarms.py``: on the 12,871
    messages of the real runs the rule fires on none;

- whatever the markers or labels, when the turns themselves repeat at a longer period than
  the roles' (two or three turn pairs that come back: the shortest multiple ``k`` of the
  roles' cycle such that the last completed turn is alike -- word-set Jaccard at least 0.5 --
  the turn ``k`` before it), the cycle is ``k`` turns: it fires once the first turn of the
  ``dialogue_turns``-th such cycle is complete and alike its counterparts (the second repeat of
  the cycle), never before. Whether the turns cycle over several pairs shows only in the turn
  after the roles' third cycle, so a template whose turns repeat none of the earlier ones
  fires once that turn is complete (the 4th pair's first turn; the rule above fires for
  speaker labels as before); the ``dialogue_max_turns`` rule below applies only to roles
  without a fixed cycle;
- when the last ``dialogue_turns`` turns of one role are alike (consecutive word-set Jaccard
  at least 0.5), plain markers included, once the pair of the third of them is complete (the
  turn after it has ended);
- when ``dialogue_max_turns`` template markers of two roles or more have arrived and the
  last marker's role opened ``dialogue_turns`` of the last ``dialogue_max_turns`` (turns that
  recur without settling into a fixed cycle).

An exchange the request asks for (a dialogue, a chat, a script, a FAQ, an example:
:attr:`DialogueDetector.requested`, from
:attr:`~plateau.stream.context.RequestContext.exchange`) is the answer: its roles taking turns
fires none of the rules above but the ones on turns that come back.

It cuts at the first marker: what the model said before it started writing turns is kept.

The fire lands on the chunk that brings the character completing the evidence: the last
character of an end-of-turn token or of a literal marker, the character after a role name
(``assistant`` may go on), the newline that ends the third pair's last turn. Blocks are read
at their end as by every detector; once the next marker or label may complete a fire
(:meth:`DialogueDetector.hot`), the detector arms a check
(:class:`~plateau.stream.result.Armed`) that reads the text of every later chunk up to it
until the next block, so a fire never waits for the end of its 64-character block, and the
chunk it lands on does not depend on the chunking.
"""

from __future__ import annotations

import re
from dataclasses import replace

from plateau.lexicon import alternation, load, pattern
from plateau.stream.block import Block, Partial
from plateau.stream.config import StreamGuardConfig
from plateau.stream.result import Armed, Fire
from plateau.stream.text import WORD_END, WORD_START

__all__ = ["DialogueDetector", "holds_marker"]

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
#: A line-initial speaker label (one or two capitalised words, and a number when the speakers are
#: numbered -- ``User 4:``, ``Person 2:`` --, a colon, a space and the turn's text).
#: Leading indentation is not content: a label indented by spaces or tabs is a label (as the
#: template markers above are), the indentation folded as whitespace is in copy comparison.
_LABEL = re.compile(r"\n[ \t]*([A-Z][A-Za-z]{0,15}(?:[ ][A-Z][A-Za-z]{0,15})?(?:[ ]?\d{1,3})?)[ \t]*:[ \t]+(?=\S)")
#: A speaker's number after its name (``User 4``, ``Person 2``, ``Speaker1``): the name it numbers
#: is what the role and record lists read.
_SPEAKER_NUMBER = re.compile(r"[ ]?\d+$")
#: A speaker label inside a line: a chat template's role name (``template-role-names``, written
#: capitalised or in capitals) after text and a space, a colon, a space and the turn's text. With
#: no line start to mark it, only a template's role names are labels here: an inline ``Q:`` /
#: ``A:`` or ``Note:`` stays prose.
_INLINE = re.compile(
    r"(?<=\S)[ \t]+(" + alternation("template-role-names") + r")[ \t]*:[ \t]+(?=\S)",
    flags=re.IGNORECASE,
)
#: What a block must hold for the template-marker expression to run (with "<", "INST]", "###").
_BARE = re.compile(r"\n(?:user|assistant|human|model)[ \t]*\n")
#: Speaker names that are chat roles: alternating labels of two of these are turns of a chat.
_ROLE_NAMES = frozenset(load("chat-role-names"))
#: Labels that name the parts of a document (``Input:`` / ``Output:``, ``English:`` / ``French:``): a record format.
_RECORD_LABELS = frozenset(load("record-labels"))
#: Words by which a response presents an exchange it quotes (the paragraph before its first
#: label); an entry of a script written without spaces matches anywhere.
_PRESENTED = pattern("presented-exchange", prefix=WORD_START + "(?:", suffix=")" + WORD_END + r"|:\s*$", flags=re.IGNORECASE)
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


def holds_marker(text: str) -> bool:
    """Whether ``text`` holds a chat template's role marker or end-of-turn token (``<|im_start|>user``,
    ``[INST]``, ``### Response:``, a bare ``assistant`` line, ``User:`` at a line start, ...):
    what this detector counts per cycle of turns."""
    return _MARKER.search(text) is not None


def _alike(x: frozenset[str], y: frozenset[str]) -> bool:
    """Word-set Jaccard of two turns at least ``_SIMILAR`` (both non-empty)."""
    return bool(x) and bool(y) and len(x & y) >= _SIMILAR * len(x | y)


def _turn_cycle(words: list[frozenset[str]], unit: int) -> tuple[int, int]:
    """The cycle of completed turns (their word sets, in order): ``(k, run)``.

    ``k`` is the shortest multiple of ``unit`` (the roles' cycle, in turns) such that the last
    turn is alike the turn ``k`` before it, and ``run`` the number of consecutive turns, ending
    at the last, alike the turn ``k`` before each; ``(0, 0)`` when the last turn is alike none
    of the earlier turns at a multiple of ``unit``.
    """
    n = len(words)
    for k in range(max(1, unit), n, max(1, unit)):
        run = 0
        while run < n - k and _alike(words[n - 1 - run], words[n - 1 - run - k]):
            run += 1
        if run:
            return k, run
    return 0, 0


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
        #: The request asks for an exchange written out (a dialogue, a chat, a script, a FAQ:
        #: :attr:`~plateau.stream.context.RequestContext.exchange`): its roles taking turns is
        #: the answer, so only turns that come back (the same turns again) fire.
        self.requested = False
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
        self._end_at = -1  # absolute offset just past the last end-of-turn token
        self._reopened = 0  # consecutive cycles of one role: a marker opened right after an end-of-turn token
        self._at = 0  # absolute offset of the character that completed the last marker or label
        self._checked = 0  # absolute offset up to which the text was read (blocks and early checks)
        self._ends = False  # whether the template closes its turns with end-of-turn tokens
        #: line-initial speaker labels of the current alternating stretch: (name, start, text start, asks)
        self._speakers: list[tuple[str, int, int, bool]] = []
        self._label_fire: Fire | None = None  # the third pair's fire, due when its last turn's line ends
        self._speaker_words: list[frozenset[str]] = []  # word sets of the stretch's completed label turns

    def reset(self) -> None:
        """Forget the stream."""
        self._reset()

    @property
    def size(self) -> int:
        """Turns remembered."""
        return len(self._turns)

    def update(self, b: Block) -> Fire | None:
        """Find the markers of the block; fire on a repetitive self-dialogue.

        Once the next marker or label could fire (:meth:`hot`), arm a check of the text that
        arrives before the next block (:meth:`confirm`), so that the fire lands on the chunk
        that completes the marker, not at the end of its block.
        """
        # The common block holds none of what _update looks for (a label's ": ", a template
        # marker's "<", "INST]", "###", a bare role line) and no label fire is pending: _update
        # would change nothing and return None.
        start = b.nlo - _OVERLAP
        seg = b.near[start:] if start > 0 else b.near
        if (
            self._label_fire is None
            and ": " not in seg
            and "<" not in seg
            and "INST]" not in seg
            and "###" not in seg
            and "\nuser" not in seg
            and "\nassistant" not in seg
            and "\nhuman" not in seg
            and "\nmodel" not in seg
        ):
            fire = None
        else:
            fire = self._update(b)
        # hot() needs a turn, a label, a reopened turn or a pending fire (dialogue_turns >= 2)
        if fire is None and (self._turns or self._speakers or self._reopened or self._label_fire is not None) and self.hot():
            b.arm(Armed(at=b.end, source=self, key=("dialogue",), data=()))
        return fire

    def hot(self) -> bool:
        """Whether the next marker or label may complete a fire: two turns counted, or two
        alternating labels (short turns bring several labels in one block, so the labels still
        missing from the third pair may all arrive before the next block ends), or one reopened
        cycle short of the last."""
        turns = self.config.dialogue_turns
        return len(self._turns) >= 2 or len(self._speakers) >= 2 or self._reopened >= turns - 1 or self._label_fire is not None

    def confirm(self, armed: Armed, s: str, s0: int) -> Fire | Armed:
        """Read the text that arrived since the last block (``s``, absolute start ``s0``, up to
        the last chunk): the fire if a marker or label completed it, else re-armed for the next
        character."""
        fire = self._update(Partial(s, s0, armed.at))
        return fire if fire is not None else Armed(at=s0 + len(s), source=self, key=armed.key, data=())

    def _update(self, b: Block | Partial) -> Fire | None:
        s = b.near
        start = b.nlo - _OVERLAP
        if start < 0:
            start = 0
        seg = s[start:]
        fire: Fire | None = None
        labelled = ": " in seg and (
            _LABEL.search(s, max(0, start - 1)) is not None or b.near0 == 0 or _INLINE.search(s, max(0, start - 1)) is not None
        )
        if labelled:
            fire = self._labels(b, s, start)
        if self._label_fire is not None:
            fire = fire or self._line_end(b)
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
            named = m.group("a") is not None or m.group("c") is not None
            if m.end() == len(s) and named:  # the role name may go on: judged with the next character
                break
            self._seen = b.near0 + m.end()
            # The character that completes the marker: its last, or the one after a role name.
            self._at = b.near0 + m.end() - (0 if named else 1)
            if m.group("z") is not None:  # an end-of-turn token closes the last turn
                self._ends = True
                self._end_at = self._seen
                if self._turns and self._turns[-1][3] and not self._closed:
                    self._closed = True
                    fire = fire or self._judge(b, True)
                continue
            if m.group("f") is not None and m.start() == 0 and b.near0 > 0:
                continue  # the start of the kept text is not a line start
            self._closed = False
            role = next(r for r in m.group("a", "b", "c", "d", "e", "f", "g", "h") if r is not None)
            role = role.lower().rstrip("0123456789") or role.lower()  # a counter in the marker is no new role
            role = _ROLES.get(role, role)
            special = m.group("f") is None
            # A turn of the same role opened right after an end-of-turn token closed the last
            # one: the model closes its turn and reopens it (one cycle of one role).
            after_end = special and self._end_at >= 0 and not b.s[max(0, self._end_at - b.s0) : max(0, at - b.s0)].strip()
            if after_end and (not self._roles or self._roles[-1] == role):
                self._reopened += 1
            else:
                self._reopened = 0
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

    def _labels(self, b: Block | Partial, s: str, start: int) -> Fire | None:
        """Count the speaker labels that end in this block (:meth:`_speaker`)."""
        fire: Fire | None = None
        base = b.near0
        if base == 0:  # the stream's start is a line start
            s, base, start = "\n" + s, -1, start + 1
        found = [(m, False) for m in _LABEL.finditer(s, max(0, start - 1))]
        if ": " in s:
            found += [(m, True) for m in _INLINE.finditer(s, max(0, start - 1)) if m.group(1)[0].isupper()]
            found.sort(key=lambda x: x[0].start(1))
        for m, inline in found:
            at = base + m.start(1)
            if at < self._label_seen:
                continue
            self._label_seen = base + m.end()
            if base + m.start() == -1:  # at the stream's start, indented or not: the response labels its own answer
                continue
            self._at = base + m.end()  # the turn's first character completes the label
            fire = fire or self._speaker(b, m.group(1), at, base + m.end(), inline)
        return fire

    def _speaker(self, b: Block | Partial, label: str, at: int, text_at: int, inline: bool = False) -> Fire | None:
        """Count a ``Name:`` label (line-initial, or ``inline`` for a template's role name); fire
        at the 3rd turn pair of two alternating speakers.

        The labels of the stretch must alternate between exactly two names, and the stretch is
        a chat rather than a record format: neither name labels a part of a document
        (``record-labels``: ``Input`` / ``Output``, ``English`` / ``French``), and both names
        are chat roles (``User``, ``AI Assistant``, ``Human``, ...) or a completed turn of the
        stretch asks a question (ends with ``?``). An exchange the response presents -- the
        paragraph before its first label ends with a colon or names it (an example, a
        transcript, a dialogue, a FAQ) -- is quoted, and never fires. An exchange the request
        asks for (:attr:`requested`) fires only when its turns come back (the turn ``k >= 2``
        before each alike, over a whole cycle and a turn).
        """
        cfg = self.config
        sp = self._speakers
        words = self._speaker_words
        if sp:  # the previous turn's text, for the question test and the turns' cycle
            body = ""
            if sp[-1][1] + 1 < at:
                full, full0 = b.s, b.s0
                lo, hi = sp[-1][2] - full0, at - full0
                if lo >= 0 and hi <= len(full):
                    body = full[lo:hi].rstrip()
                    sp[-1] = (sp[-1][0], sp[-1][1], sp[-1][2], body.endswith("?"))
            words.append(frozenset(re.findall(r"\w+", body.lower())))
        name = label.lower()
        if len(sp) >= 2 and (name == sp[-1][0] or name != sp[-2][0]) or len(sp) == 1 and name == sp[0][0]:
            sp.clear()  # the alternation broke: a new stretch begins here
            words.clear()
        sp.append((name, at, text_at, False))
        if len(sp) > 2 * _MAX_TURNS:
            del sp[0]
            del words[0]
        if len(sp) < 2 * cfg.dialogue_turns or self._label_fire is not None:
            return None
        # The turns' own cycle, when they come back at a longer period than one pair (two or
        # three turn pairs that repeat): fire at its second repeat -- the first turn of the
        # dialogue_turns-th cycle complete and alike its counterparts -- never before.
        k, run = _turn_cycle(words[-(len(sp) - 1) :], 2)
        if k > 2 or self.requested:
            if k < 2 or run < (cfg.dialogue_turns - 2) * k + 1:
                return None
        elif len(sp) != 2 * cfg.dialogue_turns:
            return None
        names = {_SPEAKER_NUMBER.sub("", sp[0][0]), _SPEAKER_NUMBER.sub("", sp[1][0])}
        if names & _RECORD_LABELS or not (names <= _ROLE_NAMES or any(q for _, _, _, q in sp)):
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
        # The third pair is written once its last turn's line ends: fire on that newline (at
        # holds, until then, where the turn's text begins). A turn under an inline label ends
        # at the next label, which may never come on the same line: the third pair's last
        # label is then the evidence, and the fire lands on its turn's first character.
        fire = Fire(
            at=text_at,
            reason="stream.self_dialogue",
            unit=full[i : i + 200] if i >= 0 else "",
            period=None,
            loop_start=first,
            cut_offset=first,
            copies=len(sp),
        )
        if inline:
            return fire
        self._label_fire = fire
        return None

    def _line_end(self, b: Block | Partial) -> Fire | None:
        """The pending speaker-label fire, on the newline that ends the third pair's last turn."""
        pend = self._label_fire
        if pend is None:
            return None
        full, full0 = b.s, b.s0
        i = full.find("\n", max(0, pend.at - full0))
        if i < 0:
            return None
        self._label_fire = None
        return replace(pend, at=full0 + i)

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

    def _reopen_cycle(self) -> int:
        """The cycle, in turns, of one role closed and reopened: the shortest ``c`` such that every
        completed turn of the stretch is alike (word-set Jaccard at least 0.5) the turn ``c``
        before it; 0 when no cycle shows in the turns completed so far.

        A turn said again (a greeting, the same answer) is a cycle of one turn; a reply and a
        follow-up written in turn, each repeated, a cycle of two. The stretch is the turns
        opened by the ``_reopened`` markers and the turn they closed first.
        """
        m = self._reopened
        words = self._words[max(0, len(self._turns) - m - 1) :]
        n = len(words)
        for c in range(1, n // 2 + 1):
            if all(x and y and len(x & y) >= _SIMILAR * len(x | y) for x, y in zip(words[c:], words, strict=False)):
                return c
        return 0

    def _judge(self, b: Block | Partial, special: bool = False) -> Fire | None:
        cfg = self.config
        turns = self._turns
        if special and self._reopened >= cfg.dialogue_turns:
            # One role closed and reopened: the cycle is the turns' own (a reply, then a
            # follow-up, then the reply again: two turns), and the dialogue_turns-th cycle is
            # complete when the marker after its last turn opens.
            c = self._reopen_cycle()
            if c and self._reopened >= cfg.dialogue_turns * c:
                return self._fire(b, turns[-min(len(turns), cfg.dialogue_turns * c)][1])
        roles = {r for r, _, _, _ in turns}
        if len(roles) < 2:
            # One role's template marker opened again and again inside the response, no other
            # role between and no turn closed (the model opens a new turn for itself while its
            # own is still open): each turn is a cycle, fired when the dialogue_turns-th is
            # opened -- the second repeat. A marker that starts the response is its own header,
            # not a turn it writes. (Turns closed and reopened are judged by their own cycle, above.)
            if special and not self._ends:
                opened = [at for _, at, _, sp in turns if sp and at > 0]
                if len(opened) >= cfg.dialogue_turns:
                    return self._fire(b, opened[0])
            return None
        if special:
            # The dialogue_turns-th cycle is complete when its last turn is closed by an
            # end-of-turn token or the next cycle's first marker arrives.
            c, stretch = self.cycles()
            if c:
                # The cycle is the turns' own when they repeat at a longer period (three turn
                # pairs that come back): fire at its second repeat, never before.
                completed = self._words[-min(len(self._words), stretch - 1) :] if stretch > 1 else []
                k, run = _turn_cycle(completed, c)
                turns_needed = cfg.dialogue_turns * c
                if k > c or (self.requested and k == c):
                    if run >= (cfg.dialogue_turns - 2) * k + 1:
                        return self._fire(b, turns[0][1])
                elif self.requested:
                    pass  # an exchange the request asks for: its roles take turns; only turns that come back fire
                elif k == c:
                    if stretch > turns_needed or (stretch == turns_needed and (self._closed or not self._ends)):
                        return self._fire(b, turns[0][1])
                elif len(completed) > turns_needed:
                    # No turn came back yet: the turn after the dialogue_turns-th cycle is
                    # complete and repeats none of the earlier ones, so the cycle is the roles'.
                    return self._fire(b, turns[0][1])
        done = turns[:-2]  # the third alike turn and the reply that completes its pair
        for role in roles:
            idx = [i for i, (r, _, _, _) in enumerate(done) if r == role][-cfg.dialogue_turns :]
            if len(idx) < cfg.dialogue_turns:
                continue
            sets = [self._words[i] for i in idx]
            if all(x and y and len(x & y) >= _SIMILAR * len(x | y) for x, y in zip(sets, sets[1:], strict=False)):
                return self._fire(b, turns[idx[0]][1])
        many = self._special >= cfg.dialogue_max_turns and len(self._roles) >= cfg.dialogue_max_turns
        if many and not self.requested and not self.cycles()[0]:
            # (roles in a fixed cycle are judged by it, above)
            tail = self._roles[-cfg.dialogue_max_turns :]
            if len(set(tail)) >= 2 and tail.count(tail[-1]) >= cfg.dialogue_turns:
                return self._fire(b, turns[0][1])
        return None

    def _fire(self, b: Block | Partial, loop_at: int) -> Fire:
        first = self._first if self._first is not None else loop_at
        s = b.s
        i = first - b.s0
        unit = s[i : i + 200] if i >= 0 else ""
        return Fire(
            at=self._at,
            reason="stream.self_dialogue",
            unit=unit,
            period=None,
            loop_start=first,
            cut_offset=first,
            copies=len(self._turns),
        )
