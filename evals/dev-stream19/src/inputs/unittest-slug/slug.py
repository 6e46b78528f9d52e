"""Turn titles into URL slugs."""
import re
import unicodedata


def slugify(title, max_length=60, separator="-"):
    text = unicodedata.normalize("NFKD", title)
    text = text.encode("ascii", "ignore").decode("ascii").lower()
    text = re.sub(r"[^a-z0-9]+", separator, text).strip(separator)
    if len(text) > max_length:
        text = text[:max_length].rsplit(separator, 1)[0]
    return text
