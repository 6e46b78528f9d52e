"""Hyper-parameters of the stream guard (:class:`StreamGuardConfig`), validated on construction."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["StreamGuardConfig"]


@dataclass(frozen=True)
class StreamGuardConfig:
    """Hyper-parameters of :class:`StreamGuard`.

    Every field is validated in ``__post_init__``; a bad value raises :class:`ValueError`
    whose message starts with the parameter's name. Lengths are in characters (Python ``str``
    code points), counts are plain integers.

    Parameters
    ----------
    min_chars
        Characters the stream must hold before any detector may fire (int, 1..1,000,000;
        default 64). Every detector has its own, larger length requirement; this is the global
        floor ("no verdict on less than a sentence").
    max_period
        Longest period looked for, in characters (int, 1..65,536; default 4096: a ~300-char
        reasoning paragraph, two alternating 1.5 KB paragraphs, a 120-line function written
        out again). Sets the tail buffer to about ``2 * max_period`` characters.
    kgram
        Length of the anchor -- the last characters of a block -- whose earlier occurrences
        propose candidate periods (int, 2..64, at most ``max_period``; default 16). Shorter
        proposes more spurious periods in prose (each rejected by one slice comparison);
        periods shorter than ``kgram`` are found all the same (the anchor recurs at distance
        ``p``).
    block
        Characters between two analyses (int, 16..4096; default 64). The text is analysed in
        blocks aligned on multiples of ``block`` from the start of the stream, whatever the
        chunking, so the verdict and its offsets never depend on how the stream was cut. A
        repetition whose span will be complete before the next block is *armed* at the block's
        end and fires on the chunk that brings the character completing it (the exact-period,
        single-token and folded-copies rules); the self-dialogue and numbered-line rules,
        once their next event may fire, read every later chunk up to the next block and fire
        on the chunk that completes it; the other detectors (stutter, line dominance over the
        window, drift, novelty) report on the chunk that completes the block in which their
        evidence was complete (at most ``block - 1`` characters later). Larger is cheaper per
        character.
    span_floor
        Span, in characters, at which a repetition of a *short* unit fires: a unit with a word
        (a token of two letters or more) shorter than ``copy_unit`` characters -- a syllable
        or a word repeated, a one-word line, a two- or three-token chant (int, 8..10^9;
        default 96). The
        reader's rule bounds it: a run of a short unit is plain by the time it fills 32 to 96
        characters (half a line to a line). Legitimate text holds up to about 64 characters of
        one short unit (a song's sixteen-fold syllable refrain, a sentence made of one word
        said eight times); 96 is the top of the bound and half as much again. Measured: no
        run of a short unit with a word reaches 24 characters in the 6,950 real model
        responses of ``scripts/stream_false_alarms.py`` (coding agents; no songs), but at 48 a
        legitimate requested count of ``evals/dev-stream2`` fires and a padded chant of
        ``evals/stream`` fires before its window, so the floor is not lowered. Counted in columns (a wide
        character fills two, see ``digit_run_floor``).
    glued_span_floor
        Span, in columns, at which a short unit with a word whose copies abut with nothing
        between them fires (:func:`plateau.stream.text.is_glued`: ``HeyHeyHey``,
        ``<unk><unk>``, ``好的好的``; not a unit of hexadecimal digits alone) (int, 8..10^9,
        at most ``span_floor``; default 64); also a run of one special token of a chat template
        or a tokenizer with only whitespace between its copies (``</s>``, ``<|im_end|>``,
        ``<end_of_turn>``: :func:`plateau.stream.text.is_special_token_run`), markup that no
        text repeats either. No language writes a word glued to itself: the
        legitimate runs are a laugh, a fixture string in a test, a file mode. Measured on the
        17,796 real messages of ``scripts/stream_false_alarms.py`` (model responses, tool
        outputs with source files, test-runner and listing output): no model response holds
        three glued copies of a unit with two letters, and the longest such run in any message
        is 55 characters (a test file's ``longcommentlongcomment...`` fixture; the next a
        test-runner progress line of 45). 64 is above it and is ``min_chars``, the least
        text the guard judges: a glued run fires as soon as the guard may speak, within the
        reader's 32-96 bound, where a spaced run waits for ``span_floor``.
    structural_span_floor
        Minimum span, in characters, for a unit without a word that is layout -- whitespace,
        dividers, rules and borders (``-``, ``=``, ``_``, ``*``, ``#``, ``~``, ``.``, ``|``,
        ``+``, box drawing), or wordless tokens separated by spaces (``00 00``, ``0, 0,``: a
        hexdump, a zero matrix) (int, 8..10^9, at least ``span_floor``; default 256).
        Legitimate text holds 58-120 character box-drawing or ``----`` dividers, markdown table
        rules, rows of zeros in data; 256 is twice the widest common divider.
    progress_run_floor
        Characters a run of leaders (``.``, ``·``, ``…``, spaced or not) must cover inside quoted
        program output -- an open code fence that names no language, or an answer the request
        asks to paste (:attr:`~plateau.stream.context.RequestContext.pastes_output`) -- where a
        test runner prints one dot per test on one line (int, 8..10^9, and never less than the
        layout rule, ``structural_span_floor``, asks; default 1,700). Measured on the real tool
        outputs of ``scripts/stream_false_alarms.py``: the longest run of dots is 1,115 (a Django
        test run); 1,700 is that run and half as much again, as ``digit_run_floor`` is derived.
    pasted_run_floor
        Characters a repetition of whole lines (one line or a block of several, verbatim or
        differing by counters) must cover, from its first copy, in an answer the request asks
        to paste as a program's output
        (:attr:`~plateau.stream.context.RequestContext.pastes_output`) before it fires (int,
        8..10^9; default 8,550). A program prints what its loops print: a debug line per
        iteration, a frame per recursive call, one block per record. Measured on the real tool
        outputs of ``scripts/stream_false_alarms.py``: the longest run of whole lines repeating
        verbatim, at any period of one to eight lines, is 5,700 characters (a debug line printed
        100 times); 8,550 is that run and half as much again, as ``progress_run_floor`` is
        derived.
    anaphora_sentences
        Sentences of the window in which ``unit_copies`` sentences opening with the same
        phrase of ``copy_unit`` characters or more fire as ``stream.anaphora`` (int, 2..256;
        fewer than ``unit_copies`` never fire; default 8: about two paragraphs, the span in which a reader
        notices four sentences opening alike -- :mod:`~plateau.stream.anaphora`). Measured on
        the 7,901 real model responses of ``scripts/stream_false_alarms.py``: none fires with
        a window of 8, 16 or 32 sentences, so 8 is the reading rule's span, not the edge of a
        false-alarm budget.
    min_copies
        Fewest copies of any unit (int, 2..64; default 3). Two verbatim copies in a row are
        legitimate (a doubled refrain, code shown twice); a short unit needs at least three
        whatever its span.
    copy_unit
        Characters from which a unit with a word is judged by its copies rather than by its
        span (int, 2..4096; default 16: about three words of English, whose words average
        five characters with their space). Shorter units are a word or two, which legitimate
        text repeats more often (a laugh, a chant, "no no no no").
    unit_copies
        Copies by which a repetition of a unit of ``copy_unit`` characters or more with a word
        fires, whatever its length (int, ``min_copies``..``max_copies``; default 4: issue 23's
        reading rule, a reader stops a repeated sentence, line or paragraph by its fourth copy,
        counting from the first). Legitimate text holds three copies in a row: a tripled
        refrain, three identical calls in a test, and -- measured by
        ``scripts/stream_false_alarms.py`` on 7,562 real model responses -- a 132-character debug
        line quoted three times; at four copies no real response fires. A unit that is one
        whole line inside a code fence needs ``max_copies`` (see
        :meth:`span_required`).
    max_copies
        Copies a unit without a word that is layout needs (see ``structural_span_floor``; int,
        ``min_copies``..1000; default 12). A diagram may repeat an empty box side a handful of
        times, a matrix a zero row a few times; a dozen identical lines in a row is a stuck
        stream (Qwen3-VL issue #1611 repeats one box side until the output cap).
    copies_word_budget
        Words the copies of a *drifting* unit must hold together (int, 1..10,000; default 48;
        :mod:`~plateau.stream.drift` only).
    copies_char_budget
        Characters the copies of a *drifting* unit must hold together (int, 1..1,000,000;
        default 280; :mod:`~plateau.stream.drift` only). Copies equal only once whitespace and
        case are folded need ``clamp(min(ceil(copies_word_budget / w), ceil(copies_char_budget
        / p)), unit_copies, max_copies)`` copies: four, or more for a unit of few words (an
        indented tree repeats its folded lines).
    line_window
        Non-trivial lines in the line-dominance window (int, 4..4096; default 32).
    line_min_words
        Words (tokens with at least two letters) a line needs to count for line dominance
        (int, 1..100; default 4). Shorter lines (``}``, ``console.log();``, ``metadata:``,
        ``| | |``, rows of numbers) repeat legitimately.
    line_max_distinct
        Line dominance fires when the full window holds at most this many distinct lines (int,
        1..``line_window - 1``; default 8, one quarter of the window). Real code and
        documentation stay above a quarter distinct except for about 0.1 % of files
        (generated data).
    novelty_ngram
        Words per n-gram of the novelty detector (int, 1..16; default 4). Long enough that a
        varying counter or value breaks the n-grams that hold it (JSON arrays, asserts), short
        enough that slot-filled templates still recycle.
    novelty_lookback
        n-grams remembered for the recycling test (int, 2..100,000; default 1000, about 5 KB of
        prose).
    novelty_window
        n-grams over which the fresh fraction is measured (int, 10..``novelty_lookback``;
        default 200, about 1 KB of prose). The low novelty must hold over a whole window, not a
        sentence.
    novelty_min_repeats
        Earlier occurrences within the lookback that make an n-gram recycled (int, 1..100;
        default 2).
    novelty_max_fresh
        The novelty detector fires when the fresh fraction over the window is at most this
        (float in [0, 1); default 0.15). Healthy prose runs at 0.9-1.0; the templated
        reasoning loop of the benchmark falls below 0.15 after about 3 KB and to 0.02 later.
    novelty_min_prose
        The novelty detector judges only windows in which at least this fraction of the
        n-grams end on a prose word -- a word of letters preceded by whitespace with at most a
        little sentence punctuation (float in [0, 1]; default 0.8). Code, markup and numeric
        data recycle their tokens legitimately (in about 2 % of real source files the recycled
        fraction reaches 0.85, against 0.14 % of prose-like windows); their loops are left to
        the exact-period and line detectors.
    drift_min_words
        Words (tokens with at least two letters) each copy of a *drifting* unit must hold (int,
        2..1000; default 8). The drift detector compares copies after collapsing whitespace,
        case and digit runs, and tolerates a changed or duplicated word; units this wordy are
        sentences, not table rows, log lines or enum members.
    drift_copies
        Consecutive near-identical copies that make a drifting loop, at the least (int, 3..64;
        default 4): the copies an exact loop of a unit of ``copy_unit`` characters needs (issue
        23: a loop is cut by its fourth copy, copies compared after folding); a shorter or
        less wordy unit needs what its exact loop needs. That the copies are alike, not equal,
        is weighed by ``drift_similarity`` and the enumeration test instead.
    drift_similarity
        Least Jaccard similarity of the word sets of two consecutive copies (float in (0, 1];
        default 0.75). A changed word in a 12-word sentence gives 0.85; two sentences of a
        paragraph on the same subject stay under 0.4.
    stutter_blocks
        Consecutive blocks that must stutter -- a third of their tokens repeat the token before
        them, or their longest token is a shorter token repeated ("thethethe",
        "HelloHelloHello") -- for ``stream.stutter`` (int, 2..64; default 4, 256 characters).
        Prose doubles a word in well under 1 % of its words ("that that", "had had"); a laugh
        ("ha ha ha ha") fills one block, not four.
    digit_run_floor
        Characters a run of one token must cover -- a digit, a letter, ``!`` or an emoji
        repeated, or a short wordless token such as ``0x``, with nothing between its copies or
        a separator of spaces and at most one comma or semicolon on one line (``0, 0, 0``,
        ``b b b``; a column of values, one per line, and rows of two tokens or more stay
        layout; leaders -- ``.``, ``·``, ``…`` alone, spaced or not -- after text on their line
        outside quoted output, :func:`plateau.stream.text.is_leader_run`; a line of nothing but
        leaders is layout, a test runner's progress) (int,
        8..10^9; default 96): a stream of zeros. Within the reader's 32-96 character bound
        (see ``span_floor``) and above the longest legitimate run, a 64-digit literal (a
        256-bit hash or zero value in hex, a 64-bit mask in binary). Measured on the 6,950
        real model responses of ``scripts/stream_false_alarms.py``: the longest run of one
        token is 65 characters (an ``x`` fill in a FITS card), the next a repeating decimal of
        62; no run of a short unit with a word reaches 24. A floor at or below 65 would fire on
        a real response, so 96 -- the longest legitimate run and half as much again, the top
        of the reader's bound -- stays. A run of line breaks (blank lines, with or without
        spaces on them) is a run of one token too, not layout: the longest in the 6,950 model
        responses is 4 line breaks, in the 5,898 tool outputs 9. The floor is counted in columns: a wide character (Han,
        kana, hangul, emoji; Unicode UAX #11) fills two, so a run of one wide character fires
        at 48 characters (a line of 96 columns), and the same holds for ``span_floor``.
    end_span_floor
        Columns a run of a unit shorter than ``copy_unit`` must cover to fire when the stream
        has ended and the run reaches its end (:meth:`plateau.stream.StreamGuard.finish`,
        ``stream.ending``, :mod:`~plateau.stream.ending`) (int, 8..10^9, at most ``span_floor``;
        default 32): the lower end of the reader's 32-96 character bound. Mid-stream the floors
        wait for 96 because a legitimate run can stop and the text go on; at the end nothing
        follows. No message of the 17,796 in ``scripts/stream_false_alarms.py`` ends in a run of
        a short unit covering 20 characters or more.
    tandem_slip_rate
        A run of a unit shorter than ``copy_unit`` with slips (``stream.tandem``,
        :mod:`~plateau.stream.tandem`) may hold one mismatched character in every
        ``tandem_slip_rate`` of its ``span_floor``-character window (int, 1..10^6; default 8:
        12 of 96). The budget: on the 7,452 real model responses of
        ``scripts/stream_false_alarms.py`` no window with a word comes below 25 mismatches at any
        period under ``copy_unit``; 12 is half of it.
    end_fraction
        Least share of the response's columns that run must cover (float in (0, 1]; default
        0.5): the loop is most of what the response says. A song that ends on its refrain is
        mostly verses.
    dialogue_turns
        Cycles of an impersonated chat template -- role markers such as ``<|im_start|>user``,
        ``[INST]`` or ``<start_of_turn>user`` inside the model's own output, one cycle the
        shortest repeating sequence of roles (a user/assistant turn pair) -- at whose start the
        self-dialogue fires (int, 2..64; default 3: the second repeat of the cycle, during the
        third turn pair; the first cycle repeats nothing and the second is its first repeat,
        which a few-shot example or a quoted exchange also holds). When the turns themselves
        come back at a longer period (two or three turn pairs), the cycle is theirs and the
        same count applies to it (:mod:`~plateau.stream.dialogue`). Also the number of alike
        turns of one role that fire.
    dialogue_max_turns
        Special-token markers after which turns that recur without a fixed cycle fire, once
        the last marker's role opened ``dialogue_turns`` of them (int,
        ``dialogue_turns``..1000; default 8: four turn pairs).
    semantic_similarity
        Cosine similarity above which a completed sentence *lands near* an earlier sentence of
        the same response (float in (0, 1]; default 0.8). Paraphrases of MiniLM score about
        0.7-0.9, same-topic different statements 0.3-0.6.
    semantic_window
        Most recent completed sentences over which recurrence is measured (int, 4..256;
        default 8).
    semantic_fraction
        The semantic layer steers when at least this fraction of the window's sentences land
        near an earlier one (float in (0, 1]; default 0.75).
    corroboration_fresh
        The semantic layer may fire only when the textual novelty over the word window is
        this low (fresh fraction of word n-grams, float in (0, 1]; default 0.4: most of the
        wording recycled): the sentences recur in meaning *and* in wording. Alone, meaning only
        steers.
    recheck_quotes
        Occurrences of a passage of three lines (24 characters or more) that make a re-check
        loop candidate (int, 3..64; default 4: the original and three re-checks, inside the
        3rd-5th re-check bound at which a reader sees that nothing is being learned; two
        re-checks of code after an edit are ordinary). Fires only with the semantic layer's
        corroboration (``recheck_near``).
    recheck_near
        Share of the sentences written since the passage's third occurrence that must land
        near an earlier sentence (``semantic_similarity``) -- more than this share -- for the
        semantic layer to corroborate a re-check candidate (float in (0, 1]; default 0.5: a
        loop restates most of what it says, the look again, the verdict and the doubt;
        commentary that moves on restates at most its announcement that it looks again, half
        of a re-check of one finding).
    context_slack
        A bound read from the request ("50 times") excuses up to ``ceil(bound *
        context_slack) + 2`` copies of the requested unit (float >= 1; default 2: twice what
        was asked is clearly more than asked).
    context_cap_chars
        Characters of repetition a request without a number ("repeat it over and over")
        excuses (int, 64..10^9; default 20,000).

    Raises
    ------
    ValueError
        When a parameter is out of range or of the wrong type; the message names it.

    Examples
    --------
    >>> StreamGuardConfig(span_floor=200).span_floor
    200
    >>> StreamGuardConfig(kgram=1)
    Traceback (most recent call last):
    ...
    ValueError: kgram must be an integer in [2, 64], got 1
    """

    min_chars: int = 64
    max_period: int = 4096
    kgram: int = 16
    block: int = 64
    span_floor: int = 96
    glued_span_floor: int = 64
    structural_span_floor: int = 256
    progress_run_floor: int = 1700
    pasted_run_floor: int = 8550
    anaphora_sentences: int = 8
    min_copies: int = 3
    copy_unit: int = 16
    unit_copies: int = 4
    max_copies: int = 12
    copies_word_budget: int = 48
    copies_char_budget: int = 280
    line_window: int = 32
    line_min_words: int = 4
    line_max_distinct: int = 8
    novelty_ngram: int = 4
    novelty_lookback: int = 1000
    novelty_window: int = 200
    novelty_min_repeats: int = 2
    novelty_max_fresh: float = 0.15
    novelty_min_prose: float = 0.8
    drift_min_words: int = 8
    drift_copies: int = 4
    drift_similarity: float = 0.75
    stutter_blocks: int = 4
    digit_run_floor: int = 96
    end_span_floor: int = 32
    tandem_slip_rate: int = 8
    end_fraction: float = 0.5
    dialogue_turns: int = 3
    dialogue_max_turns: int = 8
    semantic_similarity: float = 0.8
    semantic_window: int = 8
    semantic_fraction: float = 0.75
    corroboration_fresh: float = 0.4
    recheck_quotes: int = 4
    recheck_near: float = 0.5
    context_slack: float = 2.0
    context_cap_chars: int = 20_000

    def __post_init__(self) -> None:
        ranges: dict[str, tuple[int, int]] = {
            "min_chars": (1, 1_000_000),
            "max_period": (1, 65_536),
            "kgram": (2, 64),
            "span_floor": (8, 1_000_000_000),
            "glued_span_floor": (8, 1_000_000_000),
            "structural_span_floor": (8, 1_000_000_000),
            "progress_run_floor": (8, 1_000_000_000),
            "pasted_run_floor": (8, 1_000_000_000),
            "anaphora_sentences": (2, 256),
            "min_copies": (2, 64),
            "copy_unit": (2, 4096),
            "unit_copies": (2, 1000),
            "max_copies": (2, 1000),
            "copies_word_budget": (1, 10_000),
            "copies_char_budget": (1, 1_000_000),
            "line_window": (4, 4096),
            "line_min_words": (1, 100),
            "line_max_distinct": (1, 4095),
            "novelty_ngram": (1, 16),
            "novelty_lookback": (2, 100_000),
            "novelty_window": (10, 100_000),
            "novelty_min_repeats": (1, 100),
            "block": (16, 4096),
            "drift_min_words": (2, 1000),
            "drift_copies": (3, 64),
            "stutter_blocks": (2, 64),
            "digit_run_floor": (8, 1_000_000_000),
            "end_span_floor": (8, 1_000_000_000),
            "tandem_slip_rate": (1, 1_000_000),
            "dialogue_turns": (2, 64),
            "dialogue_max_turns": (2, 1000),
            "recheck_quotes": (3, 64),
            "semantic_window": (4, 256),
            "context_cap_chars": (64, 1_000_000_000),
        }
        for name, (low, high) in ranges.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name} must be an integer in [{low}, {high}], got {value!r}")
        fresh = self.novelty_max_fresh
        if isinstance(fresh, bool) or not isinstance(fresh, (int, float)) or not 0.0 <= fresh < 1.0:
            raise ValueError(f"novelty_max_fresh must be a number in [0, 1), got {fresh!r}")
        prose = self.novelty_min_prose
        if isinstance(prose, bool) or not isinstance(prose, (int, float)) or not 0.0 <= prose <= 1.0:
            raise ValueError(f"novelty_min_prose must be a number in [0, 1], got {prose!r}")
        for name in ("drift_similarity", "end_fraction", "semantic_similarity", "semantic_fraction", "corroboration_fresh", "recheck_near"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")
        slack = self.context_slack
        if isinstance(slack, bool) or not isinstance(slack, (int, float)) or not 1.0 <= slack <= 1000.0:
            raise ValueError(f"context_slack must be a number in [1, 1000], got {slack!r}")
        pairs = (
            ("kgram", self.kgram <= self.max_period, "at most max_period"),
            ("structural_span_floor", self.structural_span_floor >= self.span_floor, "at least span_floor"),
            ("glued_span_floor", self.glued_span_floor <= self.span_floor, "at most span_floor"),
            ("end_span_floor", self.end_span_floor <= self.span_floor, "at most span_floor"),
            ("max_copies", self.max_copies >= self.min_copies, "at least min_copies"),
            ("unit_copies", self.min_copies <= self.unit_copies <= self.max_copies, "in [min_copies, max_copies]"),
            ("line_max_distinct", self.line_max_distinct < self.line_window, "less than line_window"),
            ("novelty_window", self.novelty_window <= self.novelty_lookback, "at most novelty_lookback"),
            ("dialogue_max_turns", self.dialogue_max_turns >= self.dialogue_turns, "at least dialogue_turns"),
        )
        for name, ok, what in pairs:
            if not ok:
                raise ValueError(f"{name} must be {what}, got {getattr(self, name)!r}")

    def copies_required(self, period: int, words: int) -> int:
        """Copies a unit of ``period`` characters and ``words`` words must reach.

        ``max_copies`` for a unit without a word; ``max(min_copies, ceil(span_floor /
        period))`` for a unit shorter than ``copy_unit``; otherwise ``unit_copies`` (4: fire by
        the fourth copy).
        """
        if words <= 0:
            return self.max_copies
        period = max(period, 1)
        if period < self.copy_unit:
            return max(self.min_copies, math.ceil(self.span_floor / period))
        return self.unit_copies

    def span_required(
        self, period: int, words: int, *, token: bool = False, content: int | None = None, quoted_line: bool = False, glued: bool = False
    ) -> int:
        """Characters a repetition of a ``period``-character unit of ``words`` words must cover.

        ``max(ceil(digit_run_floor * period / width), min_copies * period)`` for a single-token
        run (``token``: a unit shorter than ``copy_unit`` that is one token not only layout,
        such as ``0``, ``!`` or an emoji, alone or with a separator of spaces and at most one
        comma on one line: ``0, ``, ``b `` -- :func:`plateau.stream.text.is_token_run`; a run
        of one layout character glued to a word, ``One####``, counts as one too), where
        ``width`` is the larger of ``period`` and ``content``: ``digit_run_floor`` columns, a
        wide character (Han, kana, hangul, emoji) filling two (``"加"`` fires at 48 copies);
        ``max(structural_span_floor, max_copies * period)`` for any other unit without a word
        (a row of two numbers or more included). A unit with a word is
        measured by its ``content`` -- its length with a run of whitespace counted as at most
        four characters (one indentation step), so that indentation is not content, and a wide
        character as two columns
        (:func:`plateau.stream.text.content_length`; default: ``period``): shorter than
        ``copy_unit``, its copies must hold ``span_floor`` characters of content
        (``ceil(span_floor * period / content)`` characters, at least ``min_copies`` copies),
        ``glued_span_floor`` when they abut (``glued``: :func:`plateau.stream.text.is_glued`);
        otherwise ``copies_required(content, words) * period`` (four copies). A
        ``quoted_line`` -- a unit that is one whole line inside an open code fence: quoted
        program output, a log -- needs ``max_copies`` copies (12), the budget measured on real
        tool output (``scripts/stream_false_alarms.py``: the longest run of one repeated line of
        16 characters or more reaches 4 copies in 1.9 % of 5,458 real tool outputs -- test
        runners print ``Cloning test database ...`` once per worker -- and 12 in 0.13 %).
        """
        if words <= 0:
            if token and period < self.copy_unit:
                width = period if content is None else max(period, content)
                floor = self.glued_span_floor if glued else self.digit_run_floor
                return max(math.ceil(floor * period / width), self.min_copies * period)
            return max(self.structural_span_floor, self.max_copies * period)
        length = period if content is None else max(1, content)
        if quoted_line:
            return max(self.span_required(period, words, content=content, glued=glued), self.max_copies * period)
        if length < self.copy_unit:
            floor = self.glued_span_floor if glued else self.span_floor
            return max(math.ceil(floor * period / length), self.min_copies * period)
        return self.copies_required(length, words) * period
