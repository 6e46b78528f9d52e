"""Tests for plateau.signals.textual (step-level textual repetition signals)."""

from __future__ import annotations

import dataclasses
import math
import pickle
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from plateau.signals import textual
from plateau.signals.textual import (
    HASH_BASE,
    HASH_MODULUS,
    STOP_WORDS,
    TextualConfig,
    TextualSignals,
    TextualTracker,
    is_cjk,
    jaccard,
    normalize,
    rolling_hashes,
    split_sentences,
    tokenize,
)
from tests.support.paths import REPO

ROOT = REPO

# A step that states an observation and a plan, as agents do.
PARAGRAPH = (
    "The test for trailing comments fails because the parser drops the last token when the "
    "input ends without a newline. I will add an end-of-input check to the tokenizer so the "
    "pending token is flushed before the loop exits, and then run the whole test suite again."
)
# The same content reworded and reordered: shared vocabulary, few shared phrases.
PARAPHRASE = (
    "Because the parser drops the final token, the test for trailing comments fails when the "
    "input has no newline at its end. Before the loop exits, the tokenizer needs to flush the "
    "pending token, so I'll add an end-of-input check there. After that, the test suite gets "
    "run again."
)
UNRELATED = (
    "Deployment to the staging cluster finished and the health checks are green. Next I will "
    "update the changelog with the release notes and tag version 0.4.0."
)
FILLER = "Let me open src/parser/tokenizer.py to see how the main loop handles end of input."

# Hypothesis text: Latin, CJK, digits, punctuation and whitespace of several kinds.
TEXTS = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("abcdefgh XYZ 0123456789 .,;:!?-_'\"()\n\t")),
        st.sampled_from(list("测试失败了解析器。！？；「」")),
        st.characters(codec="utf-8"),
    ),
    max_size=200,
)


def feed(texts: list[str], config: TextualConfig | None = None) -> list[TextualSignals]:
    """Feed texts to a fresh tracker and return the signals of every step."""
    tracker = TextualTracker(config)
    return [tracker.update(t) for t in texts]


def direct_polynomial(symbols: list[int], n: int) -> list[int]:
    """Hash every window from scratch (no rolling), as the definition states."""
    out = []
    for i in range(len(symbols) - n + 1):
        h = 0
        for j, x in enumerate(symbols[i : i + n]):
            h += x * pow(HASH_BASE, n - 1 - j, HASH_MODULUS)
        out.append(h % HASH_MODULUS)
    return out


# --- rolling hash ------------------------------------------------------------------------


def test_rolling_hash_equal_ngrams_hash_equal() -> None:
    """Equal n-grams at different positions get the same hash, different ones do not."""
    tokens = "the cat sat on the mat and the cat sat down".split()
    h = rolling_hashes(tokens, 3)
    assert len(h) == len(tokens) - 2
    assert h[0] == h[7]  # "the cat sat" twice
    assert h[0] != h[1]


def test_rolling_hash_matches_direct_recomputation_on_chars() -> None:
    """Rolling hashes of a string equal the polynomial recomputed from scratch per window."""
    text = "abracadabra, abracadabra! 测试"
    for n in (1, 2, 5, len(text)):
        assert rolling_hashes(text, n) == direct_polynomial([ord(c) + 1 for c in text], n)


def test_rolling_hash_matches_direct_recomputation_on_tokens() -> None:
    """Each token n-gram's rolling hash equals the hash of that n-gram computed alone."""
    rng = random.Random(7)
    tokens = [rng.choice(["alpha", "beta", "gamma", "delta", "x", "测"]) for _ in range(200)]
    for n in (1, 3, 4, 9):
        rolled = rolling_hashes(tokens, n)
        assert rolled == [rolling_hashes(tokens[i : i + n], n)[0] for i in range(len(rolled))]


