from smalldegrees import fahrenheit_to_celsius, to_fahrenheit


def check(fn, cases):
    for args, want in cases:
        got = fn(*args)
        ok = got is want if isinstance(want, bool) else got == want
        call = "%s(%s)" % (fn.__name__, ", ".join(map(repr, args)))
        assert ok, "%s returned %r, expected %r" % (call, got, want)


def test_to_fahrenheit_matches_reference():
    check(to_fahrenheit, [
        ((-40,), -40),
        ((-10,), 14),
        ((0,), 32),
        ((3,), 37),
        ((10,), 50),
        ((21,), 69),
        ((37,), 98),
        ((100,), 212),
    ])


def test_fahrenheit_to_celsius_matches_reference():
    check(fahrenheit_to_celsius, [
        ((-40,), -40),
        ((0,), -18),
        ((32,), 0),
        ((41,), 5),
        ((50,), 10),
        ((68,), 20),
        ((98,), 36),
        ((100,), 37),
        ((212,), 100),
    ])
