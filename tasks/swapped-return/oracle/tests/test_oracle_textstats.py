import pytest

from textstats import describe, length_range


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", (0, 0)),
        ("word", (4, 4)),
        ("same size here", (4, 4)),
        ("zz y xxx", (1, 3)),
        ("  tabs\tand\nnewlines  ", (3, 8)),
    ],
)
def test_length_range(text, expected):
    result = length_range(text)
    assert type(result) is tuple
    assert result == expected


def test_describe_single_word():
    assert describe("hello") == "1 words, lengths 5..5"


def test_describe_no_words():
    assert describe("") == "0 words, lengths 0..0"