def test_rolling_hash_distinct_ngrams_differ() -> None:
    """A seeded sample of 5000 distinct 4-grams gets 5000 distinct hashes."""
    rng = random.Random(1234)
    vocab = [f"w{i}" for i in range(50)]
    grams = {tuple(rng.choice(vocab) for _ in range(4)) for _ in range(6000)}
    grams_list = sorted(grams)[:5000]
    hashes = {rolling_hashes(list(g), 4)[0] for g in grams_list}
    assert len(hashes) == len(grams_list)


def test_rolling_hash_short_input_and_bad_n() -> None:
    """Inputs shorter than n give no hashes, and n < 1 raises ValueError naming n."""
    assert rolling_hashes(["a", "b"], 3) == []
    assert rolling_hashes("", 1) == []
    with pytest.raises(ValueError, match="n must"):
        rolling_hashes(["a"], 0)


@settings(max_examples=60, deadline=None)
@given(
    tokens=st.lists(st.sampled_from(["a", "b", "c", "dd", "测", "_hex_", "42"]), max_size=300),
    n=st.integers(min_value=1, max_value=7),
)
def test_vectorised_fingerprints_equal_rolling_hashes(tokens: list[str], n: int) -> None:
    """The tracker's vectorised evaluation gives exactly the rolling hashes."""
    assert textual._fingerprints(tokens, n).tolist() == rolling_hashes(tokens, n)


def test_hashes_are_stable_across_processes() -> None:
    """Hashes do not depend on Python's per-process string hash seed (state can persist)."""
    code = "from plateau.signals.textual import rolling_hashes;print(rolling_hashes('the parser drops the last token'.split(), 3))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1
    assert outputs.pop().strip() == str(rolling_hashes("the parser drops the last token".split(), 3))


def test_import_loads_neither_torch_nor_grpc() -> None:
    """Importing the module pulls in neither torch nor grpc."""
    code = "import sys, plateau.signals.textual;print(sorted(m for m in ('torch', 'grpc') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    assert out.strip() == "[]"


# --- jaccard, tokens, normalisation, stop words ----------------------------------------


def test_jaccard_values_and_empty_sets() -> None:
    """Jaccard is |A∩B|/|A∪B|, 1 for equal sets and 0 when both are empty."""
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard({1}, {1}) == 1.0
    assert jaccard(set(), set()) == 0.0
    assert jaccard({1}, set()) == 0.0


def test_tokenize_lowercases_and_splits_cjk_characters() -> None:
    """Tokens are lower-cased \\w+ runs, with every CJK character a token of its own."""
    assert tokenize("Ran  62 Tests:\n3 FAILED!") == ["ran", "62", "tests", "3", "failed"]
    assert tokenize("Über naïve café") == ["über", "naïve", "café"]
    assert tokenize("测试失败 in parser.py") == ["测", "试", "失", "败", "in", "parser", "py"]
    assert tokenize("テストが失敗した") == list("テストが失敗した")
    assert tokenize("  \n\t ") == []
    assert tokenize("?!...") == []


def test_tokenize_ascii_fast_path_matches_regex() -> None:
    """The ASCII fast path tokenizes exactly like the Unicode regex."""
    rng = random.Random(3)
    alphabet = "abcXYZ019_ .,;:!?-'\"()[]{}\n\t/\\@#$%^&*+=<>|~`"
    for _ in range(200):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 80)))
        norm = normalize(text)
        assert tokenize(text) == textual._TOKEN_RE.findall(norm)


def test_normalize_replaces_volatile_tokens_and_keeps_numbers() -> None:
    """Hex ids, UUIDs, clock times and durations become placeholders; counts stay."""
    text = (
        "Commit 3F9A2C1E at 12:04:55.123, run 123e4567-e89b-12d3-a456-426614174000 "
        "at 0x7ffe1234 took 3.21s and 450 ms: 62 passed, 1234567 rows."
    )
    assert tokenize(text) == [
        "commit", "_hex_", "at", "_time_", "run", "_uuid_", "at", "_hex_",
        "took", "_dur_", "and", "_dur_", "62", "passed", "1234567", "rows",
    ]  # fmt: skip
    assert "v1.2.3" in normalize("Bump to v1.2.3.")


