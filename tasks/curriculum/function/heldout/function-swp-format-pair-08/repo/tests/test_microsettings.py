from microsettings import format_pair, settings_text


def test_format_pair_edge_case():
    assert format_pair('x', 'y') == 'x=y'


def test_format_pair_edge_case_2():
    assert format_pair('port', 8080) == 'port=8080'


def test_settings_text():
    assert settings_text({}) == ''
