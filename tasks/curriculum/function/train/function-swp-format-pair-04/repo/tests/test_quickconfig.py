from quickconfig import format_all, format_pair


def test_format_pair_edge_case():
    assert format_pair('x', 'y') == 'x=y'


def test_format_pair_edge_case_2():
    assert format_pair('name', 'box') == 'name=box'


def test_format_all():
    assert format_all({}) == ''


def test_format_all_edge_case():
    assert format_all({'mode': 'fast', 'level': 3}) == 'level=3, mode=fast'