def test_stop_words_are_the_snowball_list_with_fragments() -> None:
    """STOP_WORDS holds Snowball function words and apostrophe fragments, not content words."""
    assert {"the", "and", "i", "don", "t", "ll", "between", "ourselves"} <= STOP_WORDS
    assert not {"test", "parser", "token", "fails", "will", "can't"} & {w for w in STOP_WORDS if "'" not in w}


def test_is_cjk_by_majority_of_tokens() -> None:
    """A line is CJK when CJK characters are at least as many as other word tokens."""
    assert is_cjk("我运行了 pytest tests/test_parser.py，三个测试失败。")
    assert not is_cjk("The word 测试 means test in Chinese.")
    assert not is_cjk("plain ascii")


# --- sentences ----------------------------------------------------------------------------


def test_pysbd_splits_abbreviations_correctly() -> None:
    """pysbd keeps "Dr." and "p.m." inside their sentences: two sentences, not four."""
    text = "Dr. Smith went to Washington. He arrived at 3 p.m. on Monday."
    assert split_sentences(text) == [
        "Dr. Smith went to Washington.",
        "He arrived at 3 p.m. on Monday.",
    ]


def test_split_sentences_lines_and_blank_text() -> None:
    """Line breaks end sentences, blank lines vanish, and empty text has no sentences."""
    assert split_sentences("First line\n\n- item one\nDone. Next step.") == [
        "First line",
        "- item one",
        "Done.",
        "Next step.",
    ]
    assert split_sentences("") == []
    assert split_sentences(" \n\t \n") == []


def test_split_sentences_cjk_rule() -> None:
    """Chinese and Japanese are split after 。！？!?； and closing quotes, by our own rule."""
    text = "我运行了测试。三个失败！为什么？因为解析器丢掉了最后一个词；我会修复它。"
    assert split_sentences(text) == [
        "我运行了测试。",
        "三个失败！",
        "为什么？",
        "因为解析器丢掉了最后一个词；",
        "我会修复它。",
    ]
    assert split_sentences("彼は「終わった。」と言った。次へ") == ["彼は「終わった。」", "と言った。", "次へ"]


LINE_WORDS = ["the", "The", "parser", "It", "it's", "don't", "I", "a", "Dr", "No", "is", "ok", "etc", "vs", "ii"]
LINE_WORDS += ["mix", "Smith", "U", "Fig", "sec", "St", "Then", "UTC", "v2", "42", "3.5", "foo.py", "e.g", "re-run", "Mr"]
LINE_SEPS = [" ", " ", ". ", "! ", "? ", ", ", ": ", "  ", ".  ", ".", " - ", "/", "'", "' ", " -- ", "; ", "(", ") "]


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.tuples(st.sampled_from(LINE_WORDS), st.sampled_from(LINE_SEPS)), min_size=1, max_size=12),
    end=st.sampled_from(["", ".", "!", "?", " "]),
)
def test_unambiguous_fast_path_agrees_with_pysbd(parts: list[tuple[str, str]], end: str) -> None:
    """Whenever the fast path splits an English line, pysbd splits it the same way."""
    line = "".join(w + s for w, s in parts) + end
    fast = textual._unambiguous_sentences(line)
    if fast is not None and line.strip():
        segmenter = textual._segmenter("en")
        expected = [s.strip() for s in segmenter.segment(line) if s.strip()]
        assert [s.strip() for s in fast if s.strip()] == expected


