import unittest

from slug import slugify


class SlugTests(unittest.TestCase):
    def test_lowercases(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_strips_punctuation(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_collapses_spaces(self):
        self.assertEqual(slugify("a   b    c"), "a-b-c")

    def test_strips_accents(self):
        self.assertEqual(slugify("Crème brûlée"), "creme-brulee")

    def test_drops_non_latin(self):
        self.assertEqual(slugify("東京 Tokyo"), "tokyo")

    def test_keeps_digits(self):
        self.assertEqual(slugify("Top 10 lists"), "top-10-lists")

    def test_trims_leading_separator(self):
        self.assertEqual(slugify("  --hello"), "hello")

    def test_trims_trailing_separator(self):
        self.assertEqual(slugify("hello--  "), "hello")

    def test_custom_separator(self):
        self.assertEqual(slugify("Hello World", separator="_"), "hello_world")

    def test_max_length_cuts_at_word(self):
        self.assertEqual(slugify("alpha beta gamma", max_length=12), "alpha-beta")

    def test_max_length_exact(self):
        self.assertEqual(slugify("alpha beta", max_length=10), "alpha-beta")

    def test_empty_string(self):
        self.assertEqual(slugify(""), "")

    def test_only_punctuation(self):
        self.assertEqual(slugify("?!?!"), "")

    def test_apostrophes(self):
        self.assertEqual(slugify("Don't stop"), "don-t-stop")

    def test_ampersand(self):
        self.assertEqual(slugify("Salt & Pepper"), "salt-pepper")

    def test_underscores(self):
        self.assertEqual(slugify("snake_case_title"), "snake-case-title")

    def test_tabs_and_newlines(self):
        self.assertEqual(slugify("one\ttwo\nthree"), "one-two-three")

    def test_german_eszett(self):
        self.assertEqual(slugify("Straße"), "strae")

    def test_idempotent(self):
        self.assertEqual(slugify(slugify("Hello World")), "hello-world")

    def test_already_slug(self):
        self.assertEqual(slugify("already-a-slug"), "already-a-slug")

    def test_uppercase_acronym(self):
        self.assertEqual(slugify("NASA JPL"), "nasa-jpl")

    def test_numbers_only(self):
        self.assertEqual(slugify("2027"), "2027")

    def test_mixed_separators(self):
        self.assertEqual(slugify("a.b/c\\d"), "a-b-c-d")

    def test_long_word_kept_whole(self):
        self.assertEqual(slugify("supercalifragilistic word", max_length=25), "supercalifragilistic-word")


if __name__ == "__main__":
    unittest.main()
