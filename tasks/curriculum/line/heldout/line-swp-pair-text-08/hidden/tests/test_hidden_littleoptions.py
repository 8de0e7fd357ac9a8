from littleoptions import pair_text, render_settings


def test_pair_text_more_1():
    assert pair_text('port', 8080) == 'port: 8080'


def test_pair_text_more_2():
    assert pair_text('name', 'box') == 'name: box'


def test_render_settings_more_1():
    assert render_settings({'a': 1}) == 'a: 1'
