from microsettings import format_pair, settings_text


def test_format_pair_more_1():
    assert format_pair('a', 1) == 'a=1'


def test_format_pair_more_2():
    assert format_pair('debug', True) == 'debug=True'


def test_settings_text_more_1():
    assert settings_text({'a': 1}) == 'a=1'
