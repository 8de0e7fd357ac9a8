# Hidden tests of the fix for jaraco/inflect#157 (written for this task; the upstream fix has its doctest only).
import pydantic
import pytest

import inflect


@pytest.mark.parametrize("words", [("egg", ""), ("", "egg"), ("", "")])
def test_an_empty_word_is_refused(words):
    with pytest.raises(pydantic.ValidationError):
        inflect.engine().compare(*words)


def test_words_are_still_compared():
    engine = inflect.engine()
    assert engine.compare("egg", "eggs") == "s:p"
    assert engine.compare("geese", "goose") == "p:s"
    assert engine.compare("cat", "dog") is False
