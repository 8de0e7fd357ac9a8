from basicsettings import format_all, pair_text


def test_pair_text_more_1():
    assert pair_text('port', 8080) == 'port=8080'


def test_pair_text_more_2():
    assert pair_text('name', 'box') == 'name=box'


def test_format_all_more_1():
    assert format_all({'mode': 'fast', 'level': 3}) == 'level=3, mode=fast'
