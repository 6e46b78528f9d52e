import re
import unittest


def slugify(title):
    s = title.strip().lower()
    s = re.sub(r"[^a-z0-9]+", "-", s)
    return s.strip("-")


class SlugifyTest(unittest.TestCase):
    """One test per kind of title the blog importer has seen."""

    def test_plain_words(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_leading_and_trailing_spaces(self):
        self.assertEqual(slugify("  Hello World  "), "hello-world")

    def test_punctuation(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_repeated_separators(self):
        self.assertEqual(slugify("Hello -- World"), "hello-world")

    def test_digits_kept(self):
        self.assertEqual(slugify("Top 10 Tips"), "top-10-tips")

    def test_underscores(self):
        self.assertEqual(slugify("snake_case_title"), "snake-case-title")

    def test_mixed_case(self):
        self.assertEqual(slugify("CamelCase Title"), "camelcase-title")

    def test_only_punctuation(self):
        self.assertEqual(slugify("!!!"), "")

    def test_empty(self):
        self.assertEqual(slugify(""), "")

    def test_slashes(self):
        self.assertEqual(slugify("and/or"), "and-or")

    def test_dots(self):
        self.assertEqual(slugify("v1.2.3 release"), "v1-2-3-release")

    def test_tabs_and_newlines(self):
        self.assertEqual(slugify("Hello\tWorld\n"), "hello-world")


if __name__ == "__main__":
    unittest.main()