def test_fast_path_declines_ambiguous_lines() -> None:
    """Abbreviations, decimals, file names, quotes and initials are left to pysbd."""
    for line in [
        "Dr. Smith went to Washington. He arrived at 3 p.m. on Monday.",
        "Version 3.5 is out. Then we test.",
        "I edited parser.py. Then I ran it.",
        'He said "Stop." Then he left.',
        "J. Smith agreed. So did we.",
        "The answer is. Then",
    ]:
        assert textual._unambiguous_sentences(line) is None
    assert textual._unambiguous_sentences("I ran it. Then it failed! Why? Unclear.") == [
        "I ran it.",
        "Then it failed!",
        "Why?",
        "Unclear.",
    ]


def test_split_sentences_rejects_unknown_language() -> None:
    """An unsupported pysbd language raises ValueError naming the parameter."""
    with pytest.raises(ValueError, match="language"):
        split_sentences("Hello.", language="xx")


# --- the tracker ---------------------------------------------------------------------------


def test_verbatim_restatement_is_detected() -> None:
    """The same paragraph with one word changed is verbatim, with high Jaccard and the right match."""
    restated = PARAGRAPH.replace("whole test suite", "full test suite")
    signals = feed([PARAGRAPH, FILLER, UNRELATED, restated])
    last = signals[-1]
    assert last.verbatim
    assert last.matched_step == 0
    assert last.ngram_jaccard > 0.8
    assert last.containment > 0.9
    assert last.longest_run >= 40
    assert last.repeated_sentences == 1.0
    assert not any(s.verbatim for s in signals[:-1])


def test_paraphrase_is_lexically_similar_but_not_verbatim() -> None:
    """A reworded, reordered restatement has high sentence similarity but is not verbatim."""
    last = feed([PARAGRAPH, FILLER, PARAPHRASE])[-1]
    assert not last.verbatim
    assert last.sentence_similarity >= TextualConfig().sentence_threshold
    assert last.repeated_sentences > 0.0
    assert last.ngram_jaccard < 0.2
    assert last.containment < 0.3
    assert last.longest_run < TextualConfig().verbatim_run


def test_unrelated_texts_score_near_zero() -> None:
    """Texts about different things share no n-grams and almost no vocabulary."""
    last = feed([PARAGRAPH, UNRELATED])[-1]
    assert last.ngram_jaccard == 0.0
    assert last.containment == 0.0
    assert last.longest_run == 0
    assert not last.verbatim
    assert last.sentence_similarity < 0.2
    assert last.repeated_sentences == 0.0
    assert last.matched_step is None


def test_cjk_repeated_sentence_is_detected() -> None:
    """A repeated Chinese sentence is found through character n-grams and sentence bigrams."""
    first = "我运行了测试，三个测试失败了。失败的原因是解析器在输入结尾丢掉了最后一个词。"
    other = "部署到预发布环境已经完成，健康检查全部通过。"
    again = "我再看一下代码。失败的原因是解析器在输入结尾丢掉了最后一个词。"
    assert split_sentences(again) == ["我再看一下代码。", "失败的原因是解析器在输入结尾丢掉了最后一个词。"]
    signals = feed([first, other, again])
    last = signals[-1]
    assert last.matched_step == 0
    assert last.containment > 0.5
    assert last.longest_run >= 20  # the repeated sentence: 23 characters
    assert last.verbatim
    assert last.sentence_similarity == 1.0
    assert last.repeated_sentences == 0.5
    assert signals[1].ngram_jaccard < 0.1


def test_short_texts_use_character_ngrams() -> None:
    """Short texts are compared with character n-grams, so a one-letter edit still overlaps."""
    last = feed(["Retrying the connection now", "Retrying the connections now"])[-1]
    assert 0.3 < last.ngram_jaccard < 1.0
    assert last.matched_step == 0
    assert not last.verbatim  # too short to count as evidence
    # the same two texts compared by word 4-grams only would share nothing
    config = TextualConfig(min_words=1)
    assert feed(["Retrying the connection now", "Retrying the connections now"], config)[-1].ngram_jaccard == 0.0


def test_text_without_spaces_uses_character_ngrams() -> None:
    """One long token (no spaces) is compared by characters, not as a single word."""
    last = feed(["connection_refused_retrying_backoff", "connection_refused_retrying_later"])[-1]
    assert last.ngram_jaccard > 0.4


