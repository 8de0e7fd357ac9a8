from littleoptions import pair_text, render_settings


def test_pair_text_edge_case():
    assert pair_text('debug', True) == 'debug: True'


def test_pair_text_edge_case_2():
    assert pair_text('x', 'y') == 'x: y'


def test_render_settings():
    assert render_settings({}) == ''


def test_render_settings_edge_case():
    assert render_settings({'mode': 'fast', 'level': 3}) == 'level: 3, mode: fast'
