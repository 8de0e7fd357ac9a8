from easysettings import format_all, setting_text


def test_setting_text_more_1():
    assert setting_text('a', 1) == 'a=1'


def test_setting_text_more_2():
    assert setting_text('name', 'box') == 'name=box'


def test_format_all_more_1():
    assert format_all({'mode': 'fast', 'level': 3}) == 'level=3, mode=fast'
