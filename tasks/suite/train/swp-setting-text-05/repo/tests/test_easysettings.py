from easysettings import format_all, setting_text


def test_setting_text_edge_case():
    assert setting_text('port', 8080) == 'port=8080'


def test_setting_text_edge_case_2():
    assert setting_text('debug', True) == 'debug=True'


def test_format_all():
    assert format_all({}) == ''


def test_format_all_edge_case():
    assert format_all({'b': 2, 'a': 'z'}) == 'a=z, b=2'