def test_volatile_tokens_do_not_hide_a_repeat() -> None:
    """A repeat that differs only in commit hash, time and duration is an exact repeat."""
    a = "Pushed commit 3f9a2c1e at 12:04:55; the build took 3.21s and " + PARAGRAPH
    b = "Pushed commit 77b0d4e9 at 12:09:13; the build took 2.87s and " + PARAGRAPH
    last = feed([a, b])[-1]
    assert last.ngram_jaccard == 1.0
    assert last.verbatim


def test_changed_counts_are_not_hidden() -> None:
    """Numbers are kept, so "62 passed" and "61 passed" are different n-grams."""
    a = "I ran the test suite again and now 62 passed and 3 failed in the parser module."
    b = "I ran the test suite again and now 61 passed and 4 failed in the parser module."
    last = feed([a, b])[-1]
    assert last.ngram_jaccard < 0.6
    assert not last.verbatim


def test_identical_short_text_repeats_exactly() -> None:
    """A one-word text fed twice has Jaccard 1 with the previous step."""
    last = feed(["Done.", "done"])[-1]
    assert last.ngram_jaccard == 1.0
    assert last.containment == 1.0
    assert last.matched_step == 0


def test_window_forgets_older_steps() -> None:
    """Steps older than the window are no longer compared."""
    config = TextualConfig(window=2)
    signals = feed([PARAGRAPH, FILLER, UNRELATED, PARAGRAPH], config)
    assert signals[-1].matched_step is None
    assert signals[-1].ngram_jaccard == 0.0
    signals = feed([PARAGRAPH, FILLER, PARAGRAPH], config)
    assert signals[-1].matched_step == 0


def test_matched_step_prefers_most_recent_on_ties() -> None:
    """With equal Jaccard, matched_step is the most recent earlier step."""
    signals = feed([PARAGRAPH, PARAGRAPH, PARAGRAPH])
    assert signals[1].matched_step == 0
    assert signals[2].matched_step == 1


def test_empty_and_whitespace_texts_give_zero_signals() -> None:
    """Empty, whitespace-only and punctuation-only texts work and give all zeros."""
    signals = feed(["", "   \n\t ", PARAGRAPH, "", "  ", "?!"])
    zero = TextualSignals()
    for index in (0, 1, 3, 4, 5):
        assert signals[index] == zero
    assert signals[2] == zero  # nothing before it shares anything


def test_long_text_is_capped_and_still_compared() -> None:
    """A text far beyond max_chars is processed (its head) and matched against a repeat."""
    long_text = " ".join(f"item {i} processed with status ok" for i in range(20000))
    assert len(long_text) > 5 * TextualConfig().max_chars
    last = feed([long_text, long_text])[-1]
    assert last.ngram_jaccard == 1.0
    assert last.verbatim


def test_sentence_head_and_tail_are_used_for_long_texts() -> None:
    """For long texts, sentences at the start and at the end are both compared."""
    head = "The parser drops the last token at end of input."
    tail = "Next I will patch the tokenizer flush logic carefully."
    middle = " ".join(f"Line {i} of the log shows nothing unusual." for i in range(100))
    last = feed([f"{head} {middle} {tail}", f"{tail} Something else entirely new here."])[-1]
    assert last.repeated_sentences == 0.5
    last = feed([f"{head} {middle} {tail}", f"{head} Something else entirely new here."])[-1]
    assert last.repeated_sentences == 0.5


def test_as_dict_is_flat_and_numeric() -> None:
    """as_dict gives floats, verbatim as 0/1, and omits matched_step when None."""
    s = TextualSignals(0.5, 0.75, 12, True, 0.25, 0.5, 3)
    assert s.as_dict() == {
        "ngram_jaccard": 0.5,
        "containment": 0.75,
        "longest_run": 12.0,
        "verbatim": 1.0,
        "sentence_similarity": 0.25,
        "repeated_sentences": 0.5,
        "matched_step": 3.0,
    }
    assert "matched_step" not in TextualSignals().as_dict()
    assert all(isinstance(v, float) for v in s.as_dict().values())


