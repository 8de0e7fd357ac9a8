from textstats import describe, length_range, word_count


def test_word_count():
    assert word_count("the quick  brown\nfox") == 4
    assert word_count("") == 0


def test_length_range():
    assert length_range("a bb ccc") == (1, 3)


def test_length_range_empty():
    assert length_range("   ") == (0, 0)


def test_describe():
    assert describe("a bb ccc") == "3 words, lengths 1..3"
