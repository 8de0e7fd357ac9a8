from quickoptions import even, render_settings, setting_text


def test_setting_text():
    assert setting_text('name', 'box') == 'name=box'
    assert setting_text('x', 'y') == 'x=y'
    assert setting_text('port', 8080) == 'port=8080'


def test_render_settings():
    assert render_settings({}) == ''


def test_render_settings_edge_case():
    assert render_settings({'b': 2, 'a': 'z'}) == 'a=z, b=2'


def test_render_settings_edge_case_2():
    assert render_settings({'mode': 'fast', 'level': 3}) == 'level=3, mode=fast'


def test_even():
    assert even(1) is False
    assert even(7) is False
    assert even(2) is True
