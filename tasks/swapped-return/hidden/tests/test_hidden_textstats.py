from textstats import length_range


def test_length_range_unsorted_words():
    assert length_range("hello to everybody") == (2, 9)


def test_shortest_not_longer_than_longest():
    shortest, longest = length_range("one three eleven")
    assert shortest <= longest
