import unittest
from slug import slugify


class SlugTests(unittest.TestCase):
    def test_plain_words(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")

    def test_numbers(self):
        self.assertEqual(slugify("Top 10 Lists"), "top-10-lists")

    def test_leading_spaces(self):
        self.assertEqual(slugify("   padded"), "padded")

    def test_trailing_spaces(self):
        self.assertEqual(slugify("padded   "), "padded")

    def test_repeated_dashes(self):
        self.assertEqual(slugify("a -- b"), "a-b")

    def test_uppercase(self):
        self.assertEqual(slugify("LOUD TITLE"), "loud-title")

    def test_underscores(self):
        self.assertEqual(slugify("snake_case_title"), "snake-case-title")

    def test_empty(self):
        self.assertEqual(slugify(""), "")

    def test_only_symbols(self):
        self.assertEqual(slugify("!!!"), "")


if __name__ == "__main__":
    unittest.main()
