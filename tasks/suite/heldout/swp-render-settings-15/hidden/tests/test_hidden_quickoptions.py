from quickoptions import render_settings


def test_render_settings_more_1():
    assert render_settings({'a': 1}) == 'a=1'
