"""The stream guard: the detectors of this package composed over one streamed channel.

:class:`StreamGuard` buffers the chunks of one channel into blocks of ``config.block``
characters aligned on the stream's start, and runs every detector over each completed block
(:mod:`~plateau.stream.novelty` first -- the period and drift detectors read what it counted --
then :mod:`~plateau.stream.period`, :mod:`~plateau.stream.fold`, :mod:`~plateau.stream.dialogue`,
:mod:`~plateau.stream.stutter`, :mod:`~plateau.stream.lines`, :mod:`~plateau.stream.drift` and
:mod:`~plateau.stream.counted`, which reads only near recurrence, and
:mod:`~plateau.stream.anaphora`, which reads the last sentences when the block recycles a word
n-gram). The earliest fire of a block wins, unless the request
(:class:`~plateau.stream.context.RequestContext`) excuses it. With an embedder, the completed
sentences also feed :class:`~plateau.stream.semantic_loop.SemanticRecurrence`, which steers alone and
fires only with textual corroboration, and corroborates the passages that
:mod:`~plateau.stream.recheck` finds quoted again and again (``stream.recheck``).

Between blocks the guard keeps the fires the period, fold, drift, counted, dialogue, line and anaphora detectors *armed*
(:class:`~plateau.stream.result.Armed`: a repetition whose span will complete before the next
block, at most 16, the earliest due kept) and confirms each on the chunk that brings its last
character; half-way through every block it probes for units of ``copy_unit`` to
:attr:`~plateau.stream.period.PeriodDetector.probe_period` characters, whose fourth copy can
complete before the block that first sees them ends. Events are taken in offset order (armed
fires, the probe, the block), so a fire depends only on the text.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any

from plateau.stream.anaphora import AnaphoraDetector
from plateau.stream.block import Block, Splitter, Tail
from plateau.stream.config import StreamGuardConfig
from plateau.stream.context import RequestContext
from plateau.stream.counted import CountedDetector
from plateau.stream.dialogue import DialogueDetector
from plateau.stream.drift import DriftDetector
from plateau.stream.ending import ending_fire
from plateau.stream.fold import FoldDetector
from plateau.stream.lines import LineDetector
from plateau.stream.novelty import NoveltyDetector
from plateau.stream.period import PeriodDetector
from plateau.stream.recheck import RecheckDetector
from plateau.stream.result import CHANNELS, Armed, Fire, GuardResult
from plateau.stream.semantic_loop import SemanticRecurrence
from plateau.stream.stutter import StutterDetector
from plateau.stream.tandem import TandemDetector

__all__ = ["StreamGuard"]

_new = object.__new__
_NEAR = Tail.NEAR
_TAIL_SLACK = 4096
_NEVER = 1 << 62
_MAX_ARMED = 16  # armed fires kept (the earliest due)
_DIGITS = re.compile(r"\d+")
_MAX_EXCUSED = 64  # excused repetitions whose start is remembered
_OPENING = 1024  # characters of the stream's start read for its first lines (RequestContext.opens_with_copies)
_PROBE_TEXT = 224  # characters before a half-block probe it reads: four copies of its longest unit and more


@lru_cache(maxsize=1)
def _default_config() -> StreamGuardConfig:
    """The default configuration, validated once (it is immutable)."""
    return StreamGuardConfig()


class StreamGuard:
    """Degenerate-output detector for one streamed channel, fed chunk by chunk.

    Parameters
    ----------
    channel
        ``"content"``, ``"reasoning"`` or ``"tool_args"`` (default ``"content"``).
    config
        Hyper-parameters; :class:`StreamGuardConfig` defaults when None.
    context
        The request -- the user's last message -- as text, or a parsed
        :class:`~plateau.stream.context.RequestContext`; requested repetition within its bound
        does not fire. None: nothing requested.
    embedder
        An :class:`~plateau.embed.Embedder` for the semantic layer (``content`` and
        ``reasoning`` channels); None turns it off.
    semantic_background
        Embed on a background thread (default) or synchronously at the end of each block
        (deterministic; for offline evaluation).

    Attributes
    ----------
    channel : str
        The channel watched.
    config : StreamGuardConfig
        The hyper-parameters (public, immutable).
    context : RequestContext
        What the request asked for.

    Raises
    ------
    ValueError
        For an unknown ``channel``.
    TypeError
        When ``config`` is not a :class:`StreamGuardConfig`, or ``context`` neither text nor a
        :class:`~plateau.stream.context.RequestContext`.

    Notes
    -----
    The verdict depends only on the text, not on how it was chunked: the detectors see blocks
    aligned on multiples of ``config.block`` characters from the stream's start (and the
    period detector probes half-way through each block for units of 16-26 characters). A
    repetition whose span will be complete before the next block is analysed is *armed*
    (:class:`~plateau.stream.result.Armed`) and fires on the chunk that brings the character
    completing it (a self-dialogue or a numbered-line loop one event short of firing, or copies
    equal once whitespace is folded a few words short of their last copy, arm a check that reads
    every later chunk until the next block); other fires are reported on the
    chunk that completes the block in which their evidence was complete. Either way the fire lands on the chunk holding the same character
    whatever the chunking. Work per chunk is one string concatenation and a result (and, when
    an armed fire falls due, one slice comparison); per block, a few C-level passes.

    Examples
    --------
    >>> guard = StreamGuard("reasoning")
    >>> chunks = ["Let me think. "] + ["the "] * 60
    >>> res = [guard.feed(c) for c in chunks]
    >>> res[-1].fired, res[-1].reason, repr(res[-1].unit), res[-1].fired_at_chunk  # 96 characters from offset 13
    (True, 'stream.period', "'the '", 24)
    >>> from plateau.stream import truncate
    >>> truncate("".join(chunks), res[-1])[:22]
    'Let me think. the \\n[..'
    """

    def __init__(
        self,
        channel: str = "content",
        config: StreamGuardConfig | None = None,
        *,
        context: str | RequestContext | None = None,
        embedder: Any = None,
        semantic_background: bool = True,
    ) -> None:
        if channel not in CHANNELS:
            raise ValueError(f"channel must be one of {', '.join(CHANNELS)}, got {channel!r}")
        if config is None:
            config = _default_config()
        elif not isinstance(config, StreamGuardConfig):
            raise TypeError(f"config must be a StreamGuardConfig or None, got {type(config).__name__}")
        self.channel = channel
        self.config = config
        self.context = context if isinstance(context, RequestContext) else RequestContext.parse(context)
        self.embedder = embedder
        self.semantic_background = semantic_background
        self._reset()

    # ------------------------------------------------------------------ state

    def _reset(self) -> None:
        cfg = self.config
        self._chars = 0
        self._chunks = 0
        self._finished = False
        self._buf = ""
        self._tail = Tail(2 * cfg.max_period + cfg.kgram, _TAIL_SLACK)
        self._splitter = Splitter(cfg.novelty_ngram)
        self._period = PeriodDetector(cfg)
        self._k = cfg.kgram
        self._size = cfg.block
        self._half = cfg.block // 2
        self._unit = cfg.copy_unit
        self._probe_reach = max(1, cfg.kgram + self._period.probe_period - cfg.block // 2)  # near characters the anchor test reads
        self._pp = self._period.probe_period
        self._fold = FoldDetector(cfg)
        self._lines = LineDetector(cfg, track_totals=self.context.requested)
        self._novelty = NoveltyDetector(cfg)
        self._stutter = StutterDetector(cfg)
        self._drift = DriftDetector(cfg)
        self._dialogue = DialogueDetector(cfg)
        self._counted = CountedDetector(cfg)
        self._anaphora = AnaphoraDetector(cfg)
        self._tandem = TandemDetector(cfg)
        self._detectors: tuple[Any, ...] = (
            self._novelty,
            self._period,
            self._fold,
            self._dialogue,
            self._stutter,
            self._lines,
            self._drift,
            self._counted,
            self._anaphora,
            self._tandem,
        )
        self._semantic: SemanticRecurrence | None = None
        self._recheck: RecheckDetector | None = None
        if self.embedder is not None and self.channel != "tool_args":
            self._semantic = SemanticRecurrence(self.embedder, cfg, background=self.semantic_background)
            self._recheck = RecheckDetector(cfg, templated=self.channel == "reasoning")
            self._detectors += (self._recheck,)
        self._updates = tuple(d.update for d in self._detectors)
        self._quote_output()
        self._armed: dict[tuple[Any, ...], Armed] = {}  # fires predicted past the last block, by key
        self._open = ""  # the stream's first characters, for a request that quotes its unit
        self._excused_from: dict[tuple[str, str], int] = {}  # an excused repetition (reason, folded unit) -> its first start
        self._due = _NEVER  # the earliest offset an armed fire falls due at
        self._probed = -1  # the absolute offset of the last half-block probe
        self._wake = cfg.block // 2  # the stream length from which feed must look again
        # A quiet result's fields that differ from GuardResult's class defaults (a frozen
        # dataclass keeps its field defaults on the class): set on each chunk's new result.
        self._quiet: dict[str, Any] = {"fired": False}
        self._result = GuardResult(fired=False, chars=0)

    def reset(self) -> None:
        """Forget the stream: the guard is as new (same channel, config, context and embedder)."""
        self._reset()

    def set_context(self, context: str | RequestContext | None) -> None:
        """Set the request this stream answers (text or a parsed :class:`RequestContext`).

        Raises
        ------
        TypeError
            When ``context`` is neither text, a :class:`RequestContext` nor None.
        """
        self.context = context if isinstance(context, RequestContext) else RequestContext.parse(context)
        self._lines.track_totals = self._lines.track_totals or self.context.requested
        self._quote_output()

    def _quote_output(self) -> None:
        """A request for a program's output pasted makes every line of the answer quoted output."""
        pasted = self.context.pastes_output
        self._period.quoted = self._lines.quoted = self._drift.quoted = self._counted.quoted = self._tandem.quoted = pasted
        # Output pasted, a plan whose items recur, parts the request counts ("ten example
        # sentences", "a two-week plan"), or a song, a poem, a speech (whose lines open alike by
        # their form): sentences written from one frame are what was asked. Parts the request
        # counts bring stream.recheck's passage back in every part too (a verse form's refrain,
        # unasked, is still read by it: a song whose chorus was not asked for).
        self._anaphora.asked = self.context.pastes_output or self.context.recurring or bool(self.context.items) or self.context.verse
        self._framed = self.context.pastes_output or self.context.recurring or bool(self.context.items)
        self._dialogue.requested = self.context.exchange
        self._lines.recurring = self._drift.recurring = self._counted.recurring = self.context.recurring

    # ------------------------------------------------------------------ public API

    @property
    def result(self) -> GuardResult:
        """The result after the last chunk (a quiet result before any chunk)."""
        return self._result

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` was called (until :meth:`reset`)."""
        return self._finished

    @property
    def fired(self) -> bool:
        """True once the guard has fired (sticky until :meth:`reset`)."""
        return self._result.fired

    def feed(self, chunk: str) -> GuardResult:
        """Feed the next chunk and return the verdict so far.

        Parameters
        ----------
        chunk
            The next delta of the channel, exactly as it arrived (may be empty, may split a word
            or a unit anywhere).

        Returns
        -------
        GuardResult
            ``fired`` is True from the chunk on which a detector fired; ``steer`` while the
            semantic layer advises a nudge; ``chars`` counts every character fed so far.

        Raises
        ------
        TypeError
            When ``chunk`` is not a ``str`` (``bytes`` included: decode first).
        ValueError
            After :meth:`finish`: the stream has ended (:meth:`reset` starts a new one).
        """
        if not isinstance(chunk, str):
            raise TypeError(f"chunk must be a str, got {type(chunk).__name__}")
        if self._finished:
            raise ValueError("the stream has ended (finish() was called); reset() starts a new one")
        index = self._chunks
        self._chunks = index + 1
        chars = self._chars + len(chunk)
        self._chars = chars
        if self._result.fired:
            self._result = result = self._copy(self._result, chars)
            return result
        buf = self._buf + chunk
        if chars >= self._wake:
            # The common cases inline: the middle of the block reached (the short-period probe),
            # or one block completed whose probe was done; anything else in offset order.
            size = self._size
            end = chars - len(buf) + size  # where the block begun by buf ends
            mid = end - self._half
            if self._due >= chars and chars < end and self._probed < mid:
                self._probed = mid
                # The probe's common case inline. A run it could find (period p of copy_unit to
                # probe_period, the anchor p characters back) covers the whole half block, so the
                # half block's last half - probe_period characters recur p characters earlier
                # inside it: when they do not, there is nothing to probe.
                pp, half = self._pp, self._half
                quiet = 0 < pp < half and buf.find(buf[pp:half], 0, half - self._unit) < 0
                fire = None if quiet else self._probe(buf[:half])
            elif self._due >= end and end <= chars < end + self._half and self._probed >= mid:
                fire = self._analyse(buf[:size])
                buf = buf[size:]
                end += size
            else:
                return self._advance(buf, chars, index)
            if fire is None and self._due < chars:  # armed just now, due within this chunk
                fire = self._confirm(buf, chars)
            if fire is not None:
                self._buf = ""
                return self._fired(fire, chars, index)
            mid = end - self._half
            wake = mid if self._probed < mid else end
            due = self._due + 1
            self._wake = due if due < wake else wake
        self._buf = buf
        result = _new(GuardResult)
        d = result.__dict__
        d.update(self._quiet)
        d["chars"] = chars
        self._result = result
        return result

    def _advance(self, buf: str, chars: int, index: int) -> GuardResult:
        """Run what ``buf`` brings due, in offset order: armed fires, half-block probes, blocks."""
        size = self.config.block
        half = size // 2
        start = chars - len(buf)  # absolute offset of buf[0]: the end of the analysed text
        off = 0
        fire: Fire | None = None
        while True:
            mid = start + off + half
            if self._probed < mid:
                if self._due < min(chars, mid):
                    fire = self._confirm(buf[off:], min(chars, mid))
                    if fire is not None:
                        break
                if chars < mid:
                    break
                self._probed = mid
                fire = self._probe(buf[off : off + half])
                if fire is not None:
                    break
            end = start + off + size
            if self._due < min(chars, end):
                fire = self._confirm(buf[off:], min(chars, end))
                if fire is not None:
                    break
            if chars < end:
                break
            fire = self._analyse(buf[off : off + size])
            off += size
            if fire is not None:
                break
        if fire is not None:
            self._buf = ""
            return self._fired(fire, chars, index)
        self._buf = buf[off:]
        mid = start + off + half
        self._wake = min(self._due + 1, mid if self._probed < mid else mid + half)
        result = _new(GuardResult)
        d = result.__dict__
        d.update(self._quiet)
        d["chars"] = chars
        self._result = result
        return result

    def _probe(self, half: str) -> Fire | None:
        """Half-way through a block: the short-period probe of :meth:`PeriodDetector.probe`.

        The common case costs one concatenation of 48 characters and one ``rfind`` over 26: the
        anchor (the last ``kgram`` characters) does not recur at a distance of
        ``copy_unit``..``probe_period``.
        """
        near = self._tail.near
        s = near[len(near) - self._probe_reach :] + half if len(near) > self._probe_reach else near + half
        k = self._k
        j = len(s) - k
        if j < self._period.probe_period or s.rfind(s[j:], j - self._period.probe_period, j - self._unit + k) < 0:
            return None
        s = near[max(0, len(near) - _PROBE_TEXT) :] + half
        s0 = self._tail.end + len(half) - len(s)
        fire, armed = self._period.probe(s, s0)
        if fire is not None and not self._excused_at(fire, s0 + len(s)):
            return fire
        if armed:
            self._arm(armed)
        return None

    def _arm(self, new: list[Armed]) -> None:
        armed = self._armed
        for a in new:
            armed[a.key] = a
        if len(armed) > _MAX_ARMED:
            for key in sorted(armed, key=lambda k: armed[k].at)[_MAX_ARMED:]:
                del armed[key]
        self._due = min(a.at for a in armed.values())

    def _confirm(self, pending: str, limit: int) -> Fire | None:
        """Confirm the armed fires due before ``limit``, earliest first.

        A fire whose repetition broke is dropped; one that needs more text is re-armed further on
        (and confirmed again if that is still before ``limit``).
        """
        armed = self._armed
        text, t0 = self._tail.text()
        s = text + pending
        fire: Fire | None = None
        while armed:
            key, a = min(armed.items(), key=lambda kv: kv[1].at)
            if a.at >= limit:
                break
            del armed[key]
            f = a.source.confirm(a, s, t0)
            if isinstance(f, Armed):
                armed[key] = f
            elif f is not None and not self._excused_at(f, a.at + 1):
                fire = f
                break
        self._due = min((a.at for a in armed.values()), default=_NEVER)
        return fire

    def finish(self) -> GuardResult:
        """The stream has ended: judge the complete response and return the final result.

        Call it once the model's response is complete (the server sent its last delta, or the
        token limit stopped it). Two things happen that cannot while the stream goes on:

        - the characters after the last complete block (up to ``config.block - 1``) are
          analysed as a final, shorter block, so that a copy completed by the last chunks is
          judged;
        - the ending rule (``stream.ending``, :mod:`~plateau.stream.ending`) reads the whole
          response: a run of a unit shorter than ``copy_unit`` that reaches the end, holds
          ``unit_copies`` copies, covers ``end_span_floor`` (32) columns and half the response
          fires, where mid-stream it needed ``span_floor`` (96) -- a legitimate run stops and the
          text goes on; at the end nothing follows. A request that asks for the repetition
          excuses it as usual. It reads the response only while the guard still holds all of it
          (``2 * max_period + kgram`` characters and more): a loop that is half of a longer
          response has fired mid-stream.

        A fire found here is attributed to the last chunk fed. Calling ``finish`` again returns
        the same result; once fired, the current result is returned unchanged. The semantic
        layer's pending embeddings are not waited for (:meth:`settle`).

        Returns
        -------
        GuardResult
            The final result: ``fired`` and ``fired_at_chunk`` set when the response
            degenerated, here or before.
        """
        if self._finished:
            return self._result
        self._finished = True
        if self._result.fired:
            return self._result
        chars, index = self._chars, max(0, self._chunks - 1)
        buf, self._buf = self._buf, ""
        fire: Fire | None = None
        if buf or self._splitter.pending:  # text after the last block, or a token the last block held back
            if self._due < chars:
                fire = self._confirm(buf, chars)
            if fire is None:
                self._splitter.close()  # the last block: its last token is complete
                fire = self._analyse(buf)
            if fire is None and self._due < chars:
                fire = self._confirm("", chars)
        if fire is None:
            text, t0 = self._tail.text()
            if t0 == 0 and text:
                end = ending_fire(text, self.config)
                if end is not None and not self._excused_at(end, chars):
                    fire = end
        if fire is not None:
            return self._fired(fire, chars, index)
        return self._result

    def settle(self, timeout: float | None = None) -> GuardResult:
        """Wait for the semantic layer's pending embeddings and judge again; return the result.

        A fire found here is attributed to the last chunk fed. Without an embedder, or once
        fired, the current result is returned unchanged.
        """
        sem = self._semantic
        if sem is None or self._result.fired:
            return self._result
        sem.drain(timeout)
        fire = self._judge_semantic(self._tail.end)
        if fire is not None:
            return self._fired(fire, self._chars, max(0, self._chunks - 1))
        self._result = self._copy(self._result, self._chars)
        return self._result

    def buffer_sizes(self) -> dict[str, int]:
        """Sizes of the internal buffers (characters or entries); bounded whatever the stream.

        Returns
        -------
        dict
            ``tail``, ``pending`` and ``line_chars`` (characters); ``folded`` (bytes);
            ``tokens`` (drift), ``counted`` (characters the counted detector holds), ``lines``,
            ``ngrams``, ``ngram_kinds``, ``turns`` and ``sentences`` (entries).
        """
        return {
            "tail": self._tail.size,
            "pending": len(self._buf),
            "folded": self._fold.size,
            "tokens": self._drift.size,
            "counted": self._counted.size,
            "lines": self._lines.size,
            "line_chars": self._lines.chars,
            "ngrams": self._novelty.size,
            "ngram_kinds": self._novelty.kinds,
            "turns": self._dialogue.size,
            "sentences": self._semantic.size if self._semantic is not None else 0,
        }

    # ------------------------------------------------------------------ composition

    def _analyse(self, piece: str) -> Fire | None:
        """Run every detector over one block; the earliest fire the request does not excuse."""
        tail = self._tail
        # Tail.push inline (one call frame less per block)
        tail.end += len(piece)
        near = tail.near + piece
        tail.near = near[len(near) - _NEAR :] if len(near) > 2 * _NEAR else near
        tail._parts.append(piece)
        tail._plen += len(piece)
        if tail._plen >= tail.slack:
            tail.text()
        block = self._splitter.block(tail, piece)
        fire: Fire | None = None
        for update in self._updates:
            f = update(block)
            if f is not None and (fire is None or f.at < fire.at) and not self._excused(f, block):
                fire = f
        if block.armed is not None and fire is None:
            self._arm(block.armed)
        sem = self._semantic
        if sem is not None:
            sem.add(piece, block.end - len(piece))
            sem.poll()
            if fire is None:
                fire = self._judge_recheck(block)
            if fire is None:
                fire = self._judge_semantic(block.end, block)
        return fire

    def _judge_recheck(self, block: Block) -> Fire | None:
        """Fire on a passage quoted again and again (textual) when the commentary restates itself
        (semantic) -- never in a plan whose items recur by design (a checklist with the same
        lines under every day: ``RequestContext.recurring``), whose blocks restate one another
        as meaning alone does there (:meth:`_judge_semantic`), nor in program output the request
        asks to paste (``RequestContext.pastes_output``): a compiler or a test runner quotes a
        source line under each warning or failure and says the same of it, which is what it
        was asked for, not a model re-judging its own passage (the textual detectors judge
        those lines with their quoted-output budget); nor when the request counts the parts it
        asks for (``RequestContext.items``: "notes for our five donors", "ten examples"): parts
        written from one frame bring its passage back in each, as sentences opening alike are
        for :mod:`~plateau.stream.anaphora` under the same requests. A song's chorus the request
        did not ask for is still read (``repetition-requests`` names the chorus when it is asked)."""
        rc = self._recheck
        sem = self._semantic
        if rc is None or sem is None or rc.candidate is None or self._framed:
            return None
        sem.flush()
        near, total = sem.near_since(rc.third)
        if total < 2 or near <= self.config.recheck_near * total or block.end < self.config.min_chars:
            return None
        cand = rc.candidate
        fire = Fire(
            at=block.end - 1,
            reason=cand.reason,
            unit=cand.unit,
            period=None,
            loop_start=cand.loop_start,
            cut_offset=cand.cut_offset,
            copies=cand.copies,
        )
        return None if self._excused(fire, block) else fire

    def _excused(self, fire: Fire, block: Block) -> bool:
        return self._excused_at(fire, block.end)

    def _excused_at(self, fire: Fire, end: int) -> bool:
        """Whether the request excuses ``fire`` at stream offset ``end``.

        A detector that judges the last copies only (``stream.drift`` reports the copies it
        compared) would be excused again and again as the repetition goes on: once a repetition
        (its reason, and its unit with digits folded and case ignored) has been excused, its
        later fires count their copies from where it was first excused, so that the request's
        bound holds over the whole run.
        """
        ctx = self.context
        if ctx.pastes_output and self._pasted(fire, end):
            return True
        if not ctx.requested and not ctx.named and not ctx.items:
            return False
        key = (fire.reason, _DIGITS.sub("0", fire.unit.strip().lower()))
        start = self._excused_from.get(key)
        if start is not None and fire.copies > 0:
            start = min(start, fire.loop_start)
            fire = replace(fire, copies=max(fire.copies, self._copies_since(fire.unit, start, end, fire.reason == "stream.anaphora")))
        else:
            start = fire.loop_start
        line = None
        if fire.reason == "stream.line_dominance" and ctx.items:  # a numbered line's copy reports its text without its label
            text, t0 = self._tail.text()
            i = fire.loop_start - t0
            if 0 <= i < len(text):
                j = text.find("\n", i)
                line = text[i : j if j >= 0 else len(text)]
        if not ctx.excuses(fire, end, self.config, opening=None if ctx.requested else self._opening(), line=line):
            return False
        self._remember(key, start)
        return True

    def _remember(self, key: tuple[str, str], start: int) -> None:
        """Remember where an excused repetition began (at most ``_MAX_EXCUSED`` of them)."""
        if key not in self._excused_from and len(self._excused_from) >= _MAX_EXCUSED:
            self._excused_from.clear()
        self._excused_from[key] = start

    def _pasted(self, fire: Fire, end: int) -> bool:
        """Whether ``fire`` is a program's output repeating whole lines, within
        ``pasted_run_floor`` characters of its first copy, in an answer the request asks to
        paste (a debug line printed per iteration, a frame per recursive call, a block per
        record): its first copy starts a line (after its indentation) and ends with one. The first copy is remembered
        per repetition (its reason, and its unit with digits folded), as for an excused
        request, so that the floor counts from where the repetition began."""
        unit = fire.unit.rstrip(" \t")
        if not unit.endswith("\n") or not unit.strip():
            return False
        text, t0 = self._tail.text()
        i = fire.loop_start - t0
        if not 0 <= i <= len(text) or (i > 0 and text[text.rfind("\n", 0, i) + 1 : i].strip()):  # only indentation before it on its line
            return False
        key = ("pasted", _DIGITS.sub("0", unit.strip().lower()))
        start = min(self._excused_from.get(key, fire.loop_start), fire.loop_start)
        if end - start >= self.config.pasted_run_floor:
            return False
        self._remember(key, start)
        return True

    def _copies_since(self, unit: str, start: int, end: int, scattered: bool = False) -> int:
        """Copies of ``unit`` between the stream offsets ``start`` and ``end``.

        A unit of one token (no whitespace inside it: a stutter's doubled word, a drill's
        character written among others), or a ``scattered`` one (the phrase that opens
        sentences, ``stream.anaphora``), need not tile the span, so its copies are its
        occurrences there, digits read as ``0`` and case ignored, where the guard still holds
        that text; any other unit's are the span over the unit's length (a unit whose spacing
        or counters drift tiles the span without occurring verbatim).
        """
        core = unit.strip()
        if scattered and core:
            text, t0 = self._tail.text()
            if start >= t0:
                return _DIGITS.sub("0", text[start - t0 : end - t0].lower()).count(_DIGITS.sub("0", core.lower()))
        if core and not any(ch.isspace() for ch in core):
            text, t0 = self._tail.text()
            if start >= t0:
                return _DIGITS.sub("0", text[start - t0 : end - t0]).count(_DIGITS.sub("0", core))
        return (end - start) // max(1, len(unit))

    def _opening(self) -> str:
        """The stream's first ``_OPENING`` characters analysed (kept once the tail has dropped them)."""
        text, t0 = self._tail.text()
        if t0 == 0:
            self._open = text[:_OPENING]
        return self._open

    def _judge_semantic(self, end: int, block: Block | None = None) -> Fire | None:
        """Steer on semantic recurrence; fire when the wording corroborates it."""
        sem = self._semantic
        assert sem is not None
        if not sem.recurring:
            if self._quiet.get("steer"):
                self._quiet = {"fired": False}
            return None
        fresh = self._novelty.fresh_fraction
        # Copies the drift detector read as an enumeration inside the window (a template filled
        # once per item) are textual evidence against a loop: meaning alone then only steers.
        listed = self._drift.enumeration_end >= sem.window_start >= 0
        # Output the request asks to paste (a program prints its lines alike), a plan whose items
        # recur by design (``recurring-plans``: a schedule, a log with one block per day) and parts
        # the request counts ("a letter for each of six members", "ten examples") are written from
        # one frame, meaning and wording alike (_framed, as for stream.anaphora and
        # stream.recheck): the textual detectors judge their copies, meaning alone steers.
        corroborated = fresh is not None and fresh <= self.config.corroboration_fresh
        if not self._framed and not listed and corroborated and sem.origin is not None:
            text, start = sem.origin
            fire = Fire(
                at=end - 1,
                reason="stream.semantic_loop",
                unit=text,
                period=None,
                loop_start=start,
                cut_offset=start + len(text),
            )
            if block is None or not self._excused(fire, block):
                return fire
        self._quiet.update(steer=True, message=sem.message())
        return None

    def _fired(self, fire: Fire, chars: int, index: int) -> GuardResult:
        self._result = GuardResult(
            fired=True,
            chars=chars,
            reason=fire.reason,
            unit=fire.unit,
            period=fire.period,
            loop_start=fire.loop_start,
            cut_offset=fire.cut_offset,
            fired_at_chunk=index,
        )
        self._release()
        return self._result

    @staticmethod
    def _copy(result: GuardResult, chars: int) -> GuardResult:
        out = _new(GuardResult)
        d = out.__dict__
        d.update(result.__dict__)
        d["chars"] = chars
        return out

    def _release(self) -> None:
        """After a fire: drop the analysis buffers (feeding on only counts characters)."""
        self._buf = ""
        self._armed = {}
        self._due = _NEVER
        self._tail = Tail(1, 0)
        for detector in self._detectors:
            detector.reset()
        self._drift.reset()
        self._semantic = None
        self._recheck = None