def test_reset_forgets_history_and_step_count() -> None:
    """reset() empties the window and restarts step indices at 0."""
    tracker = TextualTracker()
    tracker.update(PARAGRAPH)
    tracker.update(FILLER)
    tracker.reset()
    assert tracker.n_steps == 0
    assert tracker.update(PARAGRAPH) == TextualSignals()
    assert tracker.update(PARAGRAPH).matched_step == 0


def test_update_rejects_non_str() -> None:
    """update() raises TypeError for anything but a str."""
    with pytest.raises(TypeError, match="text"):
        TextualTracker().update(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="config"):
        TextualTracker(config={"window": 3})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("window", 0),
        ("window", 2.5),
        ("window", True),
        ("word_n", 0),
        ("char_n", -1),
        ("min_words", 0),
        ("max_chars", 0),
        ("sentence_max_chars", 0),
        ("verbatim_run", 2),
        ("verbatim_containment", 0.0),
        ("verbatim_containment", 1.5),
        ("verbatim_containment", math.nan),
        ("verbatim_min_words", 0),
        ("sentence_threshold", -0.1),
        ("sentence_threshold", "0.5"),
        ("min_sentence_terms", 0),
        ("language", "xx"),
    ],
)
def test_config_validation_names_the_parameter(name: str, value: object) -> None:
    """An invalid configuration value raises ValueError naming the parameter."""
    with pytest.raises(ValueError, match=rf"^{name} "):
        TextualConfig(**{name: value})  # type: ignore[arg-type]


def test_config_defaults_are_valid_and_frozen() -> None:
    """The default configuration validates and cannot be mutated."""
    config = TextualConfig()
    assert config.window == 8
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.window = 3  # type: ignore[misc]


# --- properties ------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(texts=st.lists(TEXTS, min_size=1, max_size=6))
def test_signals_stay_in_range(texts: list[str]) -> None:
    """Every signal stays in its documented range for arbitrary texts."""
    for i, s in enumerate(feed(texts)):
        assert 0.0 <= s.ngram_jaccard <= 1.0
        assert 0.0 <= s.containment <= 1.0
        assert s.ngram_jaccard <= s.containment
        assert s.longest_run >= 0
        assert 0.0 <= s.sentence_similarity <= 1.0
        assert 0.0 <= s.repeated_sentences <= 1.0
        assert s.matched_step is None or 0 <= s.matched_step < i
        assert (s.matched_step is None) == (s.ngram_jaccard == 0.0)


@settings(max_examples=80, deadline=None)
@given(prefix=st.lists(TEXTS, max_size=3), text=TEXTS)
def test_identical_text_twice_has_jaccard_one(prefix: list[str], text: str) -> None:
    """A text with at least one token, fed twice in a row, has ngram_jaccard 1.0."""
    signals = feed([*prefix, text, text])
    if tokenize(text):
        assert signals[-1].ngram_jaccard == 1.0
        assert signals[-1].containment == 1.0
    else:
        assert signals[-1].ngram_jaccard == 0.0


@settings(max_examples=40, deadline=None)
@given(texts=st.lists(TEXTS, min_size=2, max_size=8), cut=st.integers(min_value=0, max_value=8))
def test_deterministic_across_pickle_round_trip(texts: list[str], cut: int) -> None:
    """The same sequence gives the same signals, also when the tracker is pickled mid-run."""
    expected = feed(texts, TextualConfig(window=3))
    tracker = TextualTracker(TextualConfig(window=3))
    got = [tracker.update(t) for t in texts[:cut]]
    tracker = pickle.loads(pickle.dumps(tracker))
    got += [tracker.update(t) for t in texts[cut:]]
    assert got == expected
