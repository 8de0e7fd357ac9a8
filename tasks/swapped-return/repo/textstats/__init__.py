"""Small statistics about the words of a text."""


def words(text):
    """Split text into words on whitespace."""
    return text.split()


def word_count(text):
    return len(words(text))


def length_range(text):
    """Return (shortest, longest) word length; (0, 0) for a text with no words."""
    lengths = [len(w) for w in words(text)]
    if not lengths:
        return (0, 0)
    return (max(lengths), min(lengths))


def describe(text):
    shortest, longest = length_range(text)
    return f"{word_count(text)} words, lengths {shortest}..{longest}"
