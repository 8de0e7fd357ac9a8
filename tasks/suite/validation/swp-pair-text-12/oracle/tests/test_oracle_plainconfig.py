from plainconfig import format_all, pair_text


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_pair_text_matches_reference():
    check(pair_text, [
        (('a', 1), 'a=1'),
        (('port', 8080), 'port=8080'),
        (('name', 'box'), 'name=box'),
        (('debug', True), 'debug=True'),
        (('x', 'y'), 'x=y'),
    ])


def test_format_all_matches_reference():
    check(format_all, [
        (({},), ''),
        (({'a': 1},), 'a=1'),
        (({'b': 2, 'a': 'z'},), 'a=z, b=2'),
        (({'mode': 'fast', 'level': 3},), 'level=3, mode=fast'),
    ])
